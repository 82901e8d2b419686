package dev.floe.sync;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

class TableCommittableSerializerTest {

  private static TableCommittable roundTrip(TableCommittable committable) throws Exception {
    DataOutputSerializer out = new DataOutputSerializer(256);
    TableCommittableSerializer.INSTANCE.serialize(committable, out);
    DataInputDeserializer in = new DataInputDeserializer(out.getCopyOfBuffer());
    TableCommittable read = TableCommittableSerializer.INSTANCE.deserialize(in);
    assertThat(in.available()).isZero();
    return read;
  }

  @Test
  void roundTripsFilesTruncationsAndProgress() throws Exception {
    BinlogPosition position = new BinlogPosition("mysql-bin.000002", 991);
    TableCommittable files =
        TableCommittable.files(
            12,
            new TableCommittable.Pending(
                "db.t", 3, "uuid-1", CommitterStateSerializerTest.writeResult("a")),
            CommitterStateSerializerTest.SPECS,
            position,
            77);
    TableCommittable truncate =
        TableCommittable.files(
            12,
            new TableCommittable.Pending("db.t", 4, "uuid-1", null, true),
            java.util.Map.of(),
            position,
            77);
    TableCommittable progress = TableCommittable.progress(12, position, 77);
    for (TableCommittable committable : java.util.List.of(files, truncate, progress)) {
      assertThat(roundTrip(committable)).isEqualTo(committable);
    }
    TableCommittable read = roundTrip(files);
    assertThat(read.table()).contains("db.t");
    assertThat(read.schemaVersion()).isEqualTo(3);
    assertThat(read.files().dataFiles()).hasSize(1);
    assertThat(read.files().deleteFiles()).hasSize(2);
    assertThat(read.progress()).isEqualTo(position);
    assertThat(roundTrip(truncate).truncate()).isTrue();
    assertThat(roundTrip(progress).table()).isEmpty();
  }

  @Test
  void roundTripsKafkaOffsetsAndReadsFormatOne() throws Exception {
    KafkaOffsets offsets =
        KafkaOffsets.of(
            java.util.Map.of(
                new KafkaOffsets.Partition("t", 0), 3L, new KafkaOffsets.Partition("t", 1), 8L));
    TableCommittable kafka = TableCommittable.progress(5, offsets, 0);
    assertThat(roundTrip(kafka)).isEqualTo(kafka);
    TableCommittable binlog =
        TableCommittable.progress(5, new BinlogPosition("mysql-bin.000001", 4), 9);
    DataOutputSerializer out = new DataOutputSerializer(64);
    TableCommittableSerializer.FORMAT_1.serialize(binlog, out);
    assertThat(
            TableCommittableSerializer.FORMAT_1.deserialize(
                new DataInputDeserializer(out.getCopyOfBuffer())))
        .isEqualTo(binlog);
    assertThat(
            TableCommittableSerializer.INSTANCE
                .snapshotConfiguration()
                .resolveSchemaCompatibility(new TableCommittableSerializer.Snapshot())
                .isCompatibleAfterMigration())
        .isTrue();
  }

  @Test
  void itsSnapshotRestoresACompatibleSerializer() throws Exception {
    TypeSerializerSnapshot<TableCommittable> snapshot =
        TableCommittableSerializer.INSTANCE.snapshotConfiguration();
    DataOutputSerializer out = new DataOutputSerializer(64);
    TypeSerializerSnapshot.writeVersionedSnapshot(out, snapshot);
    TypeSerializerSnapshot<TableCommittable> read =
        TypeSerializerSnapshot.readVersionedSnapshot(
            new DataInputDeserializer(out.getCopyOfBuffer()), getClass().getClassLoader());
    assertThat(read.restoreSerializer()).isSameAs(TableCommittableSerializer.INSTANCE);
    TypeSerializerSchemaCompatibility<TableCommittable> compatibility =
        TableCommittableSerializer.INSTANCE
            .snapshotConfiguration()
            .resolveSchemaCompatibility(read);
    assertThat(compatibility.isCompatibleAsIs()).isTrue();
  }
}

package dev.floe.sync;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

class ChangeRecordSerializerTest {

  @Test
  void roundTripsEveryValueTypeTheConverterProduces() throws Exception {
    Object[] values = {
      null,
      42,
      -7L,
      1.5f,
      2.25d,
      true,
      "grüße, 世界",
      new BigDecimal("-12345678901234567890.0042"),
      LocalDate.of(2026, 12, 2),
      LocalTime.of(23, 59, 59, 999_999_000),
      LocalDateTime.of(1970, 1, 1, 0, 0, 0, 1_000),
      OffsetDateTime.of(2026, 1, 2, 3, 4, 5, 6_000, ZoneOffset.UTC),
      ByteBuffer.wrap(new byte[] {0, 1, (byte) 0xFF})
    };
    ChangeRecord record =
        new ChangeRecord(
            "db.t",
            ChangeRecord.Operation.UPSERT,
            values,
            "db.t|42",
            3,
            2,
            new BinlogPosition("mysql-bin.000009", 123_456),
            1_764_000_000_000L);
    DataOutputSerializer out = new DataOutputSerializer(128);
    ChangeRecordSerializer.INSTANCE.serialize(record, out);
    DataInputDeserializer in = new DataInputDeserializer(out.getCopyOfBuffer());
    ChangeRecord read = ChangeRecordSerializer.INSTANCE.deserialize(in);

    assertThat(in.available()).isZero();
    assertThat(read.table()).isEqualTo("db.t");
    assertThat(read.operation()).isEqualTo(ChangeRecord.Operation.UPSERT);
    assertThat(read.key()).isEqualTo("db.t|42");
    assertThat(read.schemaId()).isEqualTo(3);
    assertThat(read.schemaVersion()).isEqualTo(2);
    assertThat(read.position()).isEqualTo(new BinlogPosition("mysql-bin.000009", 123_456));
    assertThat(read.sourceMillis()).isEqualTo(1_764_000_000_000L);
    assertThat(read.values()).containsExactly(values);
  }

  @Test
  void roundTripsAKafkaPosition() throws Exception {
    ChangeRecord record =
        new ChangeRecord(
            "db.t",
            ChangeRecord.Operation.DELETE,
            new Object[] {7L},
            "db.t|7",
            1,
            1,
            new KafkaPosition("shop.orders", 3, 9_000_000_001L),
            12);
    DataOutputSerializer out = new DataOutputSerializer(64);
    ChangeRecordSerializer.INSTANCE.serialize(record, out);
    DataInputDeserializer in = new DataInputDeserializer(out.getCopyOfBuffer());
    ChangeRecord read = ChangeRecordSerializer.INSTANCE.deserialize(in);
    assertThat(in.available()).isZero();
    assertThat(read.position()).isEqualTo(new KafkaPosition("shop.orders", 3, 9_000_000_001L));
    assertThat(read.values()).containsExactly(7L);
  }

  @Test
  void formatOneIsReadAndMigratedFrom() throws Exception {
    ChangeRecord record =
        new ChangeRecord(
            "db.t",
            ChangeRecord.Operation.INSERT,
            new Object[] {"x"},
            "db.t|x",
            1,
            0,
            new BinlogPosition("mysql-bin.000001", 4),
            0);
    DataOutputSerializer out = new DataOutputSerializer(64);
    ChangeRecordSerializer.FORMAT_1.serialize(record, out);
    ChangeRecord read =
        ChangeRecordSerializer.FORMAT_1.deserialize(
            new DataInputDeserializer(out.getCopyOfBuffer()));
    assertThat(read.position()).isEqualTo(new BinlogPosition("mysql-bin.000001", 4));
    DataOutputSerializer snapshot = new DataOutputSerializer(64);
    TypeSerializerSnapshot.writeVersionedSnapshot(snapshot, new ChangeRecordSerializer.Snapshot());
    TypeSerializerSnapshot<ChangeRecord> old =
        TypeSerializerSnapshot.readVersionedSnapshot(
            new DataInputDeserializer(snapshot.getCopyOfBuffer()), getClass().getClassLoader());
    assertThat(old.restoreSerializer()).isSameAs(ChangeRecordSerializer.FORMAT_1);
    assertThat(
            ChangeRecordSerializer.INSTANCE
                .snapshotConfiguration()
                .resolveSchemaCompatibility(old)
                .isCompatibleAfterMigration())
        .isTrue();
  }

  @Test
  void itsSnapshotRestoresTheSameSerializer() throws Exception {
    DataOutputSerializer out = new DataOutputSerializer(64);
    TypeSerializerSnapshot.writeVersionedSnapshot(
        out, ChangeRecordSerializer.INSTANCE.snapshotConfiguration());
    TypeSerializerSnapshot<ChangeRecord> read =
        TypeSerializerSnapshot.readVersionedSnapshot(
            new DataInputDeserializer(out.getCopyOfBuffer()), getClass().getClassLoader());
    assertThat(read.restoreSerializer()).isSameAs(ChangeRecordSerializer.INSTANCE);
    assertThat(
            ChangeRecordSerializer.INSTANCE
                .snapshotConfiguration()
                .resolveSchemaCompatibility(read)
                .isCompatibleAsIs())
        .isTrue();
  }
}

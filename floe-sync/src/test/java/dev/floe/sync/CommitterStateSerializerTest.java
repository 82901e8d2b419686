package dev.floe.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.ObjectOutputStream;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.io.WriteResult;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

class CommitterStateSerializerTest {

  static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "country", Types.StringType.get()));
  static final PartitionSpec SPEC = PartitionSpec.builderFor(SCHEMA).identity("country").build();
  static final Map<Integer, PartitionSpec> SPECS = Map.of(SPEC.specId(), SPEC);

  static DataFile dataFile(String name) {
    return DataFiles.builder(SPEC)
        .withPath("file:/lake/db/t/data/country=DE/" + name + ".parquet")
        .withFormat(FileFormat.PARQUET)
        .withPartitionPath("country=DE")
        .withFileSizeInBytes(2048)
        .withMetrics(
            new Metrics(
                10L,
                Map.of(1, 80L, 2, 40L),
                Map.of(1, 10L, 2, 10L),
                Map.of(1, 0L, 2, 2L),
                Map.of(),
                Map.of(1, Conversions.toByteBuffer(Types.LongType.get(), 3L)),
                Map.of(1, Conversions.toByteBuffer(Types.LongType.get(), 42L))))
        .withSplitOffsets(List.of(4L))
        .build();
  }

  static DeleteFile equalityDeletes(String name) {
    return FileMetadata.deleteFileBuilder(SPEC)
        .ofEqualityDeletes(1)
        .withPath("file:/lake/db/t/data/country=DE/" + name + "-eq.parquet")
        .withFormat(FileFormat.PARQUET)
        .withPartitionPath("country=DE")
        .withFileSizeInBytes(512)
        .withRecordCount(3)
        .build();
  }

  static DeleteFile positionDeletes(String name) {
    return FileMetadata.deleteFileBuilder(SPEC)
        .ofPositionDeletes()
        .withPath("file:/lake/db/t/data/country=DE/" + name + "-pos.parquet")
        .withFormat(FileFormat.PARQUET)
        .withPartitionPath("country=DE")
        .withFileSizeInBytes(256)
        .withRecordCount(1)
        .build();
  }

  static WriteResult writeResult(String name) {
    return WriteResult.builder()
        .addDataFiles(dataFile(name))
        .addDeleteFiles(equalityDeletes(name), positionDeletes(name))
        .addReferencedDataFiles(dataFile(name).location())
        .build();
  }

  private static CommitterState sample() {
    PendingCheckpoint first = new PendingCheckpoint();
    first.position = new BinlogPosition("mysql-bin.000003", 4711);
    first.sourceMillis = 1_764_000_000_000L;
    first.addFiles("db.t", 0, PendingFiles.of(writeResult("a"), SPECS));
    first.addFiles("db.t", 0, PendingFiles.of(writeResult("b"), SPECS));
    first.addFiles("db.t", 1, PendingFiles.of(writeResult("c"), SPECS));
    first.addTruncation("db.t", 1);
    first.tableUuids.put("db.t", "0b6f1c1e-0000-4000-8000-000000000001");
    first.addTruncation("db.emptied", 0);
    first.tableUuids.put("db.emptied", "0b6f1c1e-0000-4000-8000-000000000002");
    PendingCheckpoint second = new PendingCheckpoint();
    TreeMap<Long, PendingCheckpoint> checkpoints = new TreeMap<>();
    checkpoints.put(7L, first);
    checkpoints.put(8L, second);
    return new CommitterState("sync-1", checkpoints);
  }

  @Test
  void roundTripsEveryField() {
    CommitterState state = sample();
    CommitterState read = CommitterStateSerializer.read(CommitterStateSerializer.write(state));
    assertThat(read).isEqualTo(state);
    assertThat(read.checkpoints().get(7L).results.get("db.t").get(0)).hasSize(2);
  }

  @Test
  void roundTripsKafkaOffsets() {
    CommitterState binlog = sample();
    TreeMap<KafkaOffsets.Partition, Long> next = new TreeMap<>();
    next.put(new KafkaOffsets.Partition("shop.orders", 0), 17L);
    next.put(new KafkaOffsets.Partition("shop.orders", 3), 4L);
    next.put(new KafkaOffsets.Partition("a.b.c", 1), 9_000_000_000L);
    KafkaOffsets offsets = new KafkaOffsets(next);
    TreeMap<Long, PendingCheckpoint> checkpoints = new TreeMap<>(binlog.checkpoints());
    checkpoints.get(7L).position = offsets;
    CommitterState state =
        new CommitterState(
            "sync-2",
            KafkaOffsets.of(java.util.Map.of(new KafkaOffsets.Partition("shop.orders", 0), 5L)),
            checkpoints);
    CommitterState read = CommitterStateSerializer.read(CommitterStateSerializer.write(state));
    assertThat(read).isEqualTo(state);
    assertThat(read.checkpoints().get(7L).position).isEqualTo(offsets);
  }

  @Test
  void readsVersionOneWithBinlogPositions() throws Exception {
    CommitterState state = sample();
    byte[] payload = CommitterStateSerializer.serialize(state, 1);
    ByteBuffer framed = ByteBuffer.allocate(payload.length + 8);
    framed.putInt(CommitterStateSerializer.MAGIC).putInt(1).put(payload);
    CommitterState read = CommitterStateSerializer.read(framed.array());
    assertThat(read).isEqualTo(state);
    assertThat(read.committed()).isEqualTo(SourceProgress.NONE);
    assertThat(read.checkpoints().get(7L).position)
        .isEqualTo(new BinlogPosition("mysql-bin.000003", 4711));
  }

  @Test
  void framesTheStateWithMagicAndVersion() {
    byte[] bytes = CommitterStateSerializer.write(sample());
    assertThat(Arrays.copyOf(bytes, 8)).containsExactly(0x46, 0x4C, 0x43, 0x53, 0, 0, 0, 2);
    assertThat(CommitterStateSerializer.isJavaSerialized(bytes)).isFalse();
  }

  @Test
  void pendingFilesComeBackAsTheSameIcebergFiles() {
    WriteResult read = PendingFiles.of(writeResult("a"), SPECS).toWriteResult(SPECS);
    DataFile data = read.dataFiles()[0];
    DataFile expected = dataFile("a");
    assertThat(data.location()).isEqualTo(expected.location());
    assertThat(data.partition().get(0, String.class)).isEqualTo("DE");
    assertThat(data.recordCount()).isEqualTo(10);
    assertThat(data.fileSizeInBytes()).isEqualTo(2048);
    assertThat(data.columnSizes()).isEqualTo(expected.columnSizes());
    assertThat(data.nullValueCounts()).isEqualTo(expected.nullValueCounts());
    assertThat(data.lowerBounds()).isEqualTo(expected.lowerBounds());
    assertThat(data.upperBounds()).isEqualTo(expected.upperBounds());
    assertThat(data.splitOffsets()).containsExactly(4L);
    assertThat(read.deleteFiles()).hasSize(2);
    assertThat(read.deleteFiles()[0].content())
        .isEqualTo(org.apache.iceberg.FileContent.EQUALITY_DELETES);
    assertThat(read.deleteFiles()[0].equalityFieldIds()).containsExactly(1);
    assertThat(read.deleteFiles()[1].content())
        .isEqualTo(org.apache.iceberg.FileContent.POSITION_DELETES);
    assertThat(read.referencedDataFiles()).hasSize(1);
    assertThat(read.referencedDataFiles()[0].toString()).isEqualTo(expected.location());
  }

  @Test
  void refusesANewerVersionNamingIt() {
    byte[] bytes = CommitterStateSerializer.write(sample());
    ByteBuffer.wrap(bytes).putInt(4, 3);
    assertThatThrownBy(() -> CommitterStateSerializer.read(bytes))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "the committer state in this checkpoint has state version 3; this Floe reads"
                + " versions 0 to 2. Restore it with the Floe that wrote it (or a newer one).");
  }

  @Test
  void refusesBytesThatAreNotFloeState() {
    assertThatThrownBy(() -> CommitterStateSerializer.read(new byte[] {1, 2, 3, 4, 0, 0, 0, 1}))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "the committer state in this checkpoint is not Floe's: it begins with 0x1020304,"
                + " not 0x464c4353");
  }

  @Test
  void refusesCutOffState() {
    byte[] bytes = CommitterStateSerializer.write(sample());
    assertThatThrownBy(() -> CommitterStateSerializer.read(Arrays.copyOf(bytes, bytes.length - 10)))
        .hasMessageContaining("cannot read the committer state in this checkpoint");
  }

  @Test
  void readsJavaSerializedVersionZero() throws Exception {
    IcebergChangeCommitter.Checkpoint old = new IcebergChangeCommitter.Checkpoint();
    old.results.computeIfAbsent("db.t", table -> new TreeMap<>()).put(0, List.of(writeResult("a")));
    old.tableUuids.put("db.t", "0b6f1c1e-0000-4000-8000-000000000001");
    old.position = new BinlogPosition("mysql-bin.000003", 4711);
    old.sourceMillis = 5;
    TreeMap<Long, IcebergChangeCommitter.Checkpoint> checkpoints = new TreeMap<>();
    checkpoints.put(3L, old);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(new Object[] {"sync-0", checkpoints});
    }
    assertThat(CommitterStateSerializer.isJavaSerialized(bytes.toByteArray())).isTrue();

    CommitterState read =
        LegacyCommitterState.read(bytes.toByteArray(), (table, uuid) -> Optional.of(SPECS));

    PendingCheckpoint expected = new PendingCheckpoint();
    expected.addFiles("db.t", 0, PendingFiles.of(writeResult("a"), SPECS));
    expected.tableUuids.put("db.t", "0b6f1c1e-0000-4000-8000-000000000001");
    expected.position = new BinlogPosition("mysql-bin.000003", 4711);
    expected.sourceMillis = 5;
    assertThat(read.syncId()).isEqualTo("sync-0");
    assertThat(read.checkpoints()).containsExactly(Map.entry(3L, expected));
    assertThat(
            LegacyCommitterState.read(bytes.toByteArray(), (table, uuid) -> Optional.empty())
                .checkpoints()
                .get(3L)
                .results)
        .as("files of a table made again since are dropped")
        .isEmpty();
  }

  @Test
  void versionZeroInstantiatesOnlyTheClassesItHolds() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(new Object[] {"sync-0", new java.text.SimpleDateFormat()});
    }
    assertThatThrownBy(
            () -> LegacyCommitterState.read(bytes.toByteArray(), (t, u) -> Optional.of(SPECS)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "cannot read the committer state of this checkpoint (state version 0, Java"
                + " serialization): filter status: REJECTED");
  }
}

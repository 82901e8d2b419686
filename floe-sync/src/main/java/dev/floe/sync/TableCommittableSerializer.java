package dev.floe.sync;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.TypeSerializerSingleton;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.types.StringValue;

/**
 * Sends {@link TableCommittable}s from the writers to the committer (and keeps them in unaligned
 * checkpoints' in-flight data): every field explicitly, strings in Flink's {@link StringValue}
 * encoding (no length limit), files as {@link PendingFiles}' JSON.
 *
 * <p>Format 2 (this one, snapshot {@link SnapshotV2}) writes the source progress in {@link
 * SourceProgressFormat}; format 1 (snapshot {@link Snapshot}, before the Kafka sync) wrote a binlog
 * file and position, and is still read by {@link #FORMAT_1}, which Flink migrates from. A change of
 * this format needs a new snapshot class.
 */
final class TableCommittableSerializer extends TypeSerializerSingleton<TableCommittable> {

  private static final long serialVersionUID = 1L;

  static final TableCommittableSerializer INSTANCE = new TableCommittableSerializer(2);

  /** Reads (and writes) format 1: binlog positions only. */
  static final TableCommittableSerializer FORMAT_1 = new TableCommittableSerializer(1);

  private final int format;

  private TableCommittableSerializer(int format) {
    this.format = format;
  }

  /** Format 1's snapshot, kept to restore it: its serializer reads binlog positions only. */
  public static final class Snapshot extends SimpleTypeSerializerSnapshot<TableCommittable> {
    public Snapshot() {
      super(() -> FORMAT_1);
    }
  }

  /** What Flink keeps of this serializer (format 2) in a checkpoint, to restore it. */
  public static final class SnapshotV2 extends SimpleTypeSerializerSnapshot<TableCommittable> {
    public SnapshotV2() {
      super(() -> INSTANCE);
    }

    @Override
    public org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility<TableCommittable>
        resolveSchemaCompatibility(TypeSerializerSnapshot<TableCommittable> old) {
      return old instanceof Snapshot
          ? org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility
              .compatibleAfterMigration()
          : super.resolveSchemaCompatibility(old);
    }
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof TableCommittableSerializer that && format == that.format;
  }

  @Override
  public int hashCode() {
    return format;
  }

  @Override
  public boolean isImmutableType() {
    return true;
  }

  @Override
  public TableCommittable createInstance() {
    return TableCommittable.progress(0, BinlogPosition.NONE, 0);
  }

  @Override
  public TableCommittable copy(TableCommittable from) {
    return from;
  }

  @Override
  public TableCommittable copy(TableCommittable from, TableCommittable reuse) {
    return from;
  }

  @Override
  public int getLength() {
    return -1;
  }

  @Override
  public void serialize(TableCommittable record, DataOutputView target) throws IOException {
    target.writeLong(record.checkpointId());
    StringValue.writeString(record.tableName(), target);
    target.writeInt(record.schemaVersion());
    StringValue.writeString(record.tableUuid(), target);
    target.writeBoolean(record.truncate());
    writeStrings(record.files().dataFiles(), target);
    writeStrings(record.files().deleteFiles(), target);
    writeStrings(record.files().referencedDataFiles(), target);
    if (format == 1) {
      BinlogPosition binlog = (BinlogPosition) record.progress();
      StringValue.writeString(binlog.file(), target);
      target.writeLong(binlog.position());
    } else {
      SourceProgressFormat.write(record.progress(), target);
    }
    target.writeLong(record.sourceMillis());
  }

  @Override
  public TableCommittable deserialize(DataInputView source) throws IOException {
    long checkpointId = source.readLong();
    String table = StringValue.readString(source);
    int schemaVersion = source.readInt();
    String tableUuid = StringValue.readString(source);
    boolean truncate = source.readBoolean();
    PendingFiles files =
        new PendingFiles(readStrings(source), readStrings(source), readStrings(source));
    SourceProgress position =
        format == 1
            ? new BinlogPosition(StringValue.readString(source), source.readLong())
            : SourceProgressFormat.read(source);
    long sourceMillis = source.readLong();
    return TableCommittable.of(
        checkpointId, table, schemaVersion, tableUuid, truncate, files, position, sourceMillis);
  }

  @Override
  public TableCommittable deserialize(TableCommittable reuse, DataInputView source)
      throws IOException {
    return deserialize(source);
  }

  @Override
  public void copy(DataInputView source, DataOutputView target) throws IOException {
    serialize(deserialize(source), target);
  }

  @Override
  public TypeSerializerSnapshot<TableCommittable> snapshotConfiguration() {
    return format == 1 ? new Snapshot() : new SnapshotV2();
  }

  private static void writeStrings(List<String> values, DataOutputView target) throws IOException {
    target.writeInt(values.size());
    for (String value : values) {
      StringValue.writeString(value, target);
    }
  }

  private static List<String> readStrings(DataInputView source) throws IOException {
    int count = source.readInt();
    List<String> values = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      values.add(StringValue.readString(source));
    }
    return values;
  }
}

package dev.floe.sync;

import java.io.IOException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.GenericAppenderFactory;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.BaseTaskWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.util.PropertyUtil;
import org.apache.iceberg.util.StructLikeWrapper;

/**
 * Writes one checkpoint's changes to one table: data files, equality deletes keyed by the
 * identifier fields (key columns only), and position deletes for rows written and deleted within
 * the same checkpoint (an equality delete does not apply to rows of its own commit). A table
 * without identifier fields (plain JSON appended without a key) takes inserts only, as plain data
 * files.
 *
 * <p>Changes are folded per key and partition before they are written: a key changed ten times in
 * one checkpoint costs at most one equality delete and one row, never a position delete, as long as
 * the subtask's {@link FoldBudget} lasts. Past it, the writer writes what it holds and goes on
 * folding from there (later changes of a key already written become position deletes, as without
 * folding). What lands is the same either way: the last change of each key.
 *
 * <p>Not thread-safe; one per table per writer subtask per checkpoint.
 */
final class DeltaTaskWriter extends BaseTaskWriter<Record> {

  private final Schema schema;
  private final Schema keySchema;
  private final PartitionKey partitionKey;
  private final InternalRecordWrapper partitionWrapper;
  private final Map<PartitionKey, RowDeltaWriter> writers = new HashMap<>();
  private final Map<PartitionKey, RollingFileWriter> appenders = new HashMap<>();
  private final FoldBudget budget;

  private DeltaTaskWriter(
      Table table,
      Schema schema,
      Schema keySchema,
      GenericAppenderFactory appenderFactory,
      OutputFileFactory fileFactory,
      FileFormat format,
      long targetFileSize,
      FoldBudget budget) {
    super(table.spec(), format, appenderFactory, fileFactory, table.io(), targetFileSize);
    this.budget = budget;
    this.schema = schema;
    this.keySchema = keySchema;
    this.partitionKey = new PartitionKey(table.spec(), schema);
    this.partitionWrapper = new InternalRecordWrapper(schema.asStruct());
  }

  /**
   * A writer of rows of the table's schema {@code schema} (the current one or an older one),
   * folding changes per key within {@code budget}.
   */
  static DeltaTaskWriter create(
      Table table, Schema schema, int partitionId, long taskId, FoldBudget budget) {
    Schema keySchema = TypeUtil.select(schema, schema.identifierFieldIds());
    int[] equalityFieldIds =
        schema.identifierFieldIds().stream().mapToInt(Integer::intValue).toArray();
    // With the table, position delete files keep full file_path bounds (Iceberg's
    // MetricsConfig.forPositionDelete); without it they are truncated to 16 characters, and such a
    // file "may apply" to every older data file of its partition: readers then load it for each of
    // them, and every compaction of those files fails validation ("found new position delete for
    // replaced data file") although the deletes only name files of their own commit.
    GenericAppenderFactory appenderFactory =
        new GenericAppenderFactory(
            table,
            schema,
            table.spec(),
            streamingWriteProperties(table.properties()),
            equalityFieldIds,
            keySchema,
            null);
    FileFormat format =
        FileFormat.fromString(
            table
                .properties()
                .getOrDefault(
                    TableProperties.DEFAULT_FILE_FORMAT,
                    TableProperties.DEFAULT_FILE_FORMAT_DEFAULT));
    OutputFileFactory fileFactory =
        OutputFileFactory.builderFor(table, partitionId, taskId).format(format).build();
    long targetFileSize =
        PropertyUtil.propertyAsLong(
            table.properties(),
            TableProperties.WRITE_TARGET_FILE_SIZE_BYTES,
            TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT);
    return new DeltaTaskWriter(
        table, schema, keySchema, appenderFactory, fileFactory, format, targetFileSize, budget);
  }

  /**
   * The Parquet page size of the files a sync writes, unless the table sets its own: 64 KiB instead
   * of Parquet's 1 MiB. Each open Parquet file holds a compression buffer of one page from its
   * start, and a checkpoint keeps up to three files open per changed table per writer (data,
   * equality and position deletes), most of them a few kilobytes: with 1 MiB pages a sync of 100
   * busy tables needed about 1 GiB of heap for empty buffers (docs/sync.md, "Memory").
   */
  static final String STREAMING_PAGE_SIZE_BYTES = Integer.toString(64 * 1024);

  static Map<String, String> streamingWriteProperties(Map<String, String> tableProperties) {
    Map<String, String> properties = new HashMap<>(tableProperties);
    properties.putIfAbsent(TableProperties.PARQUET_PAGE_SIZE_BYTES, STREAMING_PAGE_SIZE_BYTES);
    properties.putIfAbsent(
        TableProperties.DELETE_PARQUET_PAGE_SIZE_BYTES, STREAMING_PAGE_SIZE_BYTES);
    return properties;
  }

  /** Writes a row whose key is new to the table (any row of a table without a key). */
  @Override
  public void write(Record row) throws IOException {
    if (keySchema.columns().isEmpty()) {
      appenderFor(row).write(row);
      return;
    }
    writerFor(row).fold(key(row), row, false);
  }

  private RollingFileWriter appenderFor(Record row) {
    if (!spec().isUnpartitioned()) {
      partitionKey.partition(partitionWrapper.wrap(row));
    }
    RollingFileWriter appender = appenders.get(partitionKey);
    if (appender == null) {
      PartitionKey copy = partitionKey.copy();
      appender = new RollingFileWriter(spec().isUnpartitioned() ? null : copy);
      appenders.put(copy, appender);
    }
    return appender;
  }

  /** Deletes the row with this row's key, then writes the row. */
  void upsert(Record row) throws IOException {
    writerFor(row).fold(key(row), row, true);
  }

  /** Deletes the row with this row's key. */
  void delete(Record row) throws IOException {
    writerFor(row).fold(key(row), null, true);
  }

  /** Writes what every partition holds back and gives the budget back. */
  private void writeHeld() throws IOException {
    for (RowDeltaWriter writer : writers.values()) {
      writer.writeHeld();
    }
  }

  Schema schema() {
    return schema;
  }

  private Record key(Record row) {
    Record key = org.apache.iceberg.data.GenericRecord.create(keySchema);
    for (org.apache.iceberg.types.Types.NestedField field : keySchema.columns()) {
      key.setField(field.name(), row.getField(field.name()));
    }
    return key;
  }

  private RowDeltaWriter writerFor(Record row) {
    if (spec().isUnpartitioned()) {
      return writers.computeIfAbsent(partitionKey, ignored -> new RowDeltaWriter(null));
    }
    partitionKey.partition(partitionWrapper.wrap(row));
    RowDeltaWriter writer = writers.get(partitionKey);
    if (writer == null) {
      PartitionKey copy = partitionKey.copy();
      writer = new RowDeltaWriter(copy);
      writers.put(copy, writer);
    }
    return writer;
  }

  /** Drops what it holds back (never written), then the files written so far. */
  @Override
  public void abort() throws IOException {
    for (RowDeltaWriter writer : writers.values()) {
      writer.dropHeld();
    }
    super.abort();
  }

  @Override
  public void close() throws IOException {
    writeHeld();
    for (RowDeltaWriter writer : writers.values()) {
      writer.close();
    }
    writers.clear();
    for (RollingFileWriter appender : appenders.values()) {
      appender.close();
    }
    appenders.clear();
  }

  /** The last change of one key in one checkpoint, not written yet. */
  private static final class Held {
    final Record key;

    /** Whether a row of this key from before the checkpoint is deleted (an equality delete). */
    final boolean deletesOlder;

    /** The key's row at the end, or null when the key ends deleted. */
    Record row;

    Held(Record key, boolean deletesOlder, Record row) {
      this.key = key;
      this.deletesOlder = deletesOlder;
      this.row = row;
    }
  }

  private final class RowDeltaWriter extends BaseEqualityDeltaWriter {
    private final InternalRecordWrapper rowWrapper = new InternalRecordWrapper(schema.asStruct());
    private final InternalRecordWrapper keyWrapper =
        new InternalRecordWrapper(keySchema.asStruct());
    private final StructLikeWrapper probe = StructLikeWrapper.forType(keySchema.asStruct());
    private final Map<StructLikeWrapper, Held> held = new LinkedHashMap<>();

    RowDeltaWriter(StructLike partition) {
      super(partition, schema, keySchema);
    }

    /**
     * One change of a key: {@code row} is its new row (null for a delete), {@code deletesOlder}
     * whether the change replaces a row the key may have had before (an upsert or a delete; not an
     * insert of a new key).
     */
    void fold(Record key, Record row, boolean deletesOlder) throws IOException {
      Held last = held.get(probe.set(keyWrapper.wrap(key)));
      if (last != null) {
        // The key's first change this checkpoint decides whether an older row is deleted.
        last.row = row;
        return;
      }
      if (!budget.take()) {
        DeltaTaskWriter.this.writeHeld();
        if (!budget.take()) {
          // Other tables of this subtask hold the whole budget: no folding for this change.
          apply(new Held(key, deletesOlder, row));
          return;
        }
      }
      StructLike stableKey = new InternalRecordWrapper(keySchema.asStruct()).wrap(key);
      held.put(probe.copyFor(stableKey), new Held(key, deletesOlder, row));
    }

    void writeHeld() throws IOException {
      int count = held.size();
      try {
        for (Held change : held.values()) {
          apply(change);
        }
      } finally {
        held.clear();
        budget.release(count);
      }
    }

    void dropHeld() {
      int count = held.size();
      held.clear();
      budget.release(count);
    }

    private void apply(Held change) throws IOException {
      if (change.deletesOlder) {
        deleteKey(change.key);
      }
      if (change.row != null) {
        write(change.row);
      }
    }

    @Override
    protected StructLike asStructLike(Record row) {
      return rowWrapper.wrap(row);
    }

    @Override
    protected StructLike asStructLikeKey(Record key) {
      return keyWrapper.wrap(key);
    }
  }
}

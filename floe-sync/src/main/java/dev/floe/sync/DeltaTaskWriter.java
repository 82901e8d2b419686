package dev.floe.sync;

import java.io.IOException;
import java.util.HashMap;
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

/**
 * Writes one checkpoint's changes to one table: data files, equality deletes keyed by the
 * identifier fields (key columns only), and position deletes for rows written and deleted within
 * the same checkpoint (an equality delete does not apply to rows of its own commit). A table
 * without identifier fields (plain JSON appended without a key) takes inserts only, as plain data
 * files.
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

  private DeltaTaskWriter(
      Table table,
      Schema schema,
      Schema keySchema,
      GenericAppenderFactory appenderFactory,
      OutputFileFactory fileFactory,
      FileFormat format,
      long targetFileSize) {
    super(table.spec(), format, appenderFactory, fileFactory, table.io(), targetFileSize);
    this.schema = schema;
    this.keySchema = keySchema;
    this.partitionKey = new PartitionKey(table.spec(), schema);
    this.partitionWrapper = new InternalRecordWrapper(schema.asStruct());
  }

  /** A writer of rows of the table's schema {@code schema} (the current one or an older one). */
  static DeltaTaskWriter create(Table table, Schema schema, int partitionId, long taskId) {
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
        table, schema, keySchema, appenderFactory, fileFactory, format, targetFileSize);
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
    writerFor(row).write(row);
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
    RowDeltaWriter writer = writerFor(row);
    writer.deleteKey(key(row));
    writer.write(row);
  }

  /** Deletes the row with this row's key. */
  void delete(Record row) throws IOException {
    writerFor(row).deleteKey(key(row));
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

  @Override
  public void close() throws IOException {
    for (RowDeltaWriter writer : writers.values()) {
      writer.close();
    }
    writers.clear();
    for (RollingFileWriter appender : appenders.values()) {
      appender.close();
    }
    appenders.clear();
  }

  private final class RowDeltaWriter extends BaseEqualityDeltaWriter {
    private final InternalRecordWrapper rowWrapper = new InternalRecordWrapper(schema.asStruct());
    private final InternalRecordWrapper keyWrapper =
        new InternalRecordWrapper(keySchema.asStruct());

    RowDeltaWriter(StructLike partition) {
      super(partition, schema, keySchema);
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

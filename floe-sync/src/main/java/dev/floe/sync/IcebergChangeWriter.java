package dev.floe.sync;

import static java.util.Objects.requireNonNull;

import java.io.Closeable;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;

/**
 * Writes change records (keyed by table and primary key) into Iceberg files. At each checkpoint
 * barrier it closes its files and sends the committer one {@link TableCommittable} per table it
 * wrote, plus its binlog progress; nothing becomes visible until the committer commits.
 */
final class IcebergChangeWriter extends AbstractStreamOperator<TableCommittable>
    implements OneInputStreamOperator<ChangeRecord, TableCommittable> {

  private static final long serialVersionUID = 1L;

  private final CatalogLoader catalogLoader;

  /** Source table to Iceberg table name; TableIdentifier is not serializable. */
  private final Map<String, String> targets;

  private transient Catalog catalog;
  private transient Map<String, Table> tables;
  private transient Map<String, DeltaTaskWriter> writers;
  private transient BinlogPosition position;
  private transient long sourceMillis;

  /**
   * @param catalogLoader opens the catalog in the task
   * @param targets the Iceberg table of each source table ({@code database.table})
   */
  IcebergChangeWriter(CatalogLoader catalogLoader, Map<String, TableIdentifier> targets) {
    this.catalogLoader = requireNonNull(catalogLoader, "catalogLoader is null");
    this.targets = new java.util.HashMap<>();
    requireNonNull(targets, "targets is null")
        .forEach((source, target) -> this.targets.put(source, target.toString()));
  }

  @Override
  public void open() throws Exception {
    super.open();
    catalog = catalogLoader.open();
    tables = new HashMap<>();
    writers = new HashMap<>();
    position = BinlogPosition.NONE;
  }

  @Override
  public void processElement(StreamRecord<ChangeRecord> element) throws Exception {
    ChangeRecord change = element.getValue();
    DeltaTaskWriter writer = writers.computeIfAbsent(change.table(), this::newWriter);
    Record row = toRecord(writer, change.values());
    switch (change.operation()) {
      case INSERT -> writer.write(row);
      case UPSERT -> writer.upsert(row);
      case DELETE -> writer.delete(row);
    }
    if (!change.binlogFile().isEmpty()) {
      position = position.max(new BinlogPosition(change.binlogFile(), change.binlogPosition()));
      sourceMillis = Math.max(sourceMillis, change.sourceMillis());
    }
  }

  @Override
  public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
    super.prepareSnapshotPreBarrier(checkpointId);
    for (Map.Entry<String, DeltaTaskWriter> entry : writers.entrySet()) {
      output.collect(
          new StreamRecord<>(
              TableCommittable.files(
                  checkpointId,
                  entry.getKey(),
                  entry.getValue().complete(),
                  position,
                  sourceMillis)));
    }
    writers.clear();
    output.collect(
        new StreamRecord<>(TableCommittable.progress(checkpointId, position, sourceMillis)));
  }

  @Override
  public void close() throws Exception {
    try {
      for (DeltaTaskWriter writer : writers.values()) {
        writer
            .abort(); // uncommitted files of an unfinished checkpoint; orphan cleanup also covers a
        // crash
      }
      writers.clear();
      if (catalog instanceof Closeable closeable) {
        closeable.close();
      }
    } finally {
      super.close();
    }
  }

  private DeltaTaskWriter newWriter(String sourceTable) {
    Table table =
        tables.computeIfAbsent(
            sourceTable,
            name -> {
              String identifier = targets.get(name);
              if (identifier == null) {
                throw new IllegalStateException("no Iceberg table for source table " + name);
              }
              return catalog.loadTable(TableIdentifier.parse(identifier));
            });
    // Loaded once per task: the sync never changes a table's schema, spec or location, so the
    // writer needs no catalog round trip per checkpoint.
    return DeltaTaskWriter.create(
        table, getRuntimeContext().getTaskInfo().getIndexOfThisSubtask(), System.nanoTime());
  }

  private static Record toRecord(DeltaTaskWriter writer, Object[] values) throws IOException {
    List<Types.NestedField> columns = writer.schema().columns();
    if (columns.size() != values.length) {
      throw new IOException(
          "a row has " + values.length + " values for " + columns.size() + " columns");
    }
    GenericRecord record = GenericRecord.create(writer.schema());
    for (int i = 0; i < values.length; i++) {
      record.set(i, values[i]);
    }
    return record;
  }
}

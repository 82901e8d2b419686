package dev.floe.sync;

import static java.util.Objects.requireNonNull;

import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.types.Types;

/**
 * Writes change records (keyed by table and primary key) into Iceberg files. At each checkpoint
 * barrier it closes its files and sends the committer one {@link TableCommittable} per table and
 * schema version it wrote, plus its source progress (binlog position, or next offset per Kafka
 * partition, over everything it has received); nothing becomes visible until the committer commits.
 *
 * <p>A record of a newer schema version (the binlog reader applied a DDL to the table) closes the
 * table's open files: rows after a schema change are written with the new schema, into files the
 * committer commits after those of the old one.
 */
final class IcebergChangeWriter extends AbstractStreamOperator<TableCommittable>
    implements OneInputStreamOperator<ChangeRecord, TableCommittable> {

  private static final long serialVersionUID = 1L;

  private final CatalogLoader catalogLoader;

  private transient Catalog catalog;
  private transient Map<String, Table> tables;
  private transient Map<String, Segment> writers;
  private transient List<TableCommittable.Pending> closed;

  /** The newest position received per source stream (the binlog; each Kafka partition). */
  private transient Map<Object, SourcePosition> positions;

  private transient long sourceMillis;

  /** The keys all writers of this subtask hold back until the checkpoint, together. */
  private transient FoldBudget foldBudget;

  /**
   * @param catalogLoader opens the catalog in the task
   */
  IcebergChangeWriter(CatalogLoader catalogLoader) {
    this.catalogLoader = requireNonNull(catalogLoader, "catalogLoader is null");
  }

  /** The open files of one table, written with one schema version. */
  private record Segment(int schemaVersion, DeltaTaskWriter writer) {}

  @Override
  public void open() throws Exception {
    super.open();
    catalog = catalogLoader.open();
    tables = new HashMap<>();
    writers = new HashMap<>();
    closed = new ArrayList<>();
    positions = new HashMap<>();
    foldBudget = new FoldBudget(FoldBudget.DEFAULT_KEYS);
  }

  @Override
  public void processElement(StreamRecord<ChangeRecord> element) throws Exception {
    ChangeRecord change = element.getValue();
    Segment segment = writers.get(change.table());
    if (segment == null || segment.schemaVersion() != change.schemaVersion()) {
      if (segment != null) {
        closed.add(
            new TableCommittable.Pending(
                change.table(),
                segment.schemaVersion(),
                tableUuid(change.table()),
                segment.writer().complete()));
      }
      segment = new Segment(change.schemaVersion(), newWriter(change.table(), change.schemaId()));
      writers.put(change.table(), segment);
    }
    SourcePosition at = change.position();
    if (!(at instanceof BinlogPosition binlog && binlog.isEmpty())) {
      positions.merge(at.stream(), at, IcebergChangeWriter::later);
      sourceMillis = Math.max(sourceMillis, change.sourceMillis());
    }
    if (change.operation() == ChangeRecord.Operation.TRUNCATE) {
      closed.add(
          new TableCommittable.Pending(
              change.table(), change.schemaVersion(), tableUuid(change.table()), null, true));
      return;
    }
    DeltaTaskWriter writer = segment.writer();
    Record row = toRecord(writer, change.values());
    switch (change.operation()) {
      case INSERT -> writer.write(row);
      case UPSERT -> writer.upsert(row);
      case DELETE -> writer.delete(row);
      default -> throw new IllegalStateException("unexpected " + change.operation());
    }
  }

  @Override
  public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
    super.prepareSnapshotPreBarrier(checkpointId);
    for (Map.Entry<String, Segment> entry : writers.entrySet()) {
      closed.add(
          new TableCommittable.Pending(
              entry.getKey(),
              entry.getValue().schemaVersion(),
              tableUuid(entry.getKey()),
              entry.getValue().writer().complete()));
    }
    writers.clear();
    SourceProgress position = SourceProgress.NONE;
    for (SourcePosition at : positions.values()) {
      position = position.merge(at.progress());
    }
    for (TableCommittable.Pending files : closed) {
      output.collect(
          new StreamRecord<>(
              TableCommittable.files(
                  checkpointId, files, tables.get(files.table()).specs(), position, sourceMillis)));
    }
    closed.clear();
    output.collect(
        new StreamRecord<>(TableCommittable.progress(checkpointId, position, sourceMillis)));
  }

  @Override
  public void close() throws Exception {
    try {
      // Uncommitted files of an unfinished checkpoint; orphan cleanup also covers a crash.
      for (Segment segment : writers.values()) {
        segment.writer().abort();
      }
      writers.clear();
      if (catalog instanceof Closeable closeable) {
        closeable.close();
      }
    } finally {
      super.close();
    }
  }

  /** The later of two positions of one stream. */
  private static SourcePosition later(SourcePosition one, SourcePosition other) {
    if (one instanceof BinlogPosition first && other instanceof BinlogPosition second) {
      return first.max(second);
    }
    return ((KafkaPosition) one).offset() >= ((KafkaPosition) other).offset() ? one : other;
  }

  private String tableUuid(String key) {
    return tables.get(key).uuid().toString();
  }

  private DeltaTaskWriter newWriter(String key, int schemaId) {
    Table table = tables.computeIfAbsent(key, this::load);
    // Loaded once per task and refreshed only for a schema this task has not seen: the sync never
    // changes a table's spec or location.
    if (!table.schemas().containsKey(schemaId)) {
      try {
        table.refresh();
      } catch (NoSuchTableException renamed) {
        table = load(key);
        tables.put(key, table);
      }
    }
    Schema schema = table.schemas().get(schemaId);
    if (schema == null) {
      throw new IllegalStateException(
          "Iceberg table " + table.name() + " has no schema " + schemaId);
    }
    return DeltaTaskWriter.create(
        table,
        schema,
        getRuntimeContext().getTaskInfo().getIndexOfThisSubtask(),
        System.nanoTime(),
        foldBudget);
  }

  /**
   * The table of a key; for rows the binlog reader sent before it renamed the table (a MySQL RENAME
   * TABLE), the table under its new name.
   */
  private Table load(String key) {
    try {
      return catalog.loadTable(SyncTargets.lakeTable(key));
    } catch (NoSuchTableException missing) {
      return RenamedTables.formerlyCalled(catalog, key, java.util.Optional.empty())
          .map(catalog::loadTable)
          .orElseThrow(() -> missing);
    }
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

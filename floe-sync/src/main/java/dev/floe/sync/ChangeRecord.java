package dev.floe.sync;

import static java.util.Objects.requireNonNull;

import java.util.Arrays;

/**
 * One row operation on one table, as the CDC source hands it to the Iceberg writer. Values are
 * already in Iceberg's generic Java representation (see {@link ValueConverter}).
 *
 * <p>Updates arrive as a {@link Operation#DELETE} of the old row followed by an insert of the new
 * one, so that each part is routed by its own primary key.
 */
public final class ChangeRecord {

  /** What the writer does with the row. */
  public enum Operation {
    /** Write the row; its key is new to the table (snapshot rows, binlog inserts). */
    INSERT,
    /**
     * Delete whatever row has this key, then write the row: binlog inserts that may replay a row
     * the snapshot already read.
     */
    UPSERT,
    /** Delete the row with this row's key. */
    DELETE,
    /**
     * TRUNCATE TABLE: the table is emptied before the rows of this record's schema version (no
     * values; routed by the table alone).
     */
    TRUNCATE
  }

  private final String table;
  private final Operation operation;
  private final Object[] values;
  private final String key;
  private final int schemaId;
  private final int schemaVersion;
  private final SourcePosition position;
  private final long sourceMillis;

  /**
   * @param table the Iceberg table, {@code namespace.table} (see {@link SyncTargets#lakeTable})
   * @param operation what to do
   * @param values the row, one value per column of the Iceberg schema {@code schemaId}
   * @param key the table and identifier values as text: routes every change of a row to one writer
   * @param schemaId the Iceberg schema the values follow
   * @param schemaVersion how many schema changes the table had before this record: files of
   *     different versions are committed separately, in version order
   * @param position where the change was read: its binlog event ({@link BinlogPosition#NONE} for
   *     snapshot rows) or Kafka message
   * @param sourceMillis the change's source commit time, 0 for snapshot rows
   */
  public ChangeRecord(
      String table,
      Operation operation,
      Object[] values,
      String key,
      int schemaId,
      int schemaVersion,
      SourcePosition position,
      long sourceMillis) {
    this.table = requireNonNull(table, "table is null");
    this.operation = requireNonNull(operation, "operation is null");
    this.values = requireNonNull(values, "values is null");
    this.key = requireNonNull(key, "key is null");
    this.schemaId = schemaId;
    this.schemaVersion = schemaVersion;
    this.position = requireNonNull(position, "position is null");
    this.sourceMillis = sourceMillis;
  }

  public String table() {
    return table;
  }

  public Operation operation() {
    return operation;
  }

  /** The row's values; not copied, do not modify. */
  public Object[] values() {
    return values;
  }

  public String key() {
    return key;
  }

  public int schemaId() {
    return schemaId;
  }

  public int schemaVersion() {
    return schemaVersion;
  }

  /** Where the change was read; {@link BinlogPosition#NONE} for snapshot rows. */
  SourcePosition position() {
    return position;
  }

  public long sourceMillis() {
    return sourceMillis;
  }

  @Override
  public String toString() {
    return operation + " " + table + " " + Arrays.toString(values);
  }
}

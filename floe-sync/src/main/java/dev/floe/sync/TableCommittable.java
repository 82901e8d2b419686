package dev.floe.sync;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.io.WriteResult;

/**
 * What a writer subtask hands the committer for one checkpoint: the files it wrote for one table
 * and schema version (none for a progress-only message) and how far in the binlog it had read.
 * Immutable; sent between operators by {@link TableCommittableSerializer}, its files in their
 * portable form ({@link PendingFiles}).
 */
final class TableCommittable {

  private final long checkpointId;
  private final String table;
  private final int schemaVersion;
  private final String tableUuid;
  private final boolean truncate;
  private final PendingFiles files;
  private final String binlogFile;
  private final long binlogPosition;
  private final long sourceMillis;

  private TableCommittable(
      long checkpointId,
      String table,
      int schemaVersion,
      String tableUuid,
      boolean truncate,
      PendingFiles files,
      String binlogFile,
      long binlogPosition,
      long sourceMillis) {
    this.checkpointId = checkpointId;
    this.table = requireNonNull(table, "table is null");
    this.schemaVersion = schemaVersion;
    this.tableUuid = requireNonNull(tableUuid, "tableUuid is null");
    this.truncate = truncate;
    this.files = requireNonNull(files, "files is null");
    this.binlogFile = requireNonNull(binlogFile, "binlogFile is null");
    this.binlogPosition = binlogPosition;
    this.sourceMillis = sourceMillis;
  }

  /**
   * Files of one table and schema version, closed but not yet handed on; or, with {@code truncate}
   * and no result, a TRUNCATE TABLE that empties the table before the files of that version.
   */
  record Pending(
      String table, int schemaVersion, String tableUuid, WriteResult result, boolean truncate) {
    Pending(String table, int schemaVersion, String tableUuid, WriteResult result) {
      this(table, schemaVersion, tableUuid, result, false);
    }
  }

  static final PendingFiles NO_FILES = new PendingFiles(List.of(), List.of(), List.of());

  /**
   * @param specs the partition specs of the table the files were written for, by id
   */
  static TableCommittable files(
      long checkpointId,
      Pending files,
      Map<Integer, PartitionSpec> specs,
      BinlogPosition position,
      long sourceMillis) {
    return new TableCommittable(
        checkpointId,
        files.table(),
        files.schemaVersion(),
        files.tableUuid(),
        files.truncate(),
        files.truncate() ? NO_FILES : PendingFiles.of(files.result(), specs),
        position.file(),
        position.position(),
        sourceMillis);
  }

  static TableCommittable progress(long checkpointId, BinlogPosition position, long sourceMillis) {
    return new TableCommittable(
        checkpointId,
        "",
        0,
        "",
        false,
        NO_FILES,
        position.file(),
        position.position(),
        sourceMillis);
  }

  long checkpointId() {
    return checkpointId;
  }

  /** Whether this empties the table (a TRUNCATE TABLE) before the files of its version. */
  boolean truncate() {
    return truncate;
  }

  /** The Iceberg table ({@code namespace.table}), empty for progress-only messages. */
  Optional<String> table() {
    return table.isEmpty() ? Optional.empty() : Optional.of(table);
  }

  /** The table's schema version the files were written with. */
  int schemaVersion() {
    return schemaVersion;
  }

  /** The UUID of the Iceberg table the files were written for. */
  String tableUuid() {
    return tableUuid;
  }

  /** The files, in their portable form; none for a TRUNCATE or a progress-only message. */
  PendingFiles files() {
    return files;
  }

  BinlogPosition binlogPosition() {
    return new BinlogPosition(binlogFile, binlogPosition);
  }

  long sourceMillis() {
    return sourceMillis;
  }

  /** Every field, in the order {@link TableCommittableSerializer} writes them. */
  static TableCommittable of(
      long checkpointId,
      String table,
      int schemaVersion,
      String tableUuid,
      boolean truncate,
      PendingFiles files,
      BinlogPosition position,
      long sourceMillis) {
    return new TableCommittable(
        checkpointId,
        table,
        schemaVersion,
        tableUuid,
        truncate,
        files,
        position.file(),
        position.position(),
        sourceMillis);
  }

  /** The table's name as kept: empty for progress-only messages. */
  String tableName() {
    return table;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof TableCommittable that
        && checkpointId == that.checkpointId
        && table.equals(that.table)
        && schemaVersion == that.schemaVersion
        && tableUuid.equals(that.tableUuid)
        && truncate == that.truncate
        && files.equals(that.files)
        && binlogFile.equals(that.binlogFile)
        && binlogPosition == that.binlogPosition
        && sourceMillis == that.sourceMillis;
  }

  @Override
  public int hashCode() {
    return Objects.hash(checkpointId, table, schemaVersion, tableUuid, files, binlogPosition);
  }

  @Override
  public String toString() {
    return "TableCommittable{checkpoint="
        + checkpointId
        + ", table="
        + table
        + ", schemaVersion="
        + schemaVersion
        + ", truncate="
        + truncate
        + ", files="
        + files
        + ", binlog="
        + binlogFile
        + ":"
        + binlogPosition
        + "}";
  }
}

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
 * and schema version (none for a progress-only message) and how far in its source (binlog, Kafka
 * partitions) it had read. Immutable; sent between operators by {@link TableCommittableSerializer},
 * its files in their portable form ({@link PendingFiles}).
 */
final class TableCommittable {

  private final long checkpointId;
  private final String table;
  private final int schemaVersion;
  private final String tableUuid;
  private final boolean truncate;
  private final PendingFiles files;
  private final SourceProgress progress;
  private final long sourceMillis;

  private TableCommittable(
      long checkpointId,
      String table,
      int schemaVersion,
      String tableUuid,
      boolean truncate,
      PendingFiles files,
      SourceProgress progress,
      long sourceMillis) {
    this.checkpointId = checkpointId;
    this.table = requireNonNull(table, "table is null");
    this.schemaVersion = schemaVersion;
    this.tableUuid = requireNonNull(tableUuid, "tableUuid is null");
    this.truncate = truncate;
    this.files = requireNonNull(files, "files is null");
    this.progress = requireNonNull(progress, "progress is null");
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
      SourceProgress progress,
      long sourceMillis) {
    return new TableCommittable(
        checkpointId,
        files.table(),
        files.schemaVersion(),
        files.tableUuid(),
        files.truncate(),
        files.truncate() ? NO_FILES : PendingFiles.of(files.result(), specs),
        progress,
        sourceMillis);
  }

  static TableCommittable progress(long checkpointId, SourceProgress progress, long sourceMillis) {
    return new TableCommittable(checkpointId, "", 0, "", false, NO_FILES, progress, sourceMillis);
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

  /** How far the writer had read its source when it handed this on. */
  SourceProgress progress() {
    return progress;
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
      SourceProgress progress,
      long sourceMillis) {
    return new TableCommittable(
        checkpointId, table, schemaVersion, tableUuid, truncate, files, progress, sourceMillis);
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
        && progress.equals(that.progress)
        && sourceMillis == that.sourceMillis;
  }

  @Override
  public int hashCode() {
    return Objects.hash(checkpointId, table, schemaVersion, tableUuid, files, progress);
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
        + ", progress="
        + progress
        + "}";
  }
}

package dev.floe.sync;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Where a sync stands at one moment: per table its phase, rows and lag, and the sync's lag (what
 * {@code floe sync} prints and reports to the keeper).
 *
 * @param at when it was read
 * @param lagMillis how far the lake is behind MySQL for the tables in their binlog phase (they read
 *     one binlog, so they share it); empty while no table is in its binlog phase or before it is
 *     known
 * @param tables one entry per Iceberg table (a route's tables share one), by source name
 */
public record SyncStatus(Instant at, OptionalLong lagMillis, List<Table> tables) {

  public SyncStatus {
    requireNonNull(at, "at is null");
    requireNonNull(lagMillis, "lagMillis is null");
    tables = List.copyOf(requireNonNull(tables, "tables is null"));
  }

  /** A table's phase: its initial copy, or the binlog after it. */
  public enum Phase {
    SNAPSHOT,
    BINLOG;

    /** The name reports use: {@code snapshot} or {@code binlog}. */
    public String label() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /**
   * One Iceberg table of the sync.
   *
   * @param sourceTable {@code database.table}, or {@code NAMESPACE.TABLE (route)} for a route's
   *     tables
   * @param table the Iceberg table
   * @param phase copying or reading the binlog
   * @param rows rows in the table now
   * @param estimatedRows MySQL's estimate of the source's rows (while copying)
   * @param lagMillis the sync's lag once the table is in its binlog phase
   * @param changed whether a binlog change has been committed to the table yet
   * @param stopped why the sync stopped taking this table (dropped in MySQL, ...), if it did
   */
  public record Table(
      String sourceTable,
      TableIdentifier table,
      Phase phase,
      long rows,
      long estimatedRows,
      OptionalLong lagMillis,
      boolean changed,
      Optional<String> stopped) {

    public Table {
      requireNonNull(sourceTable, "sourceTable is null");
      requireNonNull(table, "table is null");
      requireNonNull(phase, "phase is null");
      requireNonNull(lagMillis, "lagMillis is null");
      requireNonNull(stopped, "stopped is null");
    }
  }
}

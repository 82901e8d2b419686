package dev.floe.server.syncs;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * What a sync job ({@code floe sync --keeper URL}) last told the keeper.
 *
 * @param name the sync's name (its {@code --name})
 * @param source the MySQL source, {@code mysql://USER@HOST:PORT} (never a password)
 * @param state {@code running}, {@code stopped} or {@code failed}
 * @param startedAt when the sync started
 * @param lagMs how far the lake is behind MySQL; empty while no table is in its binlog phase
 * @param error why it failed, if it did
 * @param tables each Iceberg table of the sync
 * @param reportedAt when the keeper received the report
 */
public record SyncReport(
    String name,
    String source,
    String state,
    Optional<Instant> startedAt,
    Optional<Long> lagMs,
    Optional<String> error,
    List<Table> tables,
    Instant reportedAt) {

  /** The states a sync reports. */
  public static final List<String> STATES = List.of("running", "stopped", "failed");

  /** The phases a table reports. */
  public static final List<String> PHASES = List.of("snapshot", "binlog");

  public SyncReport {
    requireNonNull(name, "name is null");
    requireNonNull(source, "source is null");
    requireNonNull(state, "state is null");
    requireNonNull(startedAt, "startedAt is null");
    requireNonNull(lagMs, "lagMs is null");
    requireNonNull(error, "error is null");
    tables = List.copyOf(requireNonNull(tables, "tables is null"));
    requireNonNull(reportedAt, "reportedAt is null");
  }

  /**
   * One table of a sync.
   *
   * @param sourceTable {@code database.table} (a route's tables: {@code NS.TABLE (route)})
   * @param table the Iceberg table, {@code namespace.table}
   * @param phase {@code snapshot} or {@code binlog}
   * @param rows rows in the Iceberg table
   * @param lagMs the table's lag in its binlog phase
   * @param stopped why the sync stopped taking the table (dropped in MySQL, ...), if it did
   */
  public record Table(
      String sourceTable,
      String table,
      String phase,
      long rows,
      Optional<Long> lagMs,
      Optional<String> stopped) {

    public Table {
      requireNonNull(sourceTable, "sourceTable is null");
      requireNonNull(table, "table is null");
      requireNonNull(phase, "phase is null");
      requireNonNull(lagMs, "lagMs is null");
      requireNonNull(stopped, "stopped is null");
    }
  }
}

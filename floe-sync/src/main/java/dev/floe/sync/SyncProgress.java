package dev.floe.sync;

import static java.util.Objects.requireNonNull;

import dev.floe.core.source.MySqlSourceAddress;
import dev.floe.core.sync.SyncProperties;
import dev.floe.mysql.MySqlConnections;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.catalog.TableIdentifier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where each synced table stands: rows committed (against MySQL's estimate while the snapshot runs)
 * and the lag: how far the lake is behind MySQL. {@link ProgressPrinter} prints it, {@link
 * KeeperReporter} sends it to the keeper.
 *
 * <p>The lag comes from binlog positions ({@link BinlogLag}): the position in the sync's newest
 * checkpoint (which binlog heartbeats move on while nothing changes) against the server's heads
 * read at each report. A sync that has read everything the server wrote has a lag of about zero
 * however long the source has been idle; one that is behind lags by now minus the newest time up to
 * which it is known complete. Every table in its binlog phase shares that lag: they read one
 * binlog, and a checkpoint commits all of them up to the same position.
 *
 * <p>Thread-safe: {@link #status()} may be called from several threads (the printed progress and
 * the keeper reporter share one instance).
 */
public final class SyncProgress {

  private static final Logger LOG = LoggerFactory.getLogger(SyncProgress.class);

  private final dev.floe.iceberg.FloeCatalog catalog;
  private final Map<String, TableIdentifier> tables;
  private final Map<String, Long> estimates;
  private final MySqlConnections connections;
  private final MySqlSourceAddress source;
  private final Optional<StateDirectory> stateDirectory;
  private final Clock clock;
  private final BinlogLag lag = new BinlogLag();
  private boolean headUnreadableLogged;

  /** Progress with the lag from the newest change only (no checkpoint to compare). */
  public SyncProgress(
      dev.floe.iceberg.FloeCatalog catalog,
      Map<String, TableIdentifier> tables,
      MySqlConnections connections,
      MySqlSourceAddress source) {
    this(catalog, tables, connections, source, Optional.empty(), Clock.systemUTC());
  }

  /**
   * Progress of a running sync, its lag from its checkpoints in {@code stateDirectory} and the
   * source's binlog head.
   */
  public SyncProgress(
      dev.floe.iceberg.FloeCatalog catalog,
      RunningSync sync,
      MySqlConnections connections,
      MySqlSourceAddress source,
      Clock clock) {
    this(catalog, sync.tables(), connections, source, Optional.of(sync.stateDirectory()), clock);
  }

  private SyncProgress(
      dev.floe.iceberg.FloeCatalog catalog,
      Map<String, TableIdentifier> tables,
      MySqlConnections connections,
      MySqlSourceAddress source,
      Optional<StateDirectory> stateDirectory,
      Clock clock) {
    this.catalog = requireNonNull(catalog, "catalog is null");
    requireNonNull(tables, "tables is null");
    this.connections = requireNonNull(connections, "connections is null");
    this.source = requireNonNull(source, "source is null");
    this.stateDirectory = requireNonNull(stateDirectory, "stateDirectory is null");
    this.clock = requireNonNull(clock, "clock is null");
    Map<String, Long> bySource = estimates(connections, source, tables);
    this.tables = new java.util.TreeMap<>();
    this.estimates = new HashMap<>();
    Map<TableIdentifier, java.util.List<String>> sources = new java.util.LinkedHashMap<>();
    tables.forEach(
        (table, identifier) ->
            sources.computeIfAbsent(identifier, target -> new java.util.ArrayList<>()).add(table));
    sources.forEach(
        (identifier, routed) -> {
          // a route's tables share one Iceberg table: one line for all of them
          String label = routed.size() == 1 ? routed.get(0) : identifier + " (route)";
          this.tables.put(label, identifier);
          this.estimates.put(
              label, routed.stream().mapToLong(table -> bySource.getOrDefault(table, 0L)).sum());
        });
  }

  /**
   * Reads where every table stands now: the Iceberg tables, the newest checkpoint and the source's
   * binlog head.
   *
   * @throws RuntimeException when the catalog cannot be read; a source or checkpoint that cannot be
   *     read only leaves the lag to the newest change
   */
  public synchronized SyncStatus status() {
    // A table renamed in MySQL is renamed in Iceberg too: it shows again under its new name.
    tables.values().removeIf(identifier -> !catalog.catalog().tableExists(identifier));
    discoverNewTables();
    List<SyncStatus.Table> read = new ArrayList<>();
    OptionalLong watermark = OptionalLong.empty();
    for (Map.Entry<String, TableIdentifier> entry : tables.entrySet()) {
      org.apache.iceberg.Table table = catalog.catalog().loadTable(entry.getValue());
      Snapshot snapshot = table.currentSnapshot();
      long rows =
          snapshot == null
              ? 0
              : Long.parseLong(snapshot.summary().getOrDefault("total-records", "0"))
                  - Long.parseLong(snapshot.summary().getOrDefault("total-equality-deletes", "0"));
      // The keeper's optimize and maintenance commits carry no sync marks: look past them.
      OptionalLong changeMillis = dev.floe.iceberg.sync.SyncHistory.sourceWatermarkMillis(table);
      if (changeMillis.isPresent()) {
        long millis = changeMillis.getAsLong();
        watermark =
            OptionalLong.of(
                watermark.isPresent() ? Math.max(watermark.getAsLong(), millis) : millis);
      }
      boolean copied = dev.floe.iceberg.sync.SyncHistory.copied(table);
      read.add(
          new SyncStatus.Table(
              entry.getKey(),
              entry.getValue(),
              copied ? SyncStatus.Phase.BINLOG : SyncStatus.Phase.SNAPSHOT,
              rows,
              estimates.getOrDefault(entry.getKey(), 0L),
              OptionalLong.empty(),
              changeMillis.isPresent(),
              Optional.ofNullable(table.properties().get(SyncProperties.STOPPED))));
    }
    boolean binlogPhase = read.stream().anyMatch(table -> table.phase() == SyncStatus.Phase.BINLOG);
    long headReadAt = clock.millis();
    Optional<BinlogPosition> head =
        binlogPhase && stateDirectory.isPresent() ? head() : Optional.empty();
    Optional<BinlogPosition> processed = head.isPresent() ? processed() : Optional.empty();
    this.lag.observe(processed, head, headReadAt, watermark);
    Instant now = clock.instant();
    OptionalLong lag = binlogPhase ? this.lag.lagMillis(now.toEpochMilli()) : OptionalLong.empty();
    List<SyncStatus.Table> tablesNow =
        read.stream()
            .map(
                table ->
                    table.phase() == SyncStatus.Phase.BINLOG
                        ? new SyncStatus.Table(
                            table.sourceTable(),
                            table.table(),
                            table.phase(),
                            table.rows(),
                            table.estimatedRows(),
                            lag,
                            table.changed(),
                            table.stopped())
                        : table)
            .toList();
    return new SyncStatus(now, lag, tablesNow);
  }

  /** The source's binlog head; empty (said once) when the source cannot be asked. */
  private Optional<BinlogPosition> head() {
    try (Connection connection = connections.open(source)) {
      headUnreadableLogged = false;
      return Optional.of(SourceBinlog.head(connection));
    } catch (SQLException | RuntimeException e) {
      if (!headUnreadableLogged) {
        LOG.warn(
            "cannot read the binlog head of {} (the lag shown is from the newest change): {}",
            source.hostAndPort(),
            e.getMessage());
        headUnreadableLogged = true;
      }
      return Optional.empty();
    }
  }

  /** The binlog position of the sync's newest checkpoint, if one can be read. */
  private Optional<BinlogPosition> processed() {
    try {
      Optional<org.apache.flink.core.fs.Path> restorePoint =
          stateDirectory.get().latestRestorePoint();
      return restorePoint.isEmpty()
          ? Optional.empty()
          : CheckpointedBinlogPosition.read(restorePoint.get());
    } catch (IOException | RuntimeException e) {
      // Flink removes older checkpoints while this reads: the next report reads the newer one
      LOG.debug("cannot read the newest checkpoint of {}: {}", stateDirectory.get(), e.toString());
      return Optional.empty();
    }
  }

  /** Tables the sync created while it runs (CREATE TABLE in MySQL), in the same namespaces. */
  private void discoverNewTables() {
    java.util.Set<org.apache.iceberg.catalog.Namespace> namespaces = new java.util.HashSet<>();
    tables.values().forEach(identifier -> namespaces.add(identifier.namespace()));
    java.util.Set<TableIdentifier> known = new java.util.HashSet<>(tables.values());
    for (org.apache.iceberg.catalog.Namespace namespace : namespaces) {
      for (TableIdentifier identifier : catalog.catalog().listTables(namespace)) {
        if (!known.contains(identifier)) {
          String source =
              catalog.catalog().loadTable(identifier).properties().get(SyncProperties.SOURCE_TABLE);
          if (source != null && !tables.containsKey(source)) {
            tables.put(source, identifier);
          }
        }
      }
    }
  }

  private static Map<String, Long> estimates(
      MySqlConnections connections,
      MySqlSourceAddress source,
      Map<String, TableIdentifier> tables) {
    Map<String, Long> estimates = new HashMap<>();
    try (Connection connection = connections.open(source);
        PreparedStatement statement =
            connection.prepareStatement(
                "SELECT TABLE_ROWS FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?")) {
      for (String table : tables.keySet()) {
        int dot = table.indexOf('.');
        statement.setString(1, table.substring(0, dot));
        statement.setString(2, table.substring(dot + 1));
        try (ResultSet row = statement.executeQuery()) {
          if (row.next()) {
            estimates.put(table, row.getLong(1));
          }
        }
      }
    } catch (SQLException | RuntimeException e) {
      LOG.warn("cannot read row estimates: {}", e.getMessage());
    }
    return estimates;
  }
}

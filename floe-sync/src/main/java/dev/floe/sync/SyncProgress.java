package dev.floe.sync;

import static java.util.Objects.requireNonNull;

import dev.floe.core.source.MySqlSourceAddress;
import dev.floe.core.sync.SyncProperties;
import dev.floe.core.sync.SyncSummary;
import dev.floe.mysql.MySqlConnections;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.catalog.TableIdentifier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Prints where each synced table stands: rows committed (against MySQL's estimate while the
 * snapshot runs), rows per second since the last report, and the lag from the MySQL commit time the
 * table is complete up to.
 */
public final class SyncProgress {

  private static final Logger LOG = LoggerFactory.getLogger(SyncProgress.class);

  private final dev.floe.iceberg.FloeCatalog catalog;
  private final Map<String, TableIdentifier> tables;
  private final Map<String, Long> estimates;
  private final Map<String, Long> lastRows = new HashMap<>();
  private long lastReport = System.nanoTime();

  public SyncProgress(
      dev.floe.iceberg.FloeCatalog catalog,
      Map<String, TableIdentifier> tables,
      MySqlConnections connections,
      MySqlSourceAddress source) {
    this.catalog = requireNonNull(catalog, "catalog is null");
    requireNonNull(tables, "tables is null");
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

  /** Prints one line per table. Never throws: progress must not stop the sync. */
  public synchronized void report(PrintWriter out) {
    try {
      long now = System.nanoTime();
      double seconds = Math.max(0.001, (now - lastReport) / 1e9);
      lastReport = now;
      discoverNewTables();
      for (Map.Entry<String, TableIdentifier> entry : tables.entrySet()) {
        org.apache.iceberg.Table table = catalog.catalog().loadTable(entry.getValue());
        if (table.properties().containsKey(SyncProperties.STOPPED)) {
          out.printf(
              Locale.ROOT,
              "  %-40s stopped: %s%n",
              entry.getKey(),
              table.properties().get(SyncProperties.STOPPED));
          continue;
        }
        Snapshot snapshot = table.currentSnapshot();
        long rows =
            snapshot == null
                ? 0
                : Long.parseLong(snapshot.summary().getOrDefault("total-records", "0"))
                    - Long.parseLong(
                        snapshot.summary().getOrDefault("total-equality-deletes", "0"));
        long previous = lastRows.getOrDefault(entry.getKey(), 0L);
        lastRows.put(entry.getKey(), rows);
        String watermark =
            snapshot == null ? null : snapshot.summary().get(SyncSummary.SOURCE_WATERMARK_MS);
        // a route's tables record their copy under SNAPSHOT_COMPLETE.<database.table>
        boolean copied =
            snapshot != null
                && snapshot.summary().entrySet().stream()
                    .anyMatch(
                        summary ->
                            summary.getKey().startsWith(SyncSummary.SNAPSHOT_COMPLETE)
                                && "true".equals(summary.getValue()));
        String phase =
            watermark == null
                ? copied
                    ? String.format(Locale.ROOT, "copied %d rows, binlog: no change yet", rows)
                    : String.format(
                        Locale.ROOT,
                        "snapshot %d / ~%d rows",
                        rows,
                        estimates.getOrDefault(entry.getKey(), 0L))
                : String.format(
                    Locale.ROOT,
                    "binlog, lag %.1f s",
                    (System.currentTimeMillis() - Long.parseLong(watermark)) / 1000.0);
        out.printf(
            Locale.ROOT,
            "  %-40s %-34s %8.0f rows/s%n",
            entry.getKey(),
            phase,
            Math.max(0, rows - previous) / seconds);
      }
      out.flush();
    } catch (RuntimeException e) {
      LOG.warn("cannot report progress: {}", e.getMessage());
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

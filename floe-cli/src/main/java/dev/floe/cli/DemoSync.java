package dev.floe.cli;

import dev.floe.core.config.FloeSettings;
import dev.floe.core.config.SyncSettings;
import dev.floe.core.source.MySqlSourceAddress;
import dev.floe.core.sync.TableSelection;
import dev.floe.iceberg.FloeCatalog;
import dev.floe.mysql.MySqlConnections;
import dev.floe.sync.RunningSync;
import dev.floe.sync.SyncOptions;
import dev.floe.sync.SyncRunner;
import dev.floe.testing.MariaDbServer;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;

/** The demo's sync part: shop into the lake under live traffic, until the lake has caught up. */
final class DemoSync {

  private static final List<String> TABLES =
      List.of("customers", "products", "orders", "order_items");
  private static final Duration TRAFFIC = Duration.ofSeconds(15);

  /**
   * Traffic also goes on this long after every table has its first rows in the lake, so the sync
   * streams some changes (small files and deletes for the demo's optimize step) even when the
   * initial snapshot takes longer than {@link #TRAFFIC}.
   */
  private static final Duration STREAMED_TRAFFIC = Duration.ofSeconds(6);

  private static final Duration DEADLINE = Duration.ofMinutes(5);

  /** The demo's own namespace: reset on every run, so it never touches a user's tables. */
  static final String NAMESPACE = "demo_shop";

  private DemoSync() {}

  static void run(
      MariaDbServer server,
      MySqlSourceAddress source,
      FloeCatalog catalog,
      FloeSettings settings,
      PrintWriter out)
      throws Exception {
    SyncOptions options =
        new SyncOptions(
            "demo",
            source.withoutDatabase(),
            TableSelection.of(List.of("shop\\..*"), List.of(), Optional.of(NAMESPACE)),
            Duration.ofSeconds(2),
            2,
            settings.dataDirectory().resolve("sync").resolve("demo"),
            Optional.empty(),
            SyncSettings.DEFAULT_CHUNK_ROWS);
    reset(catalog, options);
    DemoTraffic traffic = new DemoTraffic(server);
    Thread trafficThread = new Thread(traffic, "floe-demo-traffic");
    trafficThread.setDaemon(true);
    long started = System.nanoTime();
    try (RunningSync sync =
        new SyncRunner(catalog, new MySqlConnections(Duration.ofSeconds(10))).start(options)) {
      trafficThread.start();
      long trafficEnds = started + TRAFFIC.toNanos();
      long deadline = started + DEADLINE.toNanos();
      long streamingTrafficEnds = Long.MAX_VALUE;
      while (System.nanoTime() < deadline) {
        Thread.sleep(2000); // the demo prints a status line every two seconds
        if (System.nanoTime() > trafficEnds
            && System.nanoTime() > streamingTrafficEnds
            && trafficThread.isAlive()) {
          traffic.stop();
          trafficThread.join();
          out.printf(
              Locale.ROOT,
              "    traffic stopped after %d changes; waiting for the lake to catch up%n",
              traffic.changes());
        }
        Map<String, long[]> counts = counts(server, catalog);
        if (streamingTrafficEnds == Long.MAX_VALUE
            && counts.values().stream().allMatch(count -> count[1] > 0)) {
          streamingTrafficEnds = System.nanoTime() + STREAMED_TRAFFIC.toNanos();
        }
        StringBuilder line =
            new StringBuilder(
                String.format(Locale.ROOT, "    %5.1f s ", (System.nanoTime() - started) / 1e9));
        boolean equal = true;
        for (Map.Entry<String, long[]> entry : counts.entrySet()) {
          line.append(
              String.format(
                  Locale.ROOT,
                  " %s %d/%d",
                  entry.getKey(),
                  entry.getValue()[1],
                  entry.getValue()[0]));
          equal &= entry.getValue()[0] == entry.getValue()[1];
        }
        out.println(line.append("   (lake/MySQL rows)"));
        out.flush();
        if (equal && !trafficThread.isAlive()) {
          out.printf(
              Locale.ROOT,
              "    caught up: every table has MySQL's row count, %.1f s after the sync started%n",
              (System.nanoTime() - started) / 1e9);
          return;
        }
      }
      out.println("    the lake did not catch up within " + DEADLINE.toMinutes() + " minutes");
    } finally {
      traffic.stop();
    }
  }

  /** A demo run starts from nothing: the previous run's tables and sync state are removed. */
  private static void reset(FloeCatalog catalog, SyncOptions options) throws java.io.IOException {
    for (String table : TABLES) {
      catalog.catalog().dropTable(TableIdentifier.of(NAMESPACE, table), true);
    }
    if (java.nio.file.Files.exists(options.stateDirectory())) {
      try (java.util.stream.Stream<java.nio.file.Path> files =
          java.nio.file.Files.walk(options.stateDirectory())) {
        files.sorted(java.util.Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
      }
    }
  }

  /** table -> {MySQL rows, Iceberg rows}. */
  private static Map<String, long[]> counts(MariaDbServer server, FloeCatalog catalog)
      throws SQLException {
    Map<String, long[]> counts = new TreeMap<>();
    try (Connection connection = server.rootConnection();
        Statement statement = connection.createStatement()) {
      for (String table : TABLES) {
        try (ResultSet row = statement.executeQuery("SELECT COUNT(*) FROM shop." + table)) {
          row.next();
          counts.put(table, new long[] {row.getLong(1), lakeRows(catalog, table)});
        }
      }
    }
    return counts;
  }

  static long lakeRows(FloeCatalog catalog, String table) {
    TableIdentifier identifier = TableIdentifier.of(NAMESPACE, table);
    if (!catalog.catalog().tableExists(identifier)) {
      return 0;
    }
    long rows = 0;
    try (CloseableIterable<Record> records =
        IcebergGenerics.read(catalog.catalog().loadTable(identifier)).build()) {
      for (Record ignored : records) {
        rows++;
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return rows;
  }
}

package dev.floe.cli;

import dev.floe.core.Secret;
import dev.floe.core.config.FloeSettings;
import dev.floe.core.config.SyncSettings;
import dev.floe.core.source.MySqlSourceAddress;
import dev.floe.core.sync.TableSelection;
import dev.floe.iceberg.FloeCatalog;
import dev.floe.mysql.MySqlConnections;
import dev.floe.sync.KeeperReporter;
import dev.floe.sync.RunningSync;
import dev.floe.sync.SyncOptions;
import dev.floe.sync.SyncProgress;
import dev.floe.sync.SyncRunner;
import dev.floe.testing.MariaDbServer;
import java.io.PrintWriter;
import java.net.URI;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
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

/**
 * The demo's sync part: shop into the lake under live traffic, reporting to the keeper as {@code
 * floe sync --keeper URL} does, until the lake has caught up; with {@code --keep-running} it goes
 * on, traffic included, until {@link #close}.
 */
final class DemoSync implements AutoCloseable {

  static final List<String> TABLES = List.of("customers", "products", "orders", "order_items");
  private static final Duration TRAFFIC = Duration.ofSeconds(15);

  /**
   * Traffic also goes on this long after every table has its first rows in the lake, so the sync
   * streams some changes (small files and deletes for the keeper to optimize) even when the initial
   * snapshot takes longer than {@link #TRAFFIC}.
   */
  private static final Duration STREAMED_TRAFFIC = Duration.ofSeconds(6);

  private static final Duration DEADLINE = Duration.ofMinutes(5);

  /** The demo's own namespace: reset on every run, so it never touches a user's tables. */
  static final String NAMESPACE = "demo_shop";

  /** The sync's name, as the keeper shows it. */
  static final String NAME = "demo";

  private final MariaDbServer server;
  private final FloeCatalog catalog;
  private final RunningSync sync;
  private final KeeperReporter reporter;
  private final DemoTraffic traffic;
  private final long started = System.nanoTime();

  private DemoSync(
      MariaDbServer server,
      FloeCatalog catalog,
      RunningSync sync,
      KeeperReporter reporter,
      DemoTraffic traffic) {
    this.server = server;
    this.catalog = catalog;
    this.sync = sync;
    this.reporter = reporter;
    this.traffic = traffic;
  }

  /**
   * A demo run starts from nothing: the previous run's tables and sync state are removed. Call it
   * before the keeper starts, so the keeper forgets the old tables rather than taking the new ones
   * for a rewound history.
   */
  static void reset(FloeCatalog catalog, FloeSettings settings) throws java.io.IOException {
    for (String table : TABLES) {
      catalog.catalog().dropTable(TableIdentifier.of(NAMESPACE, table), true);
    }
    java.nio.file.Path state = stateDirectory(settings);
    if (java.nio.file.Files.exists(state)) {
      try (java.util.stream.Stream<java.nio.file.Path> files = java.nio.file.Files.walk(state)) {
        files.sorted(java.util.Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
      }
    }
  }

  /**
   * Starts the sync of every shop table into {@link #NAMESPACE}, its reports to the keeper at
   * {@code keeper} and the traffic.
   */
  static DemoSync start(
      MariaDbServer server,
      MySqlSourceAddress source,
      FloeCatalog catalog,
      FloeSettings settings,
      URI keeper,
      Optional<Secret> keeperToken) {
    MySqlConnections connections = new MySqlConnections(Duration.ofSeconds(10));
    SyncOptions options =
        new SyncOptions(
            NAME,
            source.withoutDatabase(),
            TableSelection.of(List.of("shop\\..*"), List.of(), Optional.of(NAMESPACE)),
            Duration.ofSeconds(2),
            2,
            stateDirectory(settings),
            Optional.empty(),
            SyncSettings.DEFAULT_CHUNK_ROWS);
    RunningSync sync = new SyncRunner(catalog, connections).start(options);
    KeeperReporter reporter =
        new KeeperReporter(
            keeper,
            keeperToken,
            NAME,
            "mysql://" + source.user() + "@" + source.hostAndPort(),
            new SyncProgress(
                catalog, sync, connections, source.withoutDatabase(), Clock.systemUTC()),
            Clock.systemUTC());
    reporter.start();
    DemoTraffic traffic = new DemoTraffic(server);
    traffic.start();
    return new DemoSync(server, catalog, sync, reporter, traffic);
  }

  private static java.nio.file.Path stateDirectory(FloeSettings settings) {
    return settings.dataDirectory().resolve("sync").resolve(NAME);
  }

  /**
   * Prints the row counts every two seconds until the traffic has stopped and every table has
   * MySQL's row count in the lake.
   *
   * @return whether the lake caught up within the deadline
   */
  boolean awaitCaughtUp(PrintWriter out) throws Exception {
    long trafficEnds = started + TRAFFIC.toNanos();
    long deadline = started + DEADLINE.toNanos();
    long streamingTrafficEnds = Long.MAX_VALUE;
    while (System.nanoTime() < deadline) {
      Thread.sleep(2000); // the demo prints a status line every two seconds
      if (traffic.failure().isPresent()) {
        out.println("    the demo traffic failed: " + traffic.failure().get());
        return false;
      }
      if (System.nanoTime() > trafficEnds
          && System.nanoTime() > streamingTrafficEnds
          && traffic.running()) {
        traffic.stop();
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
      if (equal && !traffic.running()) {
        out.printf(
            Locale.ROOT,
            "    caught up: every table has MySQL's row count, %.1f s after the sync started%n",
            (System.nanoTime() - started) / 1e9);
        return true;
      }
    }
    out.println("    the lake did not catch up within " + DEADLINE.toMinutes() + " minutes");
    return false;
  }

  /** Starts the traffic again (for {@code --keep-running}). */
  void resumeTraffic() {
    traffic.start();
  }

  /** Changes the traffic made so far. */
  int changes() {
    return traffic.changes();
  }

  /**
   * Stops the traffic, then the sync (cancelled: the next demo run starts from nothing anyway), and
   * sends the keeper the sync's last report.
   */
  @Override
  public void close() throws Exception {
    try {
      traffic.stop();
    } finally {
      try {
        sync.close();
      } finally {
        reporter.finish(KeeperReporter.State.STOPPED, Optional.empty());
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

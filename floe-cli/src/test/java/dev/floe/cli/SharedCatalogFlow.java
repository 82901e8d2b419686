package dev.floe.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.floe.config.ConfigLoader;
import dev.floe.core.config.CatalogSettings;
import dev.floe.core.state.SnapshotWriter;
import dev.floe.iceberg.CatalogFactory;
import dev.floe.iceberg.FloeCatalog;
import dev.floe.testing.MariaDbServer;
import dev.floe.testing.Poll;
import dev.floe.testing.SampleShop;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;

/**
 * The whole flow of Floe on one catalog, as a user runs it from {@code floe.yaml}'s {@code
 * catalog:} section: {@code floe serve} keeping the lake, {@code floe sync} of a MariaDB sample
 * shop with live changes (inserts, updates, deletes a few times a second), the keeper's optimize
 * commits landing beside the sync's, then {@code floe verify} equal and {@code floe sql} reading
 * MySQL's row count. The keeper and the sync run in JVMs of their own, so their commits reach the
 * catalog concurrently from two processes, as in production.
 */
final class SharedCatalogFlow {

  private static final List<String> TABLES =
      List.of("customers", "products", "orders", "order_items");
  private static final Duration WITHIN = FloeProcess.WITHIN;

  private final Path directory;
  private final MariaDbServer mariadb;
  private final String catalogYaml;
  private final Path config;
  private CatalogSettings catalog;
  private String database;
  private int checkpointSeconds = 1;
  private String extraYaml = "";

  /**
   * @param catalogYaml the {@code catalog:} section's keys, one per line, not indented
   */
  SharedCatalogFlow(Path directory, MariaDbServer mariadb, String catalogYaml) {
    this.directory = directory;
    this.mariadb = mariadb;
    this.catalogYaml = catalogYaml;
    this.config = directory.resolve("floe.yaml");
  }

  /**
   * How often the sync commits (1 s unless set). Every keeper commit that loses the race to a sync
   * commit is refreshed and applied again; where that takes longer than the sync's interval (on a
   * slow object store) the keeper keeps losing, so such a flow commits less often.
   */
  SharedCatalogFlow checkpointEvery(int seconds) {
    checkpointSeconds = seconds;
    return this;
  }

  /** More top-level sections of floe.yaml, e.g. {@code "sync:\n state-dir: hdfs://...\n"}. */
  SharedCatalogFlow withYaml(String sections) {
    extraYaml = sections;
    return this;
  }

  /** The floe.yaml the commands run with (after {@link #run()}). */
  Path config() {
    return config;
  }

  /** The MySQL database synced, also the lake's namespace (after {@link #run()}). */
  String database() {
    return database;
  }

  /** The catalog as floe.yaml describes it, for reads of the lake from this JVM. */
  CatalogSettings catalog() {
    return catalog;
  }

  /** A new connection to the catalog; the caller closes it. */
  FloeCatalog openCatalog() {
    return new CatalogFactory().open(catalog, directory.resolve("reader-data"));
  }

  /** Every table's MySQL and lake row counts are equal. */
  void assertLakeEqualsMySql() throws Exception {
    try (FloeCatalog open = openCatalog()) {
      for (String table : TABLES) {
        assertThat(lakeRows(open, database + "." + table))
            .as("rows of %s.%s in the lake", database, table)
            .isEqualTo(mysqlRows(database, table));
      }
    }
  }

  /** {@code floe verify} of the orders table, all its rows up to now: exit 0, equal. */
  void assertVerifyEqual() throws Exception {
    assertVerifyEqual("orders");
  }

  /**
   * {@code floe verify} of one table with an {@code updated_at} column (customers, products,
   * orders), all its rows up to now, compared column by column: exit 0, equal. The sync may not
   * have committed MySQL's last changes when this is called (row counts can be equal while an
   * update is still on its way), so verify runs again, with a new cutoff, until it says equal or
   * the deadline passes; the failure shows the last report.
   */
  void assertVerifyEqual(String table) throws Exception {
    Poll.untilNothingWrong(
        "floe verify of " + database + "." + table + " says EQUAL",
        WITHIN,
        Duration.ofSeconds(1),
        () -> {
          CliRun verify =
              CliRun.run(
                  directory,
                  "--config",
                  config.toString(),
                  "--data-dir",
                  directory.resolve("verify-data").toString(),
                  "verify",
                  "--source",
                  mariadb.sourceUrl("root", "", ""),
                  "--table",
                  database + "." + table,
                  "--time-column",
                  "updated_at",
                  "--window",
                  "1d",
                  "--cutoff",
                  mysqlNow());
          boolean equal =
              verify.exitCode() == 0
                  && verify.out().contains("EQUAL: MySQL and the lake hold the same data.");
          return equal
              ? java.util.Optional.empty()
              : java.util.Optional.of(
                  "exit " + verify.exitCode() + ":\n" + verify.out() + verify.err());
        });
  }

  /** What the flow saw of the orders table's history. */
  record History(int syncSnapshots, int optimizeSnapshots, int syncSnapshotsAfterAnOptimize) {}

  private final long started = System.nanoTime();

  /** Prints how long each phase took (in the test's output file), to see where time goes. */
  private void phase(String what) {
    System.out.printf(
        java.util.Locale.ROOT, "%6.1f s  %s%n", (System.nanoTime() - started) / 1e9, what);
  }

  History run() throws Exception {
    database = mariadb.createDatabase("shared");
    SampleShop.create(mariadb, database, new SampleShop.Size(50, 10, 300, 2));
    StringBuilder yaml = new StringBuilder("catalog:\n");
    catalogYaml.lines().forEach(line -> yaml.append("  ").append(line).append('\n'));
    yaml.append("keeper:\n  refresh-interval-seconds: 1\n  optimizer:\n    threads: 1\n");
    yaml.append(extraYaml);
    Files.writeString(config, yaml, StandardCharsets.UTF_8);
    catalog = new ConfigLoader(Map.of()).load(config, Optional.empty(), directory).catalog();
    String orders = database + ".orders";

    DemoTraffic traffic = new DemoTraffic(mariadb, database);
    int port = FloeProcess.freePort();
    Path serveLog = directory.resolve("serve.log");
    Path syncLog = directory.resolve("sync.log");
    try (FloeProcess floe = new FloeProcess()) {
      Process serve =
          floe.start(
              serveLog,
              List.of(
                  "--config",
                  config.toString(),
                  "--data-dir",
                  directory.resolve("keeper-data").toString(),
                  "--verbose",
                  "serve",
                  "--listen",
                  "127.0.0.1:" + port));
      FloeProcess.awaitOutput(serve, serveLog, "Keeper serving ");
      phase("floe serve is serving");
      traffic.start();
      Process sync = floe.start(syncLog, syncArguments());
      FloeProcess.awaitOutput(sync, syncLog, "Syncing 4 tables from");
      phase("floe sync has copied the tables");

      // The keeper finds the synced tables and optimizes orders by itself while the sync writes.
      awaitOptimized(floe, port, orders, serveLog, syncLog, traffic);
      phase("the keeper optimized orders");
      // Then the sync's commits keep landing on top of the keeper's.
      History history =
          Poll.until(
              "a sync commit on " + orders + " after the keeper's optimize commit",
              WITHIN,
              Duration.ofMillis(250),
              () -> {
                assertThat(sync.isAlive()).as("the sync runs:\n%s", tail(syncLog)).isTrue();
                History seen = history(orders);
                return seen.syncSnapshotsAfterAnOptimize() > 0
                    ? java.util.Optional.of(seen)
                    : java.util.Optional.empty();
              });
      phase("a sync commit landed after the optimize: " + history);
      traffic.stop();
      assertThat(traffic.failure()).isEmpty();
      assertThat(traffic.changes()).isPositive();
      awaitCaughtUp(database, syncLog);

      phase("the lake caught up after " + traffic.changes() + " changes");
      assertVerifyEqual();
      phase("floe verify: equal");
      long mysqlOrders = mysqlRows(database, "orders");
      CliRun sql =
          CliRun.run(
              directory,
              "--config",
              config.toString(),
              "--data-dir",
              directory.resolve("sql-data").toString(),
              "sql",
              "--format",
              "csv",
              "-e",
              "SELECT COUNT(*) AS n, SUM(CASE WHEN status = 'cancelled' THEN 1 ELSE 0 END) AS c"
                  + " FROM "
                  + orders);
      assertThat(sql.exitCode()).as(sql.out() + sql.err()).isZero();
      assertThat(sql.out())
          .isEqualTo("n,c\n" + mysqlOrders + "," + mysqlCancelled(database) + "\n");

      phase("floe sql: the rows");
      sync.destroy(); // SIGTERM: a savepoint, then exit
      assertThat(sync.waitFor(2, TimeUnit.MINUTES)).isTrue();
      JsonNode kept = floe.table(port, orders).orElseThrow();
      assertThat(kept.get("catalog").asText()).isEqualTo(catalog.name());
      assertThat(floe.get(port, "/api/v1/tables").get("total").asInt())
          .as("the keeper keeps the four synced tables")
          .isEqualTo(4);
      phase("floe sync stopped");
      JsonNode detail = floe.get(port, "/api/v1/tables/" + orders);
      phase("the keeper's runs on orders: " + detail.get("runs"));
      // Every commit landed: no optimize run lost a race for good, the sync's job never failed.
      List<String> optimizeResults = new ArrayList<>();
      detail
          .get("runs")
          .forEach(
              run -> {
                if (run.get("kind").asText().equals("optimize")) {
                  optimizeResults.add(run.get("result").asText());
                }
              });
      assertThat(optimizeResults).as(detail.toString()).isNotEmpty().containsOnly("succeeded");
      assertThat(detail.get("consecutive_failures").asInt()).isZero();
      // A commit that lost the race to the keeper is refreshed and retried by Iceberg (logged as
      // "Retrying task after failure"); the job itself never fails.
      List<String> syncJobLog = Files.readAllLines(directory.resolve("sync-data/logs/floe.log"));
      assertThat(syncJobLog.stream().filter(line -> line.contains("to FAILING")))
          .as("the sync job's failures")
          .isEmpty();
      phase(
          "the sync's commits retried after losing a race: "
              + syncJobLog.stream()
                  .filter(line -> line.contains("Retrying task after failure"))
                  .count());
      serve.destroy();
      assertThat(serve.waitFor(1, TimeUnit.MINUTES)).isTrue();
      assertThat(serve.exitValue()).as(tail(serveLog)).isZero();
      phase("floe serve stopped");
      return history;
    } finally {
      traffic.stop();
    }
  }

  private List<String> syncArguments() {
    return List.of(
        "--config",
        config.toString(),
        "--data-dir",
        directory.resolve("sync-data").toString(),
        "--verbose",
        "sync",
        "--source",
        mariadb.sourceUrl("root", "", ""),
        "--tables",
        database + "\\..*",
        "--name",
        "shared",
        "--checkpoint-interval",
        String.valueOf(checkpointSeconds),
        "--heartbeat-interval",
        "1",
        "--progress",
        "log");
  }

  /**
   * After {@link #run()}: starts the same sync again (same name, config and data directory), so it
   * resumes from the savepoint its stop took, with live changes; returns once every table has
   * MySQL's row count again and the sync stopped with a savepoint. Returns the run's output.
   */
  String resumeSync() throws Exception {
    DemoTraffic traffic = new DemoTraffic(mariadb, database);
    Path log = directory.resolve("sync-resumed.log");
    try (FloeProcess floe = new FloeProcess()) {
      Process sync = floe.start(log, syncArguments());
      FloeProcess.awaitOutput(sync, log, "Syncing 4 tables from");
      phase("floe sync resumed");
      traffic.start();
      Poll.until(
          "changes made while the resumed sync runs",
          WITHIN,
          Duration.ofMillis(100),
          () -> {
            assertThat(traffic.failure()).as("the changes to MySQL").isEmpty();
            return traffic.changes() >= 20;
          });
      traffic.stop();
      assertThat(traffic.failure()).isEmpty();
      awaitCaughtUp(database, log);
      phase("the resumed sync caught up after " + traffic.changes() + " changes");
      sync.destroy(); // SIGTERM: a savepoint, then exit
      assertThat(sync.waitFor(2, TimeUnit.MINUTES)).isTrue();
      String output = Files.readString(log, StandardCharsets.UTF_8);
      assertThat(output).as(output).contains("Stopped. Run the same command to resume from");
      return output;
    } finally {
      traffic.stop();
    }
  }

  private void awaitOptimized(
      FloeProcess floe, int port, String table, Path serveLog, Path syncLog, DemoTraffic traffic)
      throws Exception {
    try {
      Poll.until(
          "the keeper optimized " + table + " while the sync ran",
          WITHIN,
          Duration.ofMillis(250),
          () -> {
            assertThat(traffic.failure()).isEmpty();
            java.util.Optional<JsonNode> entry = floe.table(port, table);
            if (entry.isPresent() && entry.get().get("consecutive_failures").asInt() > 0) {
              throw new AssertionError("the keeper failed on " + table + ": " + entry.get());
            }
            return entry.filter(kept -> !kept.get("last_optimized_at").isNull()).isPresent();
          });
    } catch (AssertionError e) {
      throw new AssertionError(
          e.getMessage()
              + "; now: "
              + floe.table(port, table)
              + "\nserve.log:\n"
              + tail(serveLog)
              + "\nthe keeper's floe.log:\n"
              + tail(directory.resolve("keeper-data/logs/floe.log"))
              + "\nsync.log:\n"
              + tail(syncLog),
          e);
    }
  }

  /** Who wrote the table's snapshots, in commit order. */
  private History history(String table) {
    try (FloeCatalog open = openCatalog()) {
      Table loaded = open.catalog().loadTable(TableIdentifier.parse(table));
      List<SnapshotWriter> writers = new ArrayList<>();
      for (Snapshot snapshot : loaded.snapshots()) {
        writers.add(SnapshotWriter.of(snapshot.summary()));
      }
      int firstOptimize = writers.indexOf(SnapshotWriter.OPTIMIZE);
      int afterOptimize = 0;
      if (firstOptimize >= 0) {
        for (SnapshotWriter writer : writers.subList(firstOptimize, writers.size())) {
          afterOptimize += writer == SnapshotWriter.SYNC ? 1 : 0;
        }
      }
      return new History(
          (int) writers.stream().filter(writer -> writer == SnapshotWriter.SYNC).count(),
          (int) writers.stream().filter(writer -> writer == SnapshotWriter.OPTIMIZE).count(),
          afterOptimize);
    }
  }

  private void awaitCaughtUp(String database, Path syncLog) throws Exception {
    Map<String, String> last = new LinkedHashMap<>();
    try {
      Poll.until(
          "every table of " + database + " has MySQL's row count in the lake",
          WITHIN,
          Duration.ofMillis(500),
          () -> {
            boolean equal = true;
            try (FloeCatalog open = openCatalog()) {
              for (String table : TABLES) {
                long mysql = mysqlRows(database, table);
                long lake = lakeRows(open, database + "." + table);
                last.put(table, lake + "/" + mysql);
                equal &= mysql == lake;
              }
            }
            return equal;
          });
    } catch (AssertionError e) {
      throw new AssertionError(
          e.getMessage() + "; lake/MySQL rows: " + last + "\nsync.log:\n" + tail(syncLog), e);
    }
  }

  private static long lakeRows(FloeCatalog open, String table) {
    if (!open.catalog().tableExists(TableIdentifier.parse(table))) {
      return -1; // not created yet
    }
    long rows = 0;
    try (CloseableIterable<Record> records =
        IcebergGenerics.read(open.catalog().loadTable(TableIdentifier.parse(table))).build()) {
      for (Record ignored : records) {
        rows++;
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return rows;
  }

  private long mysqlRows(String database, String table) throws SQLException {
    return mysqlLong("SELECT COUNT(*) FROM `" + database + "`." + table);
  }

  private long mysqlCancelled(String database) throws SQLException {
    return mysqlLong("SELECT COUNT(*) FROM `" + database + "`.orders WHERE status = 'cancelled'");
  }

  /** The server's clock as an ISO date-time in its own zone, as --cutoff takes it. */
  private String mysqlNow() throws SQLException {
    try (Connection connection = mariadb.rootConnection();
        Statement statement = connection.createStatement();
        ResultSet row = statement.executeQuery("SELECT NOW(6)")) {
      row.next();
      return row.getObject(1, LocalDateTime.class).toString();
    }
  }

  private long mysqlLong(String sql) throws SQLException {
    try (Connection connection = mariadb.rootConnection();
        Statement statement = connection.createStatement();
        ResultSet row = statement.executeQuery(sql)) {
      row.next();
      return row.getLong(1);
    }
  }

  private static String tail(Path log) {
    try {
      List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
    } catch (IOException e) {
      return "(no " + log.getFileName() + ")";
    }
  }
}

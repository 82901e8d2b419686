package dev.floe.sync;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.core.config.CatalogSettings;
import dev.floe.core.config.SyncSettings;
import dev.floe.core.source.MySqlSourceAddress;
import dev.floe.core.sync.SyncSummary;
import dev.floe.core.sync.TableSelection;
import dev.floe.iceberg.CatalogFactory;
import dev.floe.iceberg.FloeCatalog;
import dev.floe.mysql.MySqlConnections;
import dev.floe.testing.MariaDbExtension;
import dev.floe.testing.MariaDbServer;
import dev.floe.testing.Poll;
import dev.floe.testing.SampleShop;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** A whole database synced into Iceberg through snapshot, binlog, a cancel and a resume. */
@ExtendWith(MariaDbExtension.class)
class MySqlSyncITCase {

  private static final Duration DEADLINE = Duration.ofSeconds(120);
  private static final List<String> TABLES =
      List.of("customers", "products", "orders", "order_items");

  @TempDir Path directory;

  private MariaDbServer server;
  private String database;
  private FloeCatalog catalog;

  @BeforeEach
  void setUp(MariaDbServer server) {
    this.server = server;
    database = server.createDatabase("sync");
    SampleShop.create(server, database, new SampleShop.Size(200, 30, 400, 2));
    catalog = new CatalogFactory().open(CatalogSettings.embedded(), directory.resolve("data"));
  }

  @AfterEach
  void tearDown() {
    catalog.close();
  }

  @Test
  void snapshotThenBinlogThenResumeMatchRowForRow() throws Exception {
    SyncOptions options = options();
    try (RunningSync sync =
        new SyncRunner(catalog, new MySqlConnections(Duration.ofSeconds(10))).start(options)) {
      awaitEqual();
      for (String table : TABLES) {
        Table iceberg = lakeTable(table);
        assertThat(iceberg.currentSnapshot().summary())
            .as("a quiet snapshot writes no deletes: %s", table)
            .containsEntry("total-delete-files", "0")
            .containsKey(SyncSummary.SYNC_ID)
            .containsEntry(SyncSummary.SNAPSHOT_COMPLETE, "true");
      }

      server.execute(
          "INSERT INTO `"
              + database
              + "`.customers (email, name, country, vip, created_at) VALUES ('new@example.com', 'New', 'DE', 1, '2026-11-01 10:00:00.123')",
          "UPDATE `"
              + database
              + "`.products SET price = price + 1, attributes = '{\"x\": 1}' WHERE id <= 10",
          "DELETE FROM `" + database + "`.order_items WHERE line_no = 2 AND order_id % 3 = 0",
          "UPDATE `" + database + "`.orders SET status = 'shipped', note = NULL WHERE id % 5 = 0");
      awaitEqual();
      Snapshot latest = lakeTable("products").currentSnapshot();
      assertThat(latest.summary())
          .containsKeys(
              SyncSummary.BINLOG_FILE,
              SyncSummary.BINLOG_POSITION,
              SyncSummary.SOURCE_WATERMARK_MS);
      assertThat(Long.parseLong(latest.summary().get(SyncSummary.SOURCE_WATERMARK_MS)))
          .isGreaterThan(Instant.now().minus(Duration.ofMinutes(5)).toEpochMilli());
      sync.cancel(Duration.ofSeconds(60));
    }

    // Changes while the sync is down arrive after the resume, once each.
    server.execute(
        "INSERT INTO `"
            + database
            + "`.customers (email, name, country, vip, created_at) VALUES ('later@example.com', 'Later', 'FR', 0, '2026-11-02 11:00:00')",
        "UPDATE `" + database + "`.customers SET name = CONCAT(name, ' (edited)') WHERE id <= 5",
        "DELETE FROM `" + database + "`.products WHERE id = 3");
    try (RunningSync resumed =
        new SyncRunner(catalog, new MySqlConnections(Duration.ofSeconds(10))).start(options)) {
      assertThat(resumed.restoredFrom()).isPresent();
      awaitEqual();
    }
  }

  private SyncOptions options() {
    return options(SyncSettings.DEFAULT_CHUNK_ROWS);
  }

  @Test
  void changesDuringTheSnapshotAreAppliedOnceEach() throws Exception {
    server.execute(
        "INSERT INTO `"
            + database
            + "`.order_items (order_id, line_no, product_id, quantity, unit_price)"
            + " SELECT o.id, n.n + 10, 1, n.n, 1.00 FROM `"
            + database
            + "`.orders o"
            + " JOIN (SELECT 1 AS n UNION SELECT 2 UNION SELECT 3 UNION SELECT 4 UNION SELECT 5"
            + " UNION SELECT 6 UNION SELECT 7 UNION SELECT 8 UNION SELECT 9 UNION SELECT 10) n");
    ChangeMaker changes = new ChangeMaker(server, database);
    Thread writer = new Thread(changes, "mysql-changes");
    writer.start();
    try (RunningSync sync =
        new SyncRunner(catalog, new MySqlConnections(Duration.ofSeconds(10))).start(options(100))) {
      changes.runFor(Duration.ofSeconds(10));
      writer.join();
      assertThat(changes.statements()).as("changes made while syncing").isGreaterThan(100);
      awaitEqual();
    } finally {
      changes.stop();
      writer.join();
    }
  }

  private SyncOptions options(int chunkRows) {
    return new SyncOptions(
        "test",
        MySqlSourceAddress.parse(server.sourceUrl("root", "", ""), "--source"),
        TableSelection.of(List.of(database + "\\..*"), List.of(), Optional.empty()),
        Duration.ofSeconds(1),
        2,
        directory.resolve("state"),
        Optional.empty(),
        chunkRows);
  }

  private Table lakeTable(String table) {
    return catalog.catalog().loadTable(TableIdentifier.of(database, table));
  }

  private void awaitEqual() throws Exception {
    Instant start = Instant.now();
    Poll.untilNothingWrong(
        "MySQL and Iceberg hold the same rows",
        DEADLINE,
        Duration.ofMillis(500),
        () -> {
          Map<String, String> differences = differences();
          return differences.isEmpty() ? Optional.empty() : Optional.of(differences.toString());
        });
    org.slf4j.LoggerFactory.getLogger(MySqlSyncITCase.class)
        .info("lake equal to MySQL after {}", Duration.between(start, Instant.now()));
  }

  private Map<String, String> differences() throws Exception {
    Map<String, String> differences = new TreeMap<>();
    for (String table : TABLES) {
      TableIdentifier identifier = TableIdentifier.of(database, table);
      if (!catalog.catalog().tableExists(identifier)) {
        differences.put(table, "no Iceberg table yet");
        continue;
      }
      Table iceberg = catalog.catalog().loadTable(identifier);
      TreeMap<String, String> expected =
          LakeComparison.mysqlRows(server, database, table, iceberg.schema());
      TreeMap<String, String> actual = LakeComparison.lakeRows(iceberg);
      if (!expected.equals(actual)) {
        String firstDifferent =
            expected.entrySet().stream()
                .filter(entry -> !entry.getValue().equals(actual.get(entry.getKey())))
                .map(
                    entry ->
                        entry.getKey()
                            + " mysql="
                            + entry.getValue()
                            + " lake="
                            + actual.get(entry.getKey()))
                .findFirst()
                .orElse(
                    "extra in lake: "
                        + actual.keySet().stream()
                            .filter(key -> !expected.containsKey(key))
                            .findFirst()
                            .orElse("?"));
        differences.put(
            table, expected.size() + " vs " + actual.size() + " rows; " + firstDifferent);
      }
    }
    return differences;
  }
}

package dev.floe.sync;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.core.config.CatalogSettings;
import dev.floe.core.config.SyncSettings;
import dev.floe.core.source.MySqlSourceAddress;
import dev.floe.core.sync.SyncProperties;
import dev.floe.core.sync.SyncSummary;
import dev.floe.core.sync.TableSelection;
import dev.floe.iceberg.CatalogFactory;
import dev.floe.iceberg.FloeCatalog;
import dev.floe.mysql.MySqlConnections;
import dev.floe.testing.MariaDbExtension;
import dev.floe.testing.MariaDbServer;
import dev.floe.testing.Poll;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * DDL while rows change: every kind Iceberg can represent flows into the Iceberg table in order
 * with the rows; one it cannot represent stops that table only; a table created while the sync runs
 * is picked up, and a dropped one is reported.
 */
@ExtendWith(MariaDbExtension.class)
class SchemaChangeITCase {

  private static final Duration DEADLINE = Duration.ofSeconds(120);

  @TempDir Path directory;

  private MariaDbServer server;
  private String database;
  private FloeCatalog catalog;

  @BeforeEach
  void setUp(MariaDbServer server) {
    this.server = server;
    database = server.createDatabase("ddl");
    server.execute(
        "CREATE TABLE `"
            + database
            + "`.items (id BIGINT PRIMARY KEY, name VARCHAR(20), qty INT NOT NULL,"
            + " price DECIMAL(10,2), ratio FLOAT, note VARCHAR(10) NOT NULL DEFAULT '')",
        "CREATE TABLE `" + database + "`.other (id INT PRIMARY KEY, code INT)",
        "INSERT INTO `"
            + database
            + "`.items (id, name, qty, price, ratio, note) SELECT seq, CONCAT('item ', seq), seq,"
            + " seq / 4, seq / 8, 'n' FROM `"
            + database
            + "`.seq_1_to_200",
        "INSERT INTO `" + database + "`.other SELECT seq, seq FROM `" + database + "`.seq_1_to_20");
    catalog = new CatalogFactory().open(CatalogSettings.embedded(), directory.resolve("data"));
  }

  @AfterEach
  void tearDown() {
    catalog.close();
  }

  @Test
  void ddlDuringLiveTrafficFlowsThroughInOrderWithTheRows() throws Exception {
    Traffic traffic = new Traffic(server, database);
    try (RunningSync sync =
        new SyncRunner(catalog, new MySqlConnections(Duration.ofSeconds(10))).start(options())) {
      awaitEqual("items", "other");
      // A change the binlog phase applies: DDL from here on is read by the running binlog job.
      awaitTrue(
          "a binlog-phase commit",
          () -> {
            server.execute("UPDATE `" + database + "`.other SET code = code + 1 WHERE id = 2");
            Table other = lakeTable("other");
            return other.currentSnapshot().summary().containsKey(SyncSummary.BINLOG_FILE);
          });
      awaitEqual("other");
      Thread writer = new Thread(traffic, "ddl-traffic");
      writer.start();
      try {
        awaitTraffic(traffic, 20);
        server.execute(alter("ADD COLUMN color VARCHAR(10) AFTER id"));
        server.execute(
            "UPDATE `" + database + "`.items SET color = 'red' WHERE id % 3 = 0",
            alter("RENAME COLUMN name TO title"),
            "UPDATE `" + database + "`.items SET title = CONCAT(title, '!') WHERE id % 4 = 0");
        awaitTraffic(traffic, 20);
        server.execute(
            alter("MODIFY qty BIGINT NOT NULL"),
            "UPDATE `" + database + "`.items SET qty = qty + 5000000000 WHERE id % 5 = 0",
            alter("MODIFY price DECIMAL(14,2), MODIFY ratio DOUBLE"),
            "UPDATE `"
                + database
                + "`.items SET price = 123456789012.34, ratio = 0.1 WHERE id % 7 = 0");
        awaitTraffic(traffic, 20);
        server.execute(
            alter("DROP COLUMN note"),
            alter("MODIFY qty BIGINT NULL"),
            "UPDATE `" + database + "`.items SET qty = NULL WHERE id = 11");
        awaitTraffic(traffic, 20);
      } finally {
        traffic.stop();
        writer.join();
      }
      assertThat(traffic.statements()).as("changes made during the DDL").isGreaterThan(80);
      awaitEqual("items");

      Table items = lakeTable("items");
      assertThat(items.schema().columns())
          .extracting(column -> column.name() + " " + column.type() + " " + column.isOptional())
          .containsExactly(
              "id long false",
              "color string true",
              "title string true",
              "qty long true",
              "price decimal(14, 2) true",
              "ratio double true");
      assertThat(items.properties()).doesNotContainKey(SyncProperties.STOPPED);

      // A change Iceberg cannot represent stops that table only, with the way forward.
      server.execute(
          "ALTER TABLE `" + database + "`.other MODIFY code VARCHAR(10)",
          "UPDATE `" + database + "`.other SET code = 'x' WHERE id = 1",
          "INSERT INTO `" + database + "`.items (id, qty) VALUES (100000, 1)");
      awaitTrue(
          "other stopped",
          () -> lakeTable("other").properties().containsKey(SyncProperties.STOPPED));
      assertThat(lakeTable("other").properties().get(SyncProperties.STOPPED))
          .startsWith("Floe stopped syncing " + database + ".other at binlog ")
          .endsWith(
              " after `ALTER TABLE `"
                  + database
                  + "`.other MODIFY code VARCHAR(10)`: Iceberg cannot represent it: it changes"
                  + " column code to varchar, which maps to Iceberg string; Iceberg cannot change"
                  + " int to that (only int to long, float to double and a wider decimal"
                  + " precision). The other tables go on. To sync it again, stop floe sync and"
                  + " start it with --resnapshot "
                  + database
                  + ".other: that table is copied again into a new Iceberg table, the others"
                  + " resume where they stopped.");
      assertThat(lakeTable("other").schema().findField("code").type())
          .isEqualTo(Types.IntegerType.get());
      awaitEqual("items");

      // A table created while the sync runs is picked up; a dropped one is reported.
      server.execute(
          "CREATE TABLE `"
              + database
              + "`.fresh (k BIGINT UNSIGNED PRIMARY KEY, at DATETIME(3), kind ENUM('a','b'))",
          "INSERT INTO `"
              + database
              + "`.fresh VALUES (18446744073709551615, '2026-11-29 10:11:12.345', 'b'), (1, NULL,"
              + " 'a')",
          "UPDATE `" + database + "`.fresh SET kind = 'b' WHERE k = 1");
      awaitEqual("fresh", "items");
      server.execute("DROP TABLE `" + database + "`.fresh");
      awaitTrue(
          "fresh stopped",
          () -> lakeTable("fresh").properties().containsKey(SyncProperties.STOPPED));
      assertThat(lakeTable("fresh").properties().get(SyncProperties.STOPPED))
          .endsWith(
              "`: the table was dropped in MySQL. The Iceberg table keeps its rows; drop it when"
                  + " they are no longer needed.");
      assertThat(LakeComparison.lakeRows(lakeTable("fresh"))).hasSize(2);
      // The progress lines list the new table (it was not there at start) and why it stopped.
      SyncStatus status =
          new SyncProgress(
                  catalog,
                  Map.of(database + ".items", TableIdentifier.of(database, "items")),
                  new MySqlConnections(Duration.ofSeconds(10)),
                  options().source())
              .status();
      // without the sync's checkpoints the lag is the newest change's age: a day's threshold
      // keeps items from lagging on a slow machine (lagging is ProgressViewTest's business)
      String progress =
          String.join(
              "\n",
              new ProgressView(ProgressView.Mode.LOG, Duration.ofDays(1), 120)
                  .render(Optional.empty(), status));
      assertThat(progress)
          .contains(database + ".other")
          .containsPattern(
              "  stopped  " + database + "\\.fresh +Floe stopped syncing " + database + "\\.fresh")
          .contains("progress: 3 tables: 2 stopped, 1 in the binlog phase; lag ");
      sync.stop(Duration.ofSeconds(60));
    }

    // The way forward for the stopped table: --resnapshot of it alone. It is copied again into a
    // new Iceberg table with MySQL's columns; items goes on from its savepoint, with the change
    // made while the sync was stopped, and is not copied again.
    server.execute(
        "UPDATE `" + database + "`.items SET qty = 424242 WHERE id = 12",
        "UPDATE `" + database + "`.other SET code = 'y' WHERE id = 3");
    try (RunningSync resumed =
        new SyncRunner(catalog, new MySqlConnections(Duration.ofSeconds(10)))
            .resnapshot(options(), List.of(database + ".other"))) {
      awaitEqual("items", "other");
      assertThat(lakeTable("other").properties()).doesNotContainKey(SyncProperties.STOPPED);
      assertThat(lakeTable("other").schema().findField("code").type())
          .isEqualTo(Types.StringType.get());
      long copies =
          java.util.stream.StreamSupport.stream(lakeTable("items").snapshots().spliterator(), false)
              .filter(snapshot -> snapshot.summary().containsKey(SyncSummary.SNAPSHOT_COMPLETE))
              .count();
      assertThat(copies).as("items copied once").isEqualTo(1);
      server.execute("UPDATE `" + database + "`.other SET code = 'z' WHERE id = 4");
      awaitEqual("items", "other");
      resumed.cancel(Duration.ofSeconds(60));
    }
  }

  private String alter(String change) {
    return "ALTER TABLE `" + database + "`.items " + change;
  }

  private SyncOptions options() {
    return new SyncOptions(
        "ddl",
        MySqlSourceAddress.parse(server.sourceUrl("root", "", ""), "--source"),
        TableSelection.of(List.of(database + "\\..*"), List.of(), Optional.empty()),
        Duration.ofSeconds(1),
        2,
        directory.resolve("state"),
        Optional.empty(),
        SyncSettings.DEFAULT_CHUNK_ROWS);
  }

  private Table lakeTable(String table) {
    return catalog.catalog().loadTable(TableIdentifier.of(database, table));
  }

  private static void awaitTraffic(Traffic traffic, int statements) throws Exception {
    int target = traffic.statements() + statements;
    Poll.until(
        target + " traffic statements",
        DEADLINE,
        Duration.ofMillis(20),
        () -> traffic.statements() >= target);
  }

  private static void awaitTrue(String what, Poll.Condition condition) throws Exception {
    Poll.until(what, DEADLINE, Duration.ofMillis(200), condition);
  }

  private void awaitEqual(String... tables) throws Exception {
    Poll.untilNothingWrong(
        "MySQL and Iceberg hold the same rows",
        DEADLINE,
        Duration.ofMillis(300),
        () -> {
          Map<String, String> differences = differences(tables);
          return differences.isEmpty() ? Optional.empty() : Optional.of(differences.toString());
        });
  }

  private Map<String, String> differences(String... tables) throws Exception {
    Map<String, String> differences = new TreeMap<>();
    for (String table : tables) {
      TableIdentifier identifier = TableIdentifier.of(database, table);
      if (!catalog.catalog().tableExists(identifier)) {
        differences.put(table, "no Iceberg table");
        continue;
      }
      LakeComparison.difference(server, database, table, catalog.catalog().loadTable(identifier))
          .ifPresent(difference -> differences.put(table, difference));
    }
    return differences;
  }

  /** Inserts, updates and deletes rows of items, touching only columns every DDL keeps. */
  static final class Traffic implements Runnable {
    private final MariaDbServer server;
    private final String database;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicInteger statements = new AtomicInteger();

    Traffic(MariaDbServer server, String database) {
      this.server = server;
      this.database = database;
    }

    @Override
    public void run() {
      ThreadLocalRandom random = ThreadLocalRandom.current();
      long nextId = 1000;
      try (Connection connection = server.rootConnection();
          Statement statement = connection.createStatement()) {
        while (running.get()) {
          String table = "`" + database + "`.items";
          switch (random.nextInt(3)) {
            case 0 ->
                statement.execute(
                    "INSERT INTO " + table + " (id, qty) VALUES (" + nextId++ + ", 7)");
            case 1 ->
                statement.execute(
                    "UPDATE "
                        + table
                        + " SET qty = qty + 1 WHERE id = "
                        + (1 + random.nextInt(200)));
            default ->
                statement.execute(
                    "DELETE FROM " + table + " WHERE id = " + (1 + random.nextInt(200)));
          }
          statements.incrementAndGet();
        }
      } catch (SQLException e) {
        throw new IllegalStateException("traffic failed", e);
      }
    }

    int statements() {
      return statements.get();
    }

    void stop() {
      running.set(false);
    }
  }
}

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
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * RENAME TABLE of synced tables while the sync runs (docs/schema-changes.md): renamed within the
 * selection, the Iceberg table is renamed too and keeps its rows and history; renamed out of it, it
 * stops like a dropped table; a table renamed into it starts like a created one, and the rows it
 * had before the rename are copied (the sync stops its job with a savepoint, copies the table, and
 * restores the job).
 */
@ExtendWith(MariaDbExtension.class)
class RenameTableITCase {

  private static final Duration DEADLINE = Duration.ofSeconds(120);

  @TempDir Path directory;

  private MariaDbServer server;
  private String database;
  private FloeCatalog catalog;

  @BeforeEach
  void setUp(MariaDbServer server) {
    this.server = server;
    database = server.createDatabase("rename");
    server.execute(
        "CREATE TABLE " + name("items") + " (id BIGINT PRIMARY KEY, name VARCHAR(20), qty INT)",
        "INSERT INTO "
            + name("items")
            + " SELECT seq, CONCAT('item ', seq), seq FROM "
            + name("seq_1_to_200"),
        "CREATE TABLE " + name("other") + " (id INT PRIMARY KEY, code INT)",
        "INSERT INTO " + name("other") + " SELECT seq, seq FROM " + name("seq_1_to_20"),
        // excluded by the selection, but captured by the CDC source (it matches --tables)
        "CREATE TABLE " + name("outside_new") + " (id INT PRIMARY KEY, v VARCHAR(10))",
        "INSERT INTO " + name("outside_new") + " SELECT seq, 'old' FROM " + name("seq_1_to_10"),
        // not matched by --tables: the CDC source captures it anyway (its whole database)
        "CREATE TABLE " + name("raw_in") + " (id INT PRIMARY KEY, v VARCHAR(10))",
        "INSERT INTO " + name("raw_in") + " SELECT seq, 'old' FROM " + name("seq_1_to_10"),
        "CREATE TABLE " + name("leaving") + " (id INT PRIMARY KEY, v INT)",
        "INSERT INTO " + name("leaving") + " SELECT seq, seq FROM " + name("seq_1_to_5"));
    catalog = new CatalogFactory().open(CatalogSettings.embedded(), directory.resolve("data"));
  }

  @AfterEach
  void tearDown() {
    catalog.close();
  }

  @Test
  void renamedTablesKeepSyncingUnderTheirNewNamesOrStopOrStart() throws Exception {
    String uuid;
    long snapshotsBefore;
    try (RunningSync sync =
        new SyncRunner(catalog, new MySqlConnections(Duration.ofSeconds(10))).start(options())) {
      awaitEqual("items");
      awaitEqual("other");
      Poll.until(
          "a binlog-phase commit",
          DEADLINE,
          Duration.ofMillis(200),
          () -> {
            server.execute("UPDATE " + name("items") + " SET qty = qty + 1 WHERE id = 1");
            Table items = lakeTable("items");
            return items.currentSnapshot().summary().containsKey(SyncSummary.BINLOG_FILE);
          });
      uuid = lakeTable("items").uuid().toString();

      // rows before and after each rename, in the same checkpoints
      server.execute(
          "UPDATE " + name("items") + " SET qty = -qty WHERE id <= 10",
          "INSERT INTO " + name("items") + " VALUES (1000, 'before', 1)",
          "RENAME TABLE " + name("items") + " TO " + name("goods"),
          "UPDATE " + name("goods") + " SET name = 'after' WHERE id = 1000",
          "DELETE FROM " + name("goods") + " WHERE id = 2",
          "INSERT INTO " + name("goods") + " VALUES (1001, 'goods', 2)",
          "ALTER TABLE " + name("goods") + " RENAME TO " + name("products") + ", ADD COLUMN c INT",
          "UPDATE " + name("products") + " SET c = id WHERE id <= 20",
          "DELETE FROM " + name("products") + " WHERE id = 3");
      awaitEqual("products");
      assertThat(catalog.catalog().tableExists(TableIdentifier.of(database, "items"))).isFalse();
      assertThat(catalog.catalog().tableExists(TableIdentifier.of(database, "goods"))).isFalse();
      Table products = lakeTable("products");
      assertThat(products.uuid().toString()).as("the same Iceberg table").isEqualTo(uuid);
      assertThat(products.properties())
          .containsEntry(SyncProperties.SOURCE_TABLE, database + ".products")
          .doesNotContainKey(SyncProperties.STOPPED);
      assertThat(RenamedTables.of(products.properties()))
          .extracting(name -> name.source() + " " + name.identifier())
          .containsExactly(
              database + ".items " + database + ".items",
              database + ".goods " + database + ".goods");
      long copies =
          java.util.stream.StreamSupport.stream(products.snapshots().spliterator(), false)
              .filter(snapshot -> snapshot.summary().containsKey(SyncSummary.SNAPSHOT_COMPLETE))
              .count();
      assertThat(copies).as("the copy's commit is in the renamed table's history").isEqualTo(1);

      // renamed to an excluded name: stops like DROP TABLE, keeps its rows
      server.execute(
          "UPDATE " + name("other") + " SET code = -code WHERE id = 1",
          "RENAME TABLE " + name("other") + " TO " + name("outside_other"),
          "UPDATE " + name("outside_other") + " SET code = 99 WHERE id = 2");
      Poll.until(
          "other stopped",
          DEADLINE,
          Duration.ofMillis(200),
          () -> lakeTable("other").properties().containsKey(SyncProperties.STOPPED));
      assertThat(lakeTable("other").properties().get(SyncProperties.STOPPED))
          .startsWith("Floe stopped syncing " + database + ".other at binlog ")
          .endsWith(
              "`: the table was renamed to "
                  + database
                  + ".outside_other, which the sync does not take (--tables, --exclude). The"
                  + " Iceberg table keeps its rows; drop it when they are no longer needed.");

      // renamed from an excluded name: starts like CREATE TABLE, and the rows it had are copied
      server.execute(
          "RENAME TABLE " + name("outside_new") + " TO " + name("fresh"),
          "UPDATE " + name("fresh") + " SET v = 'changed' WHERE id = 1",
          "INSERT INTO " + name("fresh") + " VALUES (100, 'new')");
      awaitEqual("fresh");
      assertThat(LakeComparison.lakeRows(lakeTable("fresh")))
          .containsEntry("1/", "1|changed")
          .containsEntry("2/", "2|old")
          .containsEntry("100/", "100|new")
          .hasSize(11);
      // the change before the rename lands with the next checkpoint; the one after it never does
      Poll.until(
          "the change before the rename committed to other",
          DEADLINE,
          Duration.ofMillis(300),
          () -> "1|-1".equals(LakeComparison.lakeRows(lakeTable("other")).get("1/")));
      assertThat(LakeComparison.lakeRows(lakeTable("other")))
          .as("the stopped table keeps the rows it had")
          .hasSize(20)
          .containsEntry("2/", "2|2");
      snapshotsBefore =
          java.util.stream.StreamSupport.stream(products.snapshots().spliterator(), false).count();
      sync.stop(Duration.ofSeconds(60));
    }

    // resumed from the savepoint, under the new names
    server.execute(
        "UPDATE " + name("products") + " SET qty = 4242 WHERE id = 12",
        "INSERT INTO " + name("fresh") + " VALUES (101, 'later')");
    try (RunningSync resumed =
        new SyncRunner(catalog, new MySqlConnections(Duration.ofSeconds(10))).start(options())) {
      awaitEqual("products");
      Poll.until(
          "fresh gets later rows",
          DEADLINE,
          Duration.ofMillis(300),
          () -> LakeComparison.lakeRows(lakeTable("fresh")).containsKey("101/"));
      assertThat(lakeTable("products").uuid().toString()).isEqualTo(uuid);
      assertThat(
              java.util.stream.StreamSupport.stream(
                      lakeTable("products").snapshots().spliterator(), false)
                  .count())
          .isGreaterThan(snapshotsBefore);
      resumed.cancel(Duration.ofSeconds(60));
    }
  }

  @Test
  void tablesRenamedIntoOrOutOfTheTablesPatternStartOrStopLikeCreatedOrDroppedOnes()
      throws Exception {
    try (RunningSync sync =
        new SyncRunner(catalog, new MySqlConnections(Duration.ofSeconds(10))).start(options())) {
      awaitEqual("leaving");
      assertThat(catalog.catalog().tableExists(TableIdentifier.of(database, "raw_in"))).isFalse();
      Poll.until(
          "a binlog-phase commit",
          DEADLINE,
          Duration.ofMillis(200),
          () -> {
            server.execute("UPDATE " + name("leaving") + " SET v = v + 1 WHERE id = 1");
            return lakeTable("leaving")
                .currentSnapshot()
                .summary()
                .containsKey(SyncSummary.BINLOG_FILE);
          });

      // renamed from a name --tables does not match: starts like CREATE TABLE at the rename
      server.execute(
          "UPDATE " + name("raw_in") + " SET v = 'unseen' WHERE id = 1",
          "RENAME TABLE " + name("raw_in") + " TO " + name("arrived"),
          "INSERT INTO " + name("arrived") + " VALUES (100, 'new'), (101, 'gone')",
          "UPDATE " + name("arrived") + " SET v = 'changed' WHERE id = 2",
          "UPDATE " + name("arrived") + " SET v = 'newer' WHERE id = 100",
          "DELETE FROM " + name("arrived") + " WHERE id IN (3, 101)");
      // the rows it had before the rename are copied: the sync restarts itself around the copy
      awaitEqual("arrived");
      assertThat(lakeTable("arrived").properties())
          .containsEntry(SyncProperties.SOURCE_TABLE, database + ".arrived")
          .doesNotContainKey(SyncProperties.STOPPED)
          .doesNotContainKey(SyncProperties.COPY_NEEDED);
      assertThat(LakeComparison.lakeRows(lakeTable("arrived")))
          .containsEntry("1/", "1|unseen")
          .containsEntry("2/", "2|changed")
          .containsEntry("4/", "4|old")
          .doesNotContainKey("3/")
          .hasSize(10);

      // renamed to a name --tables does not match: stops like DROP TABLE, keeps its rows
      server.execute(
          "UPDATE " + name("leaving") + " SET v = -v WHERE id = 2",
          "RENAME TABLE " + name("leaving") + " TO " + name("raw_left"),
          "UPDATE " + name("raw_left") + " SET v = 99 WHERE id = 3");
      Poll.until(
          "leaving stopped",
          DEADLINE,
          Duration.ofMillis(200),
          () -> lakeTable("leaving").properties().containsKey(SyncProperties.STOPPED));
      assertThat(lakeTable("leaving").properties().get(SyncProperties.STOPPED))
          .startsWith("Floe stopped syncing " + database + ".leaving at binlog ")
          .endsWith(
              "`: the table was renamed to "
                  + database
                  + ".raw_left, which the sync does not take (--tables, --exclude). The"
                  + " Iceberg table keeps its rows; drop it when they are no longer needed.");
      assertThat(catalog.catalog().tableExists(TableIdentifier.of(database, "raw_left"))).isFalse();

      // a later checkpoint: arrived goes on, leaving has the change before the rename only
      server.execute(
          "INSERT INTO " + name("arrived") + " VALUES (102, 'later')",
          "UPDATE " + name("raw_left") + " SET v = 98 WHERE id = 4");
      awaitEqual("arrived");
      assertThat(LakeComparison.lakeRows(lakeTable("arrived"))).containsKey("102/").hasSize(11);
      Poll.until(
          "the change before the rename committed to leaving",
          DEADLINE,
          Duration.ofMillis(300),
          () -> "2|-2".equals(LakeComparison.lakeRows(lakeTable("leaving")).get("2/")));
      assertThat(LakeComparison.lakeRows(lakeTable("leaving")))
          .as("the stopped table keeps the rows it had")
          .hasSize(5)
          .containsEntry("3/", "3|3")
          .containsEntry("4/", "4|4");
      sync.cancel(Duration.ofSeconds(60));
    }
  }

  private String name(String table) {
    return "`" + database + "`." + table;
  }

  private SyncOptions options() {
    return new SyncOptions(
        "rename",
        MySqlSourceAddress.parse(server.sourceUrl("root", "", ""), "--source"),
        TableSelection.of(
            List.of(database + "\\.(?!raw_).*"),
            List.of(database + "\\.outside_.*"),
            Optional.empty()),
        Duration.ofSeconds(1),
        2,
        directory.resolve("state"),
        Optional.empty(),
        SyncSettings.DEFAULT_CHUNK_ROWS);
  }

  private Table lakeTable(String table) {
    return catalog.catalog().loadTable(TableIdentifier.of(database, table));
  }

  private void awaitEqual(String table) throws Exception {
    TableIdentifier identifier = TableIdentifier.of(database, table);
    Poll.untilNothingWrong(
        "MySQL and Iceberg hold the same rows of " + table,
        DEADLINE,
        Duration.ofMillis(300),
        () -> {
          try {
            return LakeComparison.difference(
                server, database, table, catalog.catalog().loadTable(identifier));
          } catch (org.apache.iceberg.exceptions.NoSuchTableException
              | org.apache.iceberg.exceptions.NotFoundException
              | org.apache.iceberg.exceptions.RuntimeIOException missing) {
            // not created yet, or dropped (its files purged) by the copy of a renamed-in table
            // while it was read
            return Optional.of("no Iceberg table, or one being replaced: " + missing.getMessage());
          }
        });
  }
}

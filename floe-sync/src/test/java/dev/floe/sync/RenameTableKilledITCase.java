package dev.floe.sync;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.core.config.CatalogSettings;
import dev.floe.core.sync.SyncProperties;
import dev.floe.core.sync.SyncSummary;
import dev.floe.iceberg.CatalogFactory;
import dev.floe.iceberg.FloeCatalog;
import dev.floe.testing.MariaDbExtension;
import dev.floe.testing.MariaDbServer;
import dev.floe.testing.Poll;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sync JVM is killed after a RENAME TABLE renamed the Iceberg table but before the rows around
 * it were committed; the restarted sync replays them from the checkpoint before the rename (rows of
 * the old name land in the renamed table, the committer's files of the old name too) and MySQL and
 * Iceberg match row for row, with no duplicate key. And killed while it copies the rows of a table
 * renamed into its selection: the next start finishes the copy.
 */
@ExtendWith(MariaDbExtension.class)
class RenameTableKilledITCase {

  private static final Duration DEADLINE = Duration.ofSeconds(180);

  /** Long enough that the kill lands between two checkpoints. */
  private static final Duration CHECKPOINTS = Duration.ofSeconds(20);

  @TempDir Path directory;

  @Test
  void killedBetweenARenameAndTheNextCheckpointResumesExactlyOnce(MariaDbServer server)
      throws Exception {
    String database = server.createDatabase("renkill");
    String t = "`" + database + "`.t";
    String renamed = "`" + database + "`.renamed";
    server.execute(
        "CREATE TABLE " + t + " (id INT PRIMARY KEY, a INT NOT NULL, b VARCHAR(20))",
        "INSERT INTO "
            + t
            + " SELECT seq, seq, CONCAT('b', seq) FROM `"
            + database
            + "`.seq_1_to_100");
    Path data = directory.resolve("data");
    Files.createDirectories(data);
    String url = server.sourceUrl("root", "", "");
    String uuid;

    Process first = SyncProcess.start(data, url, database, 1000, 0, CHECKPOINTS);
    try (FloeCatalog catalog = new CatalogFactory().open(CatalogSettings.embedded(), data)) {
      awaitEqual(server, catalog, database, "t");
      Poll.until(
          "a binlog-phase commit",
          DEADLINE,
          Duration.ofMillis(300),
          () -> {
            Table table = catalog.catalog().loadTable(TableIdentifier.of(database, "t"));
            if (table.currentSnapshot().summary().containsKey(SyncSummary.BINLOG_FILE)) {
              return true;
            }
            server.execute("UPDATE " + t + " SET a = a - 1 WHERE id = 1");
            return false;
          });
      awaitEqual(server, catalog, database, "t");
      uuid = catalog.catalog().loadTable(TableIdentifier.of(database, "t")).uuid().toString();

      server.execute(
          "UPDATE " + t + " SET b = CONCAT(b, ' before') WHERE id <= 10",
          "INSERT INTO " + t + " VALUES (500, 5, 'before')",
          "DELETE FROM " + t + " WHERE id = 2",
          "RENAME TABLE " + t + " TO " + renamed,
          "UPDATE " + renamed + " SET b = CONCAT(b, ' after') WHERE id > 5 AND id <= 20",
          "UPDATE " + renamed + " SET a = -a WHERE id = 500",
          "INSERT INTO " + renamed + " VALUES (1000, 1, 'new')",
          "DELETE FROM " + renamed + " WHERE id = 3");
      TableIdentifier lake = TableIdentifier.of(database, "renamed");
      Poll.until(
          "the rename reaches the lake",
          DEADLINE,
          Duration.ofMillis(100),
          () -> catalog.catalog().tableExists(lake));
      first.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      Table killed = catalog.catalog().loadTable(lake);
      assertThat(killed.uuid().toString()).isEqualTo(uuid);
      assertThat(LakeComparison.lakeRows(killed))
          .as("killed before the rows around the rename were committed")
          .doesNotContainKey("500/")
          .doesNotContainKey("1000/")
          .containsKey("2/");
    } finally {
      first.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    }

    Process second = SyncProcess.start(data, url, database, 1000, 0, CHECKPOINTS);
    try (FloeCatalog catalog = new CatalogFactory().open(CatalogSettings.embedded(), data)) {
      awaitEqual(server, catalog, database, "renamed");
      server.execute("UPDATE " + renamed + " SET a = 7 WHERE id = 1000");
      awaitEqual(server, catalog, database, "renamed");
      Table table = catalog.catalog().loadTable(TableIdentifier.of(database, "renamed"));
      assertThat(table.uuid().toString()).isEqualTo(uuid);
      assertThat(table.properties())
          .containsEntry(SyncProperties.SOURCE_TABLE, database + ".renamed")
          .doesNotContainKey(SyncProperties.STOPPED);
      assertThat(catalog.catalog().tableExists(TableIdentifier.of(database, "t"))).isFalse();
    } finally {
      second.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    }
  }

  @Test
  void killedDuringTheCopyOfATableRenamedIntoTheSelectionFinishesTheCopyOnTheNextStart(
      MariaDbServer server) throws Exception {
    String database = server.createDatabase("renin");
    String t = "`" + database + "`.t";
    String raw = "`" + database + "`.raw_big"; // SyncProcess leaves raw_* tables out
    String arrived = "`" + database + "`.arrived";
    int rows = 20_000;
    server.execute(
        "CREATE TABLE " + t + " (id INT PRIMARY KEY, a INT NOT NULL)",
        "INSERT INTO " + t + " SELECT seq, seq FROM `" + database + "`.seq_1_to_100",
        "CREATE TABLE " + raw + " (id INT PRIMARY KEY, a INT NOT NULL, b VARCHAR(20))",
        "INSERT INTO "
            + raw
            + " SELECT seq, seq, CONCAT('b', seq) FROM `"
            + database
            + "`.seq_1_to_"
            + rows);
    Path data = directory.resolve("data");
    Files.createDirectories(data);
    String url = server.sourceUrl("root", "", "");
    TableIdentifier lake = TableIdentifier.of(database, "arrived");

    // 2,000 rows a second: the copy of the renamed table takes about 10 s, time to kill it
    Process first = SyncProcess.start(data, url, database, 1000, 2000, Duration.ofSeconds(1));
    try (FloeCatalog catalog = new CatalogFactory().open(CatalogSettings.embedded(), data)) {
      awaitEqual(server, catalog, database, "t");
      assertThat(catalog.catalog().tableExists(TableIdentifier.of(database, "raw_big"))).isFalse();
      Poll.until(
          "a binlog-phase commit",
          DEADLINE,
          Duration.ofMillis(300),
          () -> {
            server.execute("UPDATE " + t + " SET a = a + 1 WHERE id = 1");
            return catalog
                .catalog()
                .loadTable(TableIdentifier.of(database, "t"))
                .currentSnapshot()
                .summary()
                .containsKey(SyncSummary.BINLOG_FILE);
          });
      server.execute(
          "UPDATE " + raw + " SET b = 'before' WHERE id <= 5",
          "RENAME TABLE " + raw + " TO " + arrived,
          "UPDATE " + arrived + " SET b = 'after' WHERE id > 3 AND id <= 10",
          "DELETE FROM " + arrived + " WHERE id = 7",
          "INSERT INTO " + arrived + " VALUES (" + (rows + 1) + ", 1, 'new')");
      Poll.until(
          "the copy of the renamed table under way",
          DEADLINE,
          Duration.ofMillis(100),
          () -> {
            Table table;
            try {
              table = catalog.catalog().loadTable(lake);
            } catch (org.apache.iceberg.exceptions.NoSuchTableException missing) {
              return false; // not created yet, or dropped for the copy a moment ago
            }
            if (table.properties().containsKey(SyncProperties.COPY_NEEDED)
                || table.currentSnapshot() == null) {
              return false; // the table the binlog job created, or the copy's empty one
            }
            long copied =
                Long.parseLong(
                    table.currentSnapshot().summary().getOrDefault("total-records", "0"));
            return copied > 0 && copied < rows;
          });
      first.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    } finally {
      first.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    }
    server.execute(
        "UPDATE " + arrived + " SET a = -a WHERE id IN (1, 2, " + rows + ")",
        "UPDATE " + t + " SET a = 0 WHERE id = 2");

    Process second = SyncProcess.start(data, url, database, 1000, 0, Duration.ofSeconds(1));
    try (FloeCatalog catalog = new CatalogFactory().open(CatalogSettings.embedded(), data)) {
      awaitEqual(server, catalog, database, "arrived");
      awaitEqual(server, catalog, database, "t");
      server.execute("UPDATE " + arrived + " SET b = 'later' WHERE id = 1");
      awaitEqual(server, catalog, database, "arrived");
      Table table = catalog.catalog().loadTable(lake);
      assertThat(LakeComparison.lakeRows(table)).hasSize(rows);
      assertThat(table.properties())
          .containsEntry(SyncProperties.SOURCE_TABLE, database + ".arrived")
          .doesNotContainKey(SyncProperties.COPY_NEEDED);
    } finally {
      second.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    }
  }

  private static void awaitEqual(
      MariaDbServer server, FloeCatalog catalog, String database, String table) throws Exception {
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

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
 * The sync JVM is killed after a DDL reached the Iceberg table but before the rows around it were
 * committed; the restarted sync replays them (those before the DDL with the old column names) and
 * MySQL and Iceberg match row for row.
 */
@ExtendWith(MariaDbExtension.class)
class SchemaChangeKilledITCase {

  private static final Duration DEADLINE = Duration.ofSeconds(180);

  /** Long enough that the kill lands between two checkpoints. */
  private static final Duration CHECKPOINTS = Duration.ofSeconds(20);

  @TempDir Path directory;

  @Test
  void killedBetweenADdlOrTruncateAndTheRowsAfterItResumesExactlyOnce(MariaDbServer server)
      throws Exception {
    String database = server.createDatabase("ddlkill");
    String table = "`" + database + "`.t";
    server.execute(
        "CREATE TABLE " + table + " (id INT PRIMARY KEY, a INT NOT NULL, b VARCHAR(20))",
        "INSERT INTO "
            + table
            + " SELECT seq, seq, CONCAT('b', seq) FROM `"
            + database
            + "`.seq_1_to_100",
        "CREATE TABLE `" + database + "`.u (id INT PRIMARY KEY, v INT)",
        "INSERT INTO `" + database + "`.u SELECT seq, seq FROM `" + database + "`.seq_1_to_50");
    Path data = directory.resolve("data");
    Files.createDirectories(data);
    String url = server.sourceUrl("root", "", "");

    Process first = SyncProcess.start(data, url, database, 1000, 0, CHECKPOINTS);
    try (FloeCatalog catalog = new CatalogFactory().open(CatalogSettings.embedded(), data)) {
      // Wait for a binlog-phase commit: the next checkpoint is about 20 s away from here.
      server.execute("UPDATE " + table + " SET a = -1 WHERE id = 1");
      awaitEqual(server, catalog, database);
      Poll.until(
          "a binlog-phase commit",
          DEADLINE,
          Duration.ofMillis(300),
          () -> {
            if (binlogCommitted(lakeTable(catalog, database))) {
              return true;
            }
            server.execute("UPDATE " + table + " SET a = a - 1 WHERE id = 1");
            return false;
          });
      awaitEqual(server, catalog, database);

      // a TRUNCATE between rows of u, then the DDL on t: both reach the lake before the kill
      String u = "`" + database + "`.u";
      server.execute(
          "UPDATE " + u + " SET v = -v WHERE id <= 5",
          "TRUNCATE TABLE " + u,
          "INSERT INTO " + u + " VALUES (500, 1), (501, 2)",
          "UPDATE " + u + " SET v = 3 WHERE id = 501",
          "UPDATE " + table + " SET b = CONCAT(b, ' before') WHERE id <= 10",
          "ALTER TABLE " + table + " ADD COLUMN c INT, RENAME COLUMN b TO bb",
          "UPDATE " + table + " SET c = id, bb = CONCAT(bb, ' after') WHERE id > 5 AND id <= 20",
          "INSERT INTO " + table + " VALUES (1000, 1, 'new', 7)",
          "DELETE FROM " + table + " WHERE id = 2");
      Poll.until(
          "the DDL reaches the lake",
          DEADLINE,
          Duration.ofMillis(100),
          () -> lakeTable(catalog, database).schema().findField("c") != null);
      first.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      Table killed = lakeTable(catalog, database);
      assertThat(killed.properties()).containsKey(SyncProperties.SCHEMA_POSITION);
      assertThat(LakeComparison.lakeRows(killed))
          .as("killed before the rows around the DDL were committed")
          .doesNotContainKey("1000/")
          .containsKey("2/");
      Table truncated = catalog.catalog().loadTable(TableIdentifier.of(database, "u"));
      assertThat(truncated.properties()).containsKey(SyncProperties.SCHEMA_POSITION);
      assertThat(LakeComparison.lakeRows(truncated))
          .as("killed before the TRUNCATE emptied the Iceberg table")
          .hasSize(50);
    } finally {
      first.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    }

    Process second = SyncProcess.start(data, url, database, 1000, 0, CHECKPOINTS);
    try (FloeCatalog catalog = new CatalogFactory().open(CatalogSettings.embedded(), data)) {
      awaitEqual(server, catalog, database);
      awaitEqual(server, catalog, database, "u");
      assertThat(
              LakeComparison.lakeRows(
                  catalog.catalog().loadTable(TableIdentifier.of(database, "u"))))
          .containsOnlyKeys("500/", "501/");
      assertThat(lakeTable(catalog, database).schema().columns())
          .extracting(column -> column.name())
          .containsExactly("id", "a", "bb", "c");
    } finally {
      second.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    }
  }

  private static boolean binlogCommitted(Table table) {
    table.refresh();
    return table.currentSnapshot() != null
        && table.currentSnapshot().summary().containsKey(SyncSummary.BINLOG_FILE);
  }

  private static Table lakeTable(FloeCatalog catalog, String database) {
    return catalog.catalog().loadTable(TableIdentifier.of(database, "t"));
  }

  private static void awaitEqual(MariaDbServer server, FloeCatalog catalog, String database)
      throws Exception {
    awaitEqual(server, catalog, database, "t");
  }

  private static void awaitEqual(
      MariaDbServer server, FloeCatalog catalog, String database, String table) throws Exception {
    TableIdentifier identifier = TableIdentifier.of(database, table);
    Poll.untilNothingWrong(
        "MySQL and Iceberg hold the same rows of " + table,
        DEADLINE,
        Duration.ofMillis(300),
        () ->
            catalog.catalog().tableExists(identifier)
                ? LakeComparison.difference(
                    server, database, table, catalog.catalog().loadTable(identifier))
                : Optional.of("no Iceberg table"));
  }
}

package dev.floe.sync;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.core.config.CatalogSettings;
import dev.floe.core.sync.SyncSummary;
import dev.floe.iceberg.CatalogFactory;
import dev.floe.iceberg.FloeCatalog;
import dev.floe.testing.MariaDbExtension;
import dev.floe.testing.MariaDbServer;
import dev.floe.testing.Poll;
import dev.floe.testing.SampleShop;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sync JVM is killed with SIGKILL during the snapshot and again during the binlog phase; after
 * each restart MySQL and Iceberg match row for row, with no duplicate keys.
 */
@ExtendWith(MariaDbExtension.class)
class SyncKilledITCase {

  private static final Duration DEADLINE = Duration.ofSeconds(180);
  private static final List<String> TABLES =
      List.of("customers", "products", "orders", "order_items");

  @TempDir Path directory;

  @Test
  void killedDuringSnapshotAndDuringBinlogResumesExactlyOnce(MariaDbServer server)
      throws Exception {
    String database = server.createDatabase("killed");
    SampleShop.create(server, database, new SampleShop.Size(300, 30, 1500, 3));
    Path data = directory.resolve("data");
    Files.createDirectories(data);
    String url = server.sourceUrl("root", "", "");

    // The first run copies slowly (1,000 rows/s) so that it dies in the middle of the snapshot.
    Process first = SyncProcess.start(data, url, database, 50, 1000);
    try (FloeCatalog catalog = new CatalogFactory().open(CatalogSettings.embedded(), data)) {
      awaitSomeSnapshotCommitted(catalog, database);
      first.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      assertThat(snapshotComplete(catalog, database, "order_items"))
          .as("killed in the middle of the snapshot")
          .isFalse();
      assertThat(binlogPhaseReached(catalog, database)).as("still in the snapshot phase").isFalse();
    } finally {
      first.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    }

    server.execute(
        "UPDATE `" + database + "`.orders SET status = 'cancelled' WHERE id % 7 = 0",
        "DELETE FROM `" + database + "`.order_items WHERE line_no = 3 AND order_id % 4 = 0");
    Process second = SyncProcess.start(data, url, database, 50, 0);
    try (FloeCatalog catalog = new CatalogFactory().open(CatalogSettings.embedded(), data)) {
      awaitEqual(server, database, catalog);
      server.execute(
          "INSERT INTO `"
              + database
              + "`.customers (email, name, country, vip, created_at) VALUES ('k1@x', 'K', 'DE', 0, NOW(3))",
          "UPDATE `" + database + "`.products SET price = price * 2 WHERE id % 2 = 0");
      awaitEqual(server, database, catalog);
    } finally {
      second.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    }

    server.execute(
        "UPDATE `" + database + "`.customers SET country = 'JP' WHERE id % 3 = 0",
        "DELETE FROM `" + database + "`.products WHERE id = 5",
        "INSERT INTO `"
            + database
            + "`.customers (email, name, country, vip, created_at) VALUES ('k2@x', 'K2', 'IN', 1, NOW(3))");
    Process third = SyncProcess.start(data, url, database, 50, 0);
    try (FloeCatalog catalog = new CatalogFactory().open(CatalogSettings.embedded(), data)) {
      awaitEqual(server, database, catalog);
    } finally {
      third.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    }
  }

  private static void awaitSomeSnapshotCommitted(FloeCatalog catalog, String database)
      throws Exception {
    TableIdentifier items = TableIdentifier.of(database, "order_items");
    Poll.until(
        "a first commit to order_items",
        DEADLINE,
        Duration.ofMillis(50),
        () ->
            catalog.catalog().tableExists(items)
                && catalog.catalog().loadTable(items).currentSnapshot() != null);
  }

  private static boolean snapshotComplete(FloeCatalog catalog, String database, String table) {
    Table iceberg = catalog.catalog().loadTable(TableIdentifier.of(database, table));
    for (Snapshot snapshot : iceberg.snapshots()) {
      if ("true".equals(snapshot.summary().get(SyncSummary.SNAPSHOT_COMPLETE))) {
        return true;
      }
    }
    return false;
  }

  private static boolean binlogPhaseReached(FloeCatalog catalog, String database) {
    for (String table : TABLES) {
      TableIdentifier identifier = TableIdentifier.of(database, table);
      if (catalog.catalog().tableExists(identifier)) {
        Table iceberg = catalog.catalog().loadTable(identifier);
        for (Snapshot snapshot : iceberg.snapshots()) {
          if (snapshot.summary().containsKey(SyncSummary.SOURCE_WATERMARK_MS)) {
            return true;
          }
        }
      }
    }
    return false;
  }

  private static void awaitEqual(MariaDbServer server, String database, FloeCatalog catalog)
      throws Exception {
    Poll.untilNothingWrong(
        "MySQL and Iceberg hold the same rows",
        DEADLINE,
        Duration.ofMillis(500),
        () -> {
          for (String table : TABLES) {
            TableIdentifier identifier = TableIdentifier.of(database, table);
            if (!catalog.catalog().tableExists(identifier)) {
              return Optional.of(table + " missing");
            }
            Table iceberg = catalog.catalog().loadTable(identifier);
            TreeMap<String, String> expected =
                LakeComparison.mysqlRows(server, database, table, iceberg.schema());
            TreeMap<String, String> actual = LakeComparison.lakeRows(iceberg);
            if (!expected.equals(actual)) {
              return Optional.of(
                  table
                      + ": "
                      + expected.size()
                      + " rows in MySQL, "
                      + actual.size()
                      + " in Iceberg");
            }
          }
          return Optional.empty();
        });
  }
}

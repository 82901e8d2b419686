package dev.floe.sync;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.floe.core.config.CatalogSettings;
import dev.floe.core.config.SyncSettings;
import dev.floe.core.error.FloeException;
import dev.floe.core.source.MySqlSourceAddress;
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
import java.util.concurrent.ExecutionException;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** A value Iceberg cannot hold fails the job once, with the table, column and value named. */
@ExtendWith(MariaDbExtension.class)
class SyncFailureITCase {

  @TempDir Path directory;

  @Test
  void timeBeyondOneDayInTheSnapshotStopsTheSyncWithTheReason(MariaDbServer server)
      throws Exception {
    String database = server.createDatabase("failing");
    server.execute(
        "CREATE TABLE `" + database + "`.shifts (id INT PRIMARY KEY, length TIME)",
        "INSERT INTO `" + database + "`.shifts VALUES (1, '08:00:00'), (2, '30:00:00')");
    try (FloeCatalog catalog =
            new CatalogFactory().open(CatalogSettings.embedded(), directory.resolve("data"));
        RunningSync sync =
            new SyncRunner(catalog, new MySqlConnections(Duration.ofSeconds(10)))
                .start(options(server, database))) {
      assertThatThrownBy(sync::await)
          .isInstanceOf(FloeException.class)
          .hasMessage(message(database));
    }
  }

  @Test
  void timeBeyondOneDayInTheBinlogStopsTheJobWithTheReason(MariaDbServer server) throws Exception {
    String database = server.createDatabase("failing");
    server.execute(
        "CREATE TABLE `" + database + "`.shifts (id INT PRIMARY KEY, length TIME)",
        "INSERT INTO `" + database + "`.shifts VALUES (1, '08:00:00')");
    try (FloeCatalog catalog =
            new CatalogFactory().open(CatalogSettings.embedded(), directory.resolve("data"));
        RunningSync sync =
            new SyncRunner(catalog, new MySqlConnections(Duration.ofSeconds(10)))
                .start(options(server, database))) {
      awaitSnapshotComplete(catalog, TableIdentifier.of(database, "shifts"));
      server.execute("INSERT INTO `" + database + "`.shifts VALUES (2, '30:00:00')");
      assertThatThrownBy(sync::await)
          .isInstanceOf(ExecutionException.class)
          .rootCause()
          .hasMessage(message(database));
    }
  }

  private static void awaitSnapshotComplete(FloeCatalog catalog, TableIdentifier table)
      throws Exception {
    Poll.until(
        table + ": the initial snapshot completes",
        Duration.ofSeconds(60),
        Duration.ofMillis(50),
        () -> {
          Snapshot current = catalog.catalog().loadTable(table).currentSnapshot();
          return current != null
              && "true".equals(current.summary().get(SyncSummary.SNAPSHOT_COMPLETE));
        });
  }

  private SyncOptions options(MariaDbServer server, String database) {
    return new SyncOptions(
        "failing",
        MySqlSourceAddress.parse(server.sourceUrl("root", "", ""), "--source"),
        TableSelection.of(List.of(database + "\\..*"), List.of(), Optional.empty()),
        Duration.ofSeconds(1),
        1,
        directory.resolve("state"),
        Optional.empty(),
        SyncSettings.DEFAULT_CHUNK_ROWS);
  }

  private static String message(String database) {
    return "Table "
        + database
        + ".shifts column length holds the TIME value 30:00:00, outside 00:00:00-23:59:59, which"
        + " an Iceberg time cannot hold. Exclude the table or keep TIME values within a day.";
  }
}

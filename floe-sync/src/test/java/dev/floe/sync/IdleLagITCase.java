package dev.floe.sync;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.core.config.CatalogSettings;
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
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An idle sync's lag stays small: heartbeats carry its checkpointed binlog position to the server's
 * head, whether nothing at all is written or only tables the sync does not take change.
 */
@ExtendWith(MariaDbExtension.class)
class IdleLagITCase {

  private static final Logger LOG = LoggerFactory.getLogger(IdleLagITCase.class);
  private static final Duration HEARTBEAT = Duration.ofSeconds(2);
  private static final Duration CHECKPOINT = Duration.ofSeconds(1);

  /** Once settled, the lag stays within a heartbeat, a checkpoint and a report of slack. */
  private static final long MAX_IDLE_LAG_MILLIS =
      HEARTBEAT.plus(CHECKPOINT).plusSeconds(3).toMillis();

  private static final Duration IDLE = Duration.ofSeconds(12);

  @TempDir Path directory;

  private MariaDbServer server;
  private String database;
  private String other;
  private FloeCatalog catalog;

  @BeforeEach
  void setUp(MariaDbServer server) {
    this.server = server;
    database = server.createDatabase("idle");
    other = server.createDatabase("elsewhere");
    server.execute(
        "CREATE TABLE `" + database + "`.items (id INT PRIMARY KEY, name VARCHAR(20))",
        "INSERT INTO `" + database + "`.items VALUES (1, 'a'), (2, 'b')",
        "CREATE TABLE `" + other + "`.noise (id INT AUTO_INCREMENT PRIMARY KEY, at BIGINT)");
    catalog = new CatalogFactory().open(CatalogSettings.embedded(), directory.resolve("data"));
  }

  @AfterEach
  void tearDown() {
    catalog.close();
  }

  @Test
  void anIdleSyncsLagStaysWithinTheHeartbeat() throws Exception {
    MySqlConnections connections = new MySqlConnections(Duration.ofSeconds(10));
    SyncOptions options = options();
    try (RunningSync sync = new SyncRunner(catalog, connections).start(options)) {
      SyncProgress progress =
          new SyncProgress(catalog, sync, connections, options.source(), Clock.systemUTC());
      server.execute("UPDATE `" + database + "`.items SET name = 'changed' WHERE id = 1");
      Poll.until(
          "the change in the lake",
          Duration.ofSeconds(120),
          Duration.ofMillis(500),
          () -> progress.status().tables().get(0).changed());
      long lastChange =
          Long.parseLong(lakeSnapshot().summary().get(SyncSummary.SOURCE_WATERMARK_MS));

      // Nothing written at all: the lag stays near zero although the last change grows old.
      List<Long> quiet = lagsFor(progress, IDLE, () -> {});
      // Only a table the sync does not take changes: the binlog moves, the lake does not.
      List<Long> noisy =
          lagsFor(
              progress,
              IDLE,
              () ->
                  server.execute(
                      "INSERT INTO `"
                          + other
                          + "`.noise (at) VALUES ("
                          + System.currentTimeMillis()
                          + ")"));
      LOG.info("lags while quiet {} ms, while other tables change {} ms", quiet, noisy);

      assertThat(System.currentTimeMillis() - lastChange)
          .as("the lake's newest change is older than the lag shown")
          .isGreaterThan(2 * IDLE.toMillis());
      // the first heartbeat and checkpoint after the change settle the position
      long settled = HEARTBEAT.plus(CHECKPOINT).toSeconds() + 1;
      assertThat(quiet.subList((int) settled, quiet.size()))
          .allSatisfy(lag -> assertThat(lag).isLessThan(MAX_IDLE_LAG_MILLIS));
      assertThat(noisy).allSatisfy(lag -> assertThat(lag).isLessThan(MAX_IDLE_LAG_MILLIS));
      SyncStatus status = progress.status();
      assertThat(status.tables())
          .singleElement()
          .satisfies(
              table -> {
                assertThat(table.phase()).isEqualTo(SyncStatus.Phase.BINLOG);
                assertThat(table.rows()).isPositive();
                assertThat(table.lagMillis()).isEqualTo(status.lagMillis());
              });
      sync.cancel(Duration.ofSeconds(60));
    }
  }

  /** The sync's lag once a second for {@code span}, doing {@code each} before each reading. */
  private static List<Long> lagsFor(SyncProgress progress, Duration span, Runnable each)
      throws InterruptedException {
    List<Long> lags = new ArrayList<>();
    long end = System.nanoTime() + span.toNanos();
    while (System.nanoTime() < end) {
      each.run();
      lags.add(progress.status().lagMillis().orElse(Long.MAX_VALUE));
      Thread.sleep(1000); // one reading a second: the measurement's cadence, not a wait
    }
    return lags;
  }

  private Snapshot lakeSnapshot() {
    return catalog.catalog().loadTable(TableIdentifier.of(database, "items")).currentSnapshot();
  }

  private SyncOptions options() {
    return new SyncOptions(
        "idle",
        MySqlSourceAddress.parse(server.sourceUrl("root", "", ""), "--source"),
        TableSelection.of(List.of(database + "\\..*"), List.of(), Optional.empty()),
        CHECKPOINT,
        1,
        directory.resolve("state"),
        Optional.empty(),
        1000,
        0,
        Map.of(),
        HEARTBEAT);
  }
}

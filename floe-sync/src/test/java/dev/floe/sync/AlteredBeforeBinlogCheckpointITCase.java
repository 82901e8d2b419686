package dev.floe.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.floe.core.config.CatalogSettings;
import dev.floe.core.error.ErrorCategory;
import dev.floe.core.error.FloeException;
import dev.floe.core.sync.SyncSummary;
import dev.floe.iceberg.CatalogFactory;
import dev.floe.iceberg.FloeCatalog;
import dev.floe.mysql.MySqlConnections;
import dev.floe.testing.MariaDbExtension;
import dev.floe.testing.MariaDbServer;
import dev.floe.testing.Poll;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A sync killed before its binlog phase's first checkpoint starts its CDC source again from before
 * the copy, with the table definitions it reads then. A table altered since the copy began would
 * have its earlier rows misread (before: Flink CDC's "Data row is smaller than a column index" on
 * every restart, found by {@link SyncSoakITCase}); the restart now refuses it, naming the table and
 * changing nothing, and {@code --resnapshot} recovers.
 */
@ExtendWith(MariaDbExtension.class)
class AlteredBeforeBinlogCheckpointITCase {

  private static final Duration DEADLINE = Duration.ofSeconds(180);

  /** Long enough that no binlog checkpoint is taken before the kill. */
  private static final Duration CHECKPOINTS = Duration.ofSeconds(120);

  @TempDir Path directory;

  private MariaDbServer server;
  private String database;
  private Path data;
  private String url;

  @BeforeEach
  void setUp(MariaDbServer server) throws Exception {
    this.server = server;
    database = server.createDatabase("altered");
    server.execute(
        "CREATE TABLE `" + database + "`.t (id INT PRIMARY KEY, a INT NOT NULL)",
        "INSERT INTO `" + database + "`.t SELECT seq, seq FROM `" + database + "`.seq_1_to_3000",
        "CREATE TABLE `" + database + "`.u (id INT PRIMARY KEY, v VARCHAR(10))",
        "INSERT INTO `" + database + "`.u SELECT seq, 'u' FROM `" + database + "`.seq_1_to_100");
    data = directory.resolve("data");
    Files.createDirectories(data);
    url = server.sourceUrl("root", "", "");
  }

  @Test
  void alteredDuringTheCopyAndKilledThereIsRefusedOnRestartAndResnapshotRecovers()
      throws Exception {
    // 300 rows a second: the copy of t takes 10 s.
    Process sync = SyncProcess.start(data, url, database, 100, 300, CHECKPOINTS);
    try (FloeCatalog catalog = new CatalogFactory().open(CatalogSettings.embedded(), data)) {
      // the copy commits at its end (or every checkpoint interval): once t is provisioned and the
      // copy's state recorded, its copy is under way
      Poll.until(
          "the Iceberg table of t provisioned and the copy's state recorded",
          DEADLINE,
          Duration.ofMillis(50),
          () ->
              lake(catalog, "t") != null
                  && Files.exists(
                      data.resolve("sync/crash-test").resolve(SnapshotState.FILE_NAME)));
      server.execute("ALTER TABLE `" + database + "`.t ADD COLUMN b INT NOT NULL DEFAULT 5");
      kill(sync);
      assertThat(copied(lake(catalog, "t"))).as("killed during the copy of t").isFalse();

      refusedThenRecovered(catalog);
    } finally {
      kill(sync);
    }
  }

  @Test
  void alteredAfterTheCopyAndKilledBeforeTheFirstBinlogCheckpointIsRefusedAndResnapshotRecovers()
      throws Exception {
    Process sync = SyncProcess.start(data, url, database, 1000, 0, CHECKPOINTS);
    try (FloeCatalog catalog = new CatalogFactory().open(CatalogSettings.embedded(), data)) {
      Poll.until(
          "t and u copied",
          DEADLINE,
          Duration.ofMillis(50),
          () -> copied(lake(catalog, "t")) && copied(lake(catalog, "u")));
      server.execute(
          "ALTER TABLE `" + database + "`.t ADD COLUMN b INT NOT NULL DEFAULT 5",
          "INSERT INTO `" + database + "`.t (id, a, b) VALUES (5000, 1, 2)");
      kill(sync);
      assertThat(StateDirectory.local(data.resolve("sync/crash-test")).latestRestorePoint())
          .as("no binlog checkpoint before the kill")
          .isEmpty();

      refusedThenRecovered(catalog);
    } finally {
      kill(sync);
    }
  }

  private void refusedThenRecovered(FloeCatalog catalog) throws Exception {
    SyncOptions options = SyncProcess.options(data, url, database, 1000, 0, Duration.ofSeconds(1));
    SyncRunner runner = new SyncRunner(catalog, new MySqlConnections(Duration.ofSeconds(10)));
    Map<String, Long> stateBefore = state();
    String tBefore = lake(catalog, "t").uuid().toString();

    assertThatThrownBy(() -> runner.start(options))
        .isInstanceOf(FloeException.class)
        .satisfies(
            e -> assertThat(((FloeException) e).category()).isEqualTo(ErrorCategory.BAD_INPUT))
        .hasMessageContaining("MySQL table " + database + ".t was altered")
        .hasMessageContaining("--resnapshot")
        .hasMessageNotContaining(database + ".u");
    assertThat(state()).as("the sync's state is as it was").isEqualTo(stateBefore);
    assertThat(lake(catalog, "t").uuid().toString()).isEqualTo(tBefore);

    try (RunningSync resnapshot = runner.resnapshot(options, List.of())) {
      awaitEqual(catalog, "t");
      awaitEqual(catalog, "u");
      assertThat(lake(catalog, "t").schema().columns())
          .extracting(Types.NestedField::name)
          .contains("b");
      server.execute(
          "UPDATE `" + database + "`.t SET b = 9 WHERE id <= 10",
          "DELETE FROM `" + database + "`.u WHERE id <= 5");
      awaitEqual(catalog, "t");
      awaitEqual(catalog, "u");
      resnapshot.stop(Duration.ofSeconds(60));
    }
  }

  private void awaitEqual(FloeCatalog catalog, String table) throws Exception {
    Poll.untilNothingWrong(
        database + "." + table + " equal in MySQL and Iceberg",
        DEADLINE,
        Duration.ofMillis(500),
        () -> {
          Table lake = lake(catalog, table);
          return lake == null
              ? java.util.Optional.of("not in the lake")
              : LakeComparison.difference(server, database, table, lake);
        });
  }

  private Table lake(FloeCatalog catalog, String table) {
    TableIdentifier identifier = TableIdentifier.of(database, table);
    return catalog.catalog().tableExists(identifier)
        ? catalog.catalog().loadTable(identifier)
        : null;
  }

  private static boolean copied(Table table) {
    if (table == null) {
      return false;
    }
    table.refresh();
    for (Snapshot snapshot : table.snapshots()) {
      if ("true".equals(snapshot.summary().get(SyncSummary.SNAPSHOT_COMPLETE))) {
        return true;
      }
    }
    return false;
  }

  private static void kill(Process sync) throws InterruptedException {
    sync.destroyForcibly();
    assertThat(sync.waitFor(30, TimeUnit.SECONDS)).as("the killed sync ends").isTrue();
  }

  /** Every file of the sync's state directory with its size and modification time. */
  private Map<String, Long> state() throws Exception {
    Path state = data.resolve("sync/crash-test");
    Map<String, Long> files = new TreeMap<>();
    try (Stream<Path> walk = Files.walk(state)) {
      for (Path file : walk.filter(Files::isRegularFile).toList()) {
        files.put(
            state.relativize(file).toString(),
            Files.size(file) * 31 + Files.getLastModifiedTime(file).toMillis());
      }
    }
    return files;
  }
}

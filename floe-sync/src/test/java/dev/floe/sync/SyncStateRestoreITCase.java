package dev.floe.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.floe.core.config.CatalogSettings;
import dev.floe.core.error.FloeException;
import dev.floe.core.sync.SyncSummary;
import dev.floe.iceberg.CatalogFactory;
import dev.floe.iceberg.FloeCatalog;
import dev.floe.mysql.MySqlConnections;
import dev.floe.testing.MariaDbServer;
import dev.floe.testing.Poll;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A checkpoint and a savepoint written by an earlier state version ({@link SyncStateFixture}) are
 * restored by this code: the commits of their checkpoint are undone first (as if the sync died
 * between "checkpoint complete" and its commit), so the restored committer state must land its
 * files again; then the sync goes on with new changes and ends row for row equal to MySQL, with no
 * duplicate key.
 */
class SyncStateRestoreITCase {

  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  @ParameterizedTest(name = "{0} {1}")
  @CsvSource({
    "v0, checkpoint",
    "v0, savepoint",
    "v1, checkpoint",
    "v1, savepoint",
    "v2, checkpoint",
    "v2, savepoint"
  })
  void restoresTheStateOfAnEarlierVersion(String version, String kind) throws Exception {
    Properties fixture = properties(version);
    Map<String, List<String>> script = SyncStateFixture.script();
    try (FileLock lock = SyncStateFixture.lockRoot();
        MariaDbServer server = MariaDbServer.builder().start()) {
      SyncStateFixture.clearRoot();
      SyncStateFixture.unzipToRoot(version + "/" + kind + ".zip");
      for (String section : SyncStateFixture.FIXTURE_SECTIONS) {
        script.get(section).forEach(server::execute);
      }
      assertThat(SyncStateFixture.binlogHead(server))
          .as("the binlog the fixture's source offsets point into (source.sql replayed)")
          .isEqualTo(fixture.getProperty("binlog-head"));
      long checkpointId = Long.parseLong(fixture.getProperty(kind + ".id"));
      assertThat(
              SyncStateFixture.committerStateVersion(
                  SyncStateFixture.ROOT.resolve(fixture.getProperty(kind + ".path"))))
          .as("the committer state version in the %s fixture", version)
          .contains(Integer.parseInt(version.substring(1)));
      try (FloeCatalog catalog =
          new CatalogFactory().open(CatalogSettings.embedded(), SyncStateFixture.data())) {
        assertThat(SyncStateFixture.mysqlRows(server, catalog))
            .isEqualTo(SyncStateFixture.resourceText(version + "/expected-rows.txt"));
        assertThat(undoCommitsFrom(catalog, checkpointId))
            .as("commits of checkpoint %s undone", checkpointId)
            .isPositive();
        assertThat(SyncStateFixture.commitsFrom(catalog, checkpointId)).isZero();

        try (RunningSync sync =
            new SyncRunner(catalog, new MySqlConnections(Duration.ofSeconds(10)))
                .start(SyncStateFixture.options(server))) {
          assertThat(sync.restoredFrom())
              .contains(
                  SyncStateFixture.ROOT.resolve(fixture.getProperty(kind + ".path")).toString());
          awaitEqual(server, catalog);
          assertThat(SyncStateFixture.commits(catalog, id -> id == checkpointId))
              .as("checkpoint %s committed again from the restored state", checkpointId)
              .isPositive();
          script.get(SyncStateFixture.AFTER_RESTORE).forEach(server::execute);
          awaitEqual(server, catalog);
        }
      }
    }
  }

  /**
   * A checkpoint whose committer state is of a newer version than this Floe reads stops the sync
   * before anything runs, naming the checkpoint and both versions; the checkpoint stays.
   */
  @Test
  void refusesCommitterStateOfANewerVersion() throws Exception {
    Properties fixture = properties("v1");
    try (FileLock lock = SyncStateFixture.lockRoot();
        MariaDbServer server = MariaDbServer.builder().start()) {
      SyncStateFixture.clearRoot();
      SyncStateFixture.unzipToRoot("v1/checkpoint.zip");
      SyncStateFixture.script().get("create").forEach(server::execute);
      Path checkpoint = SyncStateFixture.ROOT.resolve(fixture.getProperty("checkpoint.path"));
      assertThat(bumpCommitterStateVersion(checkpoint)).as("committer state found").isTrue();
      try (FloeCatalog catalog =
          new CatalogFactory().open(CatalogSettings.embedded(), SyncStateFixture.data())) {
        SyncRunner runner = new SyncRunner(catalog, new MySqlConnections(Duration.ofSeconds(10)));
        assertThatThrownBy(() -> runner.start(SyncStateFixture.options(server)))
            .isInstanceOf(FloeException.class)
            .hasMessageStartingWith(
                "Cannot read the sync's checkpoint "
                    + checkpoint
                    + " (the committer state in this checkpoint has state version "
                    + (CommitterStateSerializer.VERSION + 1)
                    + "; this Floe reads versions 0 to "
                    + CommitterStateSerializer.VERSION
                    + ". Restore it with the Floe that wrote it (or a newer one).). Nothing was"
                    + " changed.");
      }
      assertThat(checkpoint.resolve("_metadata")).exists();
    }
  }

  /**
   * Rewrites the version after the committer state's magic from 1 to one newer than this Floe
   * reads, in place.
   */
  private static boolean bumpCommitterStateVersion(Path checkpoint) throws IOException {
    byte[] marker = {0x46, 0x4C, 0x43, 0x53, 0, 0, 0, 1};
    try (java.util.stream.Stream<Path> files = Files.list(checkpoint)) {
      for (Path file : files.toList()) {
        byte[] bytes = Files.readAllBytes(file);
        for (int i = 0; i + marker.length <= bytes.length; i++) {
          if (Arrays.equals(bytes, i, i + marker.length, marker, 0, marker.length)) {
            bytes[i + 7] = (byte) (CommitterStateSerializer.VERSION + 1);
            Files.write(file, bytes);
            return true;
          }
        }
      }
    }
    return false;
  }

  /**
   * Rolls every table back to before its first commit at or after the checkpoint; returns how many
   * commits that removed.
   */
  private static int undoCommitsFrom(FloeCatalog catalog, long checkpointId) {
    int undone = 0;
    for (String name : SyncStateFixture.TABLES) {
      Table table =
          catalog.catalog().loadTable(TableIdentifier.of(SyncStateFixture.DATABASE, name));
      Snapshot current = table.currentSnapshot();
      while (current != null && atOrAfter(current, checkpointId)) {
        current = table.snapshot(current.parentId());
        undone++;
      }
      if (current != null && current.snapshotId() != table.currentSnapshot().snapshotId()) {
        table.manageSnapshots().rollbackTo(current.snapshotId()).commit();
      }
    }
    return undone;
  }

  private static boolean atOrAfter(Snapshot snapshot, long checkpointId) {
    String checkpoint = snapshot.summary().get(SyncSummary.CHECKPOINT_ID);
    return checkpoint != null && Long.parseLong(checkpoint) >= checkpointId;
  }

  private static void awaitEqual(MariaDbServer server, FloeCatalog catalog) throws Exception {
    String[] difference = {""};
    try {
      Poll.until(
          "the lake equals MySQL",
          TIMEOUT,
          Duration.ofMillis(300),
          () -> {
            difference[0] = SyncStateFixture.difference(server, catalog).orElse("");
            return difference[0].isEmpty();
          });
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "; " + difference[0], e);
    }
  }

  private static Properties properties(String version) {
    Properties properties = new Properties();
    try (InputStream in = SyncStateFixture.resource(version + "/fixture.properties")) {
      properties.load(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return properties;
  }
}

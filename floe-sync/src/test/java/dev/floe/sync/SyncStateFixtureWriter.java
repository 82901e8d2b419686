package dev.floe.sync;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.core.config.CatalogSettings;
import dev.floe.iceberg.CatalogFactory;
import dev.floe.iceberg.FloeCatalog;
import dev.floe.mysql.MySqlConnections;
import dev.floe.testing.MariaDbServer;
import dev.floe.testing.Poll;
import java.io.OutputStream;
import java.net.URI;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Writes the sync-state fixtures of the current state version into {@code
 * src/test/resources/sync-state/VERSION/} (see docs/sync.md, "State format"):
 *
 * <pre>
 * mvn -B -q -pl floe-sync -am test -Dfloe.tests=all -Dtest='SyncStateFixtureWriter' \
 *     -Dsurefire.failIfNoSpecifiedTests=false -Dfloe.sync-state.write=v1
 * </pre>
 *
 * <p>On a fresh MariaDB server it runs {@code source.sql}: the copy, binlog changes, then a stream
 * of updates during which the sync is cancelled (its newest retained checkpoint becomes {@code
 * checkpoint.zip}), restarted from that checkpoint, and stopped with a savepoint during a second
 * stream ({@code savepoint.zip}). Both were taken while changes flowed, so their committer state
 * holds files; the writer checks that those checkpoints were committed, which the restore test
 * undoes to make the restored state commit them again.
 */
@Tag("slow")
class SyncStateFixtureWriter {

  static final String VERSION_PROPERTY = "floe.sync-state.write";
  private static final Duration TIMEOUT = Duration.ofSeconds(90);

  @FunctionalInterface
  private interface Action {
    void run() throws Exception;
  }

  @Test
  void write() throws Exception {
    String version = System.getProperty(VERSION_PROPERTY, "");
    Assumptions.assumeFalse(version.isEmpty(), "writes fixtures only with -D" + VERSION_PROPERTY);
    Path output = Path.of("src/test/resources", SyncStateFixture.RESOURCES, version);
    Map<String, List<String>> script = SyncStateFixture.script();
    Properties fixture = new Properties();
    fixture.setProperty("state-version", version);
    try (FileLock lock = SyncStateFixture.lockRoot();
        MariaDbServer server = MariaDbServer.builder().start()) {
      SyncStateFixture.clearRoot();
      SyncOptions options = SyncStateFixture.options(server);
      run(server, script.get("create"));

      Path checkpoint;
      try (FloeCatalog catalog = open()) {
        RunningSync sync = runner(catalog).start(options);
        awaitEqual(server, catalog);
        run(server, script.get("binlog"));
        awaitEqual(server, catalog);
        trickle(server, script.get("before-checkpoint"), () -> sync.cancel(TIMEOUT));
        checkpoint = newestCheckpoint();
        long id = SyncStateFixture.checkpointId(checkpoint);
        assertThat(SyncStateFixture.commitsFrom(catalog, id))
            .as("commits of checkpoint %s, the last before the cancel (run again if none)", id)
            .isPositive();
        fixture.setProperty("checkpoint.id", Long.toString(id));
        fixture.setProperty("checkpoint.path", SyncStateFixture.ROOT.relativize(checkpoint) + "");
      }
      String checkpointEntries = SyncStateFixture.ROOT.relativize(checkpoint) + "/";
      SyncStateFixture.zipRoot(
          output.resolve("checkpoint.zip"),
          name -> restorePointFree(name) || name.startsWith(checkpointEntries));

      Path savepoint;
      try (FloeCatalog catalog = open()) {
        RunningSync sync = runner(catalog).start(options);
        assertThat(sync.restoredFrom()).contains(checkpoint.toString());
        awaitEqual(server, catalog);
        String[] stopped = new String[1];
        trickle(server, script.get("before-savepoint"), () -> stopped[0] = sync.stop(TIMEOUT));
        savepoint = Path.of(URI.create(stopped[0].substring("savepoint ".length())));
        long id = SyncStateFixture.checkpointId(savepoint);
        assertThat(SyncStateFixture.commitsFrom(catalog, id))
            .as("commits of savepoint %s (run again if none)", id)
            .isPositive();
        fixture.setProperty("savepoint.id", Long.toString(id));
        fixture.setProperty("savepoint.path", SyncStateFixture.ROOT.relativize(savepoint) + "");
      }
      String savepointEntries = SyncStateFixture.ROOT.relativize(savepoint) + "/";
      SyncStateFixture.zipRoot(
          output.resolve("savepoint.zip"),
          name -> restorePointFree(name) || name.startsWith(savepointEntries));

      fixture.setProperty("binlog-head", SyncStateFixture.binlogHead(server));
      try (FloeCatalog catalog = open()) {
        Files.writeString(
            output.resolve("expected-rows.txt"), SyncStateFixture.mysqlRows(server, catalog));
      }
      try (OutputStream out = Files.newOutputStream(output.resolve("fixture.properties"))) {
        fixture.store(out, "written by SyncStateFixtureWriter; see docs/sync.md, State format");
      }
      Files.writeString(
          output.resolve("README.md"),
          "Sync-state fixture "
              + version
              + ": committer state version "
              + CommitterStateSerializer.VERSION
              + ", written by SyncStateFixtureWriter (docs/sync.md, \"State format\"); add the"
              + " commit it was written at.\n",
          StandardCharsets.UTF_8);
    }
  }

  /** Everything but checkpoints, savepoints and job jars. */
  private static boolean restorePointFree(String name) {
    String state = SyncStateFixture.ROOT.relativize(SyncStateFixture.stateDirectory()) + "/";
    return !(name.startsWith(state + "checkpoints/")
        || name.startsWith(state + "savepoints/")
        || name.startsWith(state + "job-jars/"));
  }

  private static Path newestCheckpoint() throws Exception {
    try (Stream<Path> files =
        Files.walk(SyncStateFixture.stateDirectory().resolve("checkpoints"), 2)) {
      return files
          .filter(path -> path.getFileName().toString().startsWith("chk-"))
          .filter(path -> Files.exists(path.resolve("_metadata")))
          .max(
              Comparator.comparingLong(
                  path -> Long.parseLong(path.getFileName().toString().substring(4))))
          .orElseThrow(() -> new AssertionError("no retained checkpoint after the cancel"));
    }
  }

  private static FloeCatalog open() {
    return new CatalogFactory().open(CatalogSettings.embedded(), SyncStateFixture.data());
  }

  private static SyncRunner runner(FloeCatalog catalog) {
    return new SyncRunner(catalog, new MySqlConnections(Duration.ofSeconds(10)));
  }

  private static void run(MariaDbServer server, List<String> statements) {
    for (String statement : statements) {
      server.execute(statement);
    }
  }

  private static void awaitEqual(MariaDbServer server, FloeCatalog catalog) throws Exception {
    Poll.until(
        "the lake equals MySQL",
        TIMEOUT,
        Duration.ofMillis(300),
        () -> SyncStateFixture.difference(server, catalog).isEmpty());
  }

  /**
   * Runs the statements at a steady pace on another thread and, once half of them ran, the action
   * (a cancel or a stop), while the rest keep flowing.
   */
  private static void trickle(MariaDbServer server, List<String> statements, Action action)
      throws Exception {
    AtomicInteger done = new AtomicInteger();
    CompletableFuture<Void> writes =
        CompletableFuture.runAsync(
            () -> {
              for (String statement : statements) {
                server.execute(statement);
                done.incrementAndGet();
                try {
                  Thread.sleep(100); // the pace of the write stream, not a wait for a condition
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                  return;
                }
              }
            });
    Poll.until(
        "half of the statements ran",
        TIMEOUT,
        Duration.ofMillis(20),
        () -> done.get() >= statements.size() / 2 || writes.isDone());
    action.run();
    writes.get();
  }
}

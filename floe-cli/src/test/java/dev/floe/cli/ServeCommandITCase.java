package dev.floe.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.floe.core.config.CatalogSettings;
import dev.floe.core.optimize.OptimizePolicy;
import dev.floe.iceberg.CatalogFactory;
import dev.floe.iceberg.FloeCatalog;
import dev.floe.iceberg.optimize.UpsertTables;
import dev.floe.iceberg.optimize.UpsertWriter;
import dev.floe.iceberg.optimize.UpsertWriter.Change;
import dev.floe.testing.Poll;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code floe serve} as a user runs it: its own JVM from the CLI's main class, on the embedded
 * catalog of a data directory, killed with SIGKILL in the middle of a rewrite and started again.
 */
class ServeCommandITCase {

  private static final Duration WITHIN = FloeProcess.WITHIN;
  private static final String TABLE = "db.events";

  @TempDir Path directory;

  private final FloeProcess floe = new FloeProcess();

  @AfterEach
  void stopProcesses() throws InterruptedException {
    floe.close();
  }

  @Test
  void aKilledKeeperRestartsWithNothingStuckOrLostAndFinishesTheRewrite() throws Exception {
    Map<Long, String> expected = writeManySmallFiles(directory);
    Path config = directory.resolve("floe.yaml");
    Files.writeString(
        config,
        "keeper:\n  refresh-interval-seconds: 1\n  optimizer:\n    threads: 1\n",
        StandardCharsets.UTF_8);
    int port = FloeProcess.freePort();

    Process first =
        floe.serve(config, directory.resolve("data"), port, directory.resolve("serve-1.log"));
    Poll.until(
        TABLE + " is being rewritten",
        WITHIN,
        Duration.ofMillis(20),
        () -> state(port).map(entry -> entry.get("state").asText()).orElse("").equals("running"));
    first.destroyForcibly(); // SIGKILL: no shutdown hook, the lease and the running state remain
    assertThat(first.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(first.exitValue()).isEqualTo(137);

    Process second =
        floe.serve(config, directory.resolve("data"), port, directory.resolve("serve-2.log"));
    floe.awaitCompacted(
        port, TABLE, "compacted after the restart", directory.resolve("serve-2.log"));
    JsonNode detail = floe.get(port, "/api/v1/tables/" + TABLE);
    assertThat(detail.get("consecutive_failures").asInt()).isZero();
    assertThat(detail.get("last_error").isNull()).isTrue();
    List<String> results = new ArrayList<>();
    detail.get("runs").forEach(run -> results.add(run.get("result").asText()));
    assertThat(results).as(detail.toString()).contains("succeeded");

    // SIGTERM stops it cleanly.
    second.destroy();
    assertThat(second.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(second.exitValue()).isZero();
    assertThat(Files.readString(directory.resolve("serve-2.log"))).contains("Stopped.");

    try (FloeCatalog catalog =
        new CatalogFactory().open(CatalogSettings.embedded(), directory.resolve("data"))) {
      Table table = catalog.catalog().loadTable(TableIdentifier.parse(TABLE));
      assertThat(UpsertTables.read(table)).isEqualTo(expected);
    }
  }

  /**
   * 40 small files of 5,000 rows and 10 upsert commits (equality deletes) over four partitions: a
   * rewrite of several seconds, so the test can kill the keeper in the middle of it.
   */
  static Map<Long, String> writeManySmallFiles(Path directory) {
    try (FloeCatalog catalog =
        new CatalogFactory().open(CatalogSettings.embedded(), directory.resolve("data"))) {
      Table table =
          UpsertTables.create(
              catalog.catalog(),
              "events",
              UpsertTables.PARTITIONED,
              Map.of(OptimizePolicy.TARGET_FILE_SIZE_BYTES, String.valueOf(64L << 20)));
      UpsertWriter writer = new UpsertWriter(table);
      String padding = "x".repeat(200);
      for (int file = 0; file < 40; file++) {
        List<Change> changes = new ArrayList<>();
        for (long id = file * 5_000L; id < (file + 1) * 5_000L; id++) {
          changes.add(Change.upsert(id, padding + id));
        }
        writer.append(changes);
      }
      for (int commit = 0; commit < 10; commit++) {
        List<Change> changes = new ArrayList<>();
        for (long id = commit; id < 200_000; id += 1_000) {
          changes.add(commit % 3 == 0 ? Change.delete(id) : Change.upsert(id, "u" + commit));
        }
        writer.commit(changes);
      }
      return writer.expected();
    }
  }

  private Optional<JsonNode> state(int port) throws Exception {
    return floe.table(port, TABLE);
  }
}

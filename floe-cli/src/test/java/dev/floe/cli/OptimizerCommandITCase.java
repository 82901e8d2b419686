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
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.ManifestContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code floe optimizer} worker processes serving a {@code floe serve} whose only worker group is
 * external: every rewrite happens in a worker process, the keeper commits.
 */
class OptimizerCommandITCase {

  private static final String TABLE = "db.events";

  @TempDir Path directory;

  private final FloeProcess floe = new FloeProcess();

  @AfterEach
  void stopProcesses() throws InterruptedException {
    floe.close();
  }

  @Test
  void aKilledWorkersTaskGoesToTheNextWorkerAndEveryRowStays() throws Exception {
    Map<Long, String> expected = ServeCommandITCase.writeManySmallFiles(directory);
    int port = FloeProcess.freePort();
    Path serveLog = directory.resolve("serve.log");
    serve(port, serveLog, "");

    Process first = worker(port, directory.resolve("worker-1.log"));
    Poll.until(
        "the first worker is rewriting a task",
        FloeProcess.WITHIN,
        Duration.ofMillis(20),
        () -> runningTasks(port) > 0);
    first.destroyForcibly(); // SIGKILL in the middle of a rewrite
    assertThat(first.waitFor(30, TimeUnit.SECONDS)).isTrue();
    Poll.until(
        "worker_lost raised",
        Duration.ofSeconds(30),
        Duration.ofMillis(100),
        () -> kinds(port).contains("worker_lost"));
    assertThat(floe.get(port, "/api/v1/workers").get("workers")).isEmpty();

    Path secondLog = directory.resolve("worker-2.log");
    Process second = worker(port, secondLog);
    floe.awaitCompacted(port, TABLE, "compacted by the second worker", serveLog);
    JsonNode workers = floe.get(port, "/api/v1/workers");
    assertThat(workers.get("groups")).hasSize(1);
    JsonNode group = workers.get("groups").get(0);
    assertThat(group.get("name").asText()).isEqualTo("remote");
    assertThat(group.get("kind").asText()).isEqualTo("external");
    assertThat(group.get("target").asInt()).isEqualTo(1);
    assertThat(group.get("live").asInt()).isEqualTo(1);
    JsonNode worker = workers.get("workers").get(0);
    assertThat(worker.get("pid").asLong()).isEqualTo(second.pid());
    assertThat(worker.get("completed_tasks").asInt()).isPositive();
    assertThat(kinds(port).stream().filter("worker_started"::equals).count()).isEqualTo(2);
    assertThat(floe.get(port, "/api/v1/tables/" + TABLE).get("consecutive_failures").asInt())
        .isZero();

    second.destroy(); // SIGTERM: hands back what it holds and deregisters
    assertThat(second.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(second.exitValue()).as(Files.readString(secondLog)).isZero();
    assertThat(Files.readString(secondLog)).contains("Stopped;");
    Poll.until(
        "the stopped worker deregistered",
        Duration.ofSeconds(30),
        Duration.ofMillis(100),
        () -> floe.get(port, "/api/v1/workers").get("workers").isEmpty());

    try (FloeCatalog catalog =
        new CatalogFactory().open(CatalogSettings.embedded(), directory.resolve("data"))) {
      assertThat(UpsertTables.read(catalog.catalog().loadTable(TableIdentifier.parse(TABLE))))
          .isEqualTo(expected);
    }
  }

  @Test
  void aWorkerWhoseRewriteThrowsFailsItsTaskAndNothingStaysLeased() throws Exception {
    try (FloeCatalog catalog =
        new CatalogFactory().open(CatalogSettings.embedded(), directory.resolve("data"))) {
      // Written and corrupted while optimize is off for it, so nothing compacts the file away
      // first; then turned on.
      Table table =
          UpsertTables.create(
              catalog.catalog(),
              "broken",
              PartitionSpec.unpartitioned(),
              Map.of(
                  OptimizePolicy.ENABLED, "false",
                  OptimizePolicy.RETRY_BACKOFF_MS, "100",
                  OptimizePolicy.RETRY_MAX_BACKOFF_MS, "200"));
      UpsertWriter writer = new UpsertWriter(table);
      for (int commit = 0; commit < 15; commit++) {
        List<Change> changes = new ArrayList<>();
        for (long id = commit * 100L; id < commit * 100L + 100; id++) {
          changes.add(Change.upsert(id, "v" + id));
        }
        writer.append(changes);
      }
      try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
        Path file = Path.of(URI.create(tasks.iterator().next().file().location()));
        Files.writeString(file, "not parquet", StandardCharsets.UTF_8);
      }
      table.updateProperties().set(OptimizePolicy.ENABLED, "true").commit();
    }
    int port = FloeProcess.freePort();
    Path serveLog = directory.resolve("serve.log");
    serve(port, serveLog, "  quarantine-after-failures: 2");
    Path workerLog = directory.resolve("worker.log");
    Process worker = worker(port, workerLog);

    Poll.until(
        "db.broken quarantined after the worker's failures",
        FloeProcess.WITHIN,
        Duration.ofMillis(100),
        () ->
            floe.table(port, "db.broken")
                .filter(entry -> entry.get("state").asText().equals("quarantined"))
                .isPresent());

    JsonNode broken = floe.table(port, "db.broken").orElseThrow();
    assertThat(broken.get("consecutive_failures").asInt()).isEqualTo(2);
    assertThat(broken.get("last_error").asText()).contains("rewrite failed");
    assertThat(kinds(port)).contains("optimize_failed", "table_quarantined");
    // The worker reported its failures and lives on, holding nothing.
    assertThat(worker.isAlive()).isTrue();
    JsonNode workers = floe.get(port, "/api/v1/workers").get("workers");
    assertThat(workers).hasSize(1);
    assertThat(workers.get(0).get("running_tasks").asInt()).isZero();
    assertThat(floe.text(port, "/metrics")).contains("floe_queue_leased_tasks 0.0");
    assertThat(Files.readString(workerLog))
        .contains("rewriting task")
        .contains("of floe.db.broken failed: ")
        .contains("is not a Parquet file")
        // one line per warning, no stack traces without --verbose
        .doesNotContain("\tat org.apache");
  }

  @Test
  void aKeeperRestartedUnderARunningWorkerIsRejoinedAndNothingIsCommittedTwice() throws Exception {
    Map<Long, String> expected = ServeCommandITCase.writeManySmallFiles(directory);
    int port = FloeProcess.freePort();
    Process first = serve(port, directory.resolve("serve-1.log"), "");
    Path workerLog = directory.resolve("worker.log");
    Process worker = worker(port, workerLog);
    Poll.until(
        "the worker is rewriting a task",
        FloeProcess.WITHIN,
        Duration.ofMillis(20),
        () -> runningTasks(port) > 0);

    first.destroyForcibly(); // SIGKILL of the keeper while the worker rewrites
    assertThat(first.waitFor(30, TimeUnit.SECONDS)).isTrue();
    Path secondLog = directory.resolve("serve-2.log");
    serve(port, secondLog, "");

    Poll.until(
        "the worker registered with the new keeper",
        Duration.ofSeconds(90),
        Duration.ofMillis(100),
        () -> floe.get(port, "/api/v1/workers").get("workers").size() == 1);
    floe.awaitCompacted(port, TABLE, "compacted after the restart", workerLog);
    JsonNode workers = floe.get(port, "/api/v1/workers").get("workers");
    assertThat(workers).hasSize(1);
    assertThat(workers.get(0).get("pid").asLong()).isEqualTo(worker.pid());
    assertThat(worker.isAlive()).isTrue();

    try (FloeCatalog catalog =
        new CatalogFactory().open(CatalogSettings.embedded(), directory.resolve("data"))) {
      Table table = catalog.catalog().loadTable(TableIdentifier.parse(TABLE));
      assertThat(UpsertTables.read(table)).isEqualTo(expected);
      // A result the old keeper never committed is dropped with its files: every file on disk
      // belongs to a snapshot.
      assertThat(filesOnDisk(table)).isSubsetOf(referencedFiles(table));
    }
  }

  private Process serve(int port, Path log, String extraKeeperLine) throws Exception {
    Path config = directory.resolve("floe.yaml");
    List<String> lines = new ArrayList<>();
    lines.add("keeper:");
    lines.add("  refresh-interval-seconds: 1");
    if (!extraKeeperLine.isEmpty()) {
      lines.add(extraKeeperLine);
    }
    lines.addAll(
        List.of(
            "  optimizer:",
            "    lease-timeout: 3s",
            "    groups:",
            "      - { name: remote, kind: external, target: 1 }",
            ""));
    Files.writeString(config, String.join("\n", lines), StandardCharsets.UTF_8);
    return floe.serve(config, directory.resolve("data"), port, log);
  }

  private static Set<Path> filesOnDisk(Table table) throws Exception {
    try (Stream<Path> files = Files.walk(Path.of(URI.create(table.location())).resolve("data"))) {
      return files.filter(path -> path.toString().endsWith(".parquet")).collect(Collectors.toSet());
    }
  }

  private static Set<Path> referencedFiles(Table table) throws Exception {
    Set<Path> paths = new HashSet<>();
    for (Snapshot snapshot : table.snapshots()) {
      for (ManifestFile manifest : snapshot.allManifests(table.io())) {
        if (manifest.content() == ManifestContent.DATA) {
          try (CloseableIterable<DataFile> files = ManifestFiles.read(manifest, table.io())) {
            files.forEach(file -> paths.add(Path.of(URI.create(file.location()))));
          }
        } else {
          try (CloseableIterable<DeleteFile> files =
              ManifestFiles.readDeleteManifest(manifest, table.io(), table.specs())) {
            files.forEach(file -> paths.add(Path.of(URI.create(file.location()))));
          }
        }
      }
    }
    return paths;
  }

  private Process worker(int port, Path log) throws Exception {
    Process worker =
        floe.start(
            log,
            List.of(
                "--data-dir",
                directory.resolve("worker-data").toString(),
                "optimizer",
                "--server",
                "http://127.0.0.1:" + port,
                "--group",
                "remote"));
    FloeProcess.awaitOutput(worker, log, "Optimizer worker for");
    return worker;
  }

  private int runningTasks(int port) throws Exception {
    int running = 0;
    for (JsonNode worker : floe.get(port, "/api/v1/workers").get("workers")) {
      running += worker.get("running_tasks").asInt();
    }
    return running;
  }

  private List<String> kinds(int port) throws Exception {
    List<String> kinds = new ArrayList<>();
    floe.get(port, "/api/v1/events?limit=1000")
        .get("events")
        .forEach(event -> kinds.add(event.get("kind").asText()));
    return kinds;
  }
}

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
import dev.floe.testing.ChromiumBrowser;
import dev.floe.testing.FlinkCluster;
import dev.floe.testing.Poll;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.chrome.ChromeDriver;

/**
 * A {@code flink} worker group on a real Flink standalone cluster (JobManager and TaskManagers in
 * their own JVMs, with no Floe jars): {@code floe serve} submits the worker job, its workers
 * compact a table, the job is cancelled from outside and the keeper submits it again, the next task
 * completes on the new job, and a TaskManager killed under a worker is recovered (the keeper
 * forgets the worker, Flink runs it again on the spare TaskManager). The keeper has an API token;
 * the workers use the worker token. The dashboard's Workers page shows the group's job as Flink
 * reports it.
 */
class OptimizerOnFlinkClusterITCase {

  private static final String TABLE = "db.events";
  private static final String TOKEN = "flink-test-token";

  @TempDir Path directory;

  private final FloeProcess floe = new FloeProcess(Optional.of(TOKEN));
  private final HttpClient http = HttpClient.newHttpClient();

  @AfterEach
  void stopProcesses() throws InterruptedException {
    floe.close();
  }

  @Test
  void theKeeperSubmitsTheWorkerJobAndSubmitsItAgainWhenItIsCancelled() throws Exception {
    Path data = directory.resolve("data");
    // The table is written while the cluster starts.
    CompletableFuture<Map<Long, String>> written =
        CompletableFuture.supplyAsync(() -> writeSmallFiles(data, 0));
    try (FlinkCluster cluster =
        FlinkCluster.builder()
            .taskManagers(3) // the job takes two slots; the third TaskManager is the spare
            .slotsPerTaskManager(1)
            .set("heartbeat.interval", "1000") // a killed TaskManager is noticed within 5 s
            .set("heartbeat.timeout", "5000")
            .start()) {
      Map<Long, String> expected = new HashMap<>(written.join());
      int port = FloeProcess.freePort();
      Path config = directory.resolve("floe.yaml");
      Files.writeString(
          config,
          String.join(
              "\n",
              "keeper:",
              "  api-token: " + TOKEN,
              "  refresh-interval-seconds: 1",
              "  optimizer:",
              "    lease-timeout: 5s",
              "    capacity-grace: 1s",
              "    groups:",
              "      - { name: cluster, kind: flink, target: 2, flink: "
                  + cluster.restAddress()
                  + " }",
              ""),
          StandardCharsets.UTF_8);
      Path log = directory.resolve("serve.log");
      Process serve = floe.serve(config, data, port, log);

      JsonNode first = awaitJobWithWorkers(port, Optional.empty(), log);
      floe.awaitCompacted(port, TABLE, "compacted by the Flink workers", log);
      assertThat(completedTasks(port)).isPositive();

      String firstId = first.get("id").asText();
      HttpResponse<String> cancelled =
          http.send(
              HttpRequest.newBuilder(
                      URI.create(cluster.restUrl() + "/jobs/" + firstId + "?mode=cancel"))
                  .method("PATCH", HttpRequest.BodyPublishers.noBody())
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(cancelled.statusCode()).as(cancelled.body()).isEqualTo(202);

      // Written while the job is submitted again: only the new job's workers can take these tasks.
      Instant cancelledAt = Instant.now();
      expected.putAll(writeSmallFiles(data, 1_000_000)); // keys apart from the first ones
      JsonNode second = awaitJobWithWorkers(port, Optional.of(firstId), log);
      assertThat(second.get("name").asText()).isEqualTo(first.get("name").asText());
      assertThat(jobStates(cluster))
          .containsEntry(firstId, "CANCELED")
          .containsEntry(second.get("id").asText(), "RUNNING")
          .hasSize(2);

      assertWorkersPageShows(port, second.get("id").asText());

      JsonNode run =
          Poll.until(
              "an optimize run of " + TABLE + " started after the job was cancelled",
              FloeProcess.WITHIN,
              Duration.ofMillis(100),
              () -> optimizeRunSince(port, cancelledAt));
      assertThat(run.get("result").asText()).as(run.toString()).isEqualTo("succeeded");
      assertThat(completedTasks(port)).as("tasks completed by the new job's workers").isPositive();
      assertThat(floe.table(port, TABLE).orElseThrow().get("consecutive_failures").asInt())
          .isZero();

      // A TaskManager killed under a worker: the keeper forgets that worker, and Flink runs it
      // again
      // on the spare TaskManager.
      long workerPid = floe.get(port, "/api/v1/workers").get("workers").get(0).get("pid").asLong();
      FlinkCluster.TaskManager victim =
          cluster.taskManagers().stream()
              .filter(taskManager -> taskManager.pid() == workerPid)
              .findFirst()
              .orElseThrow();
      cluster.kill(victim);
      Poll.until(
          "worker_lost for the worker of the killed TaskManager",
          Duration.ofSeconds(60),
          Duration.ofMillis(200),
          () ->
              messages(port, "worker_lost").stream()
                  .anyMatch(m -> m.contains("(pid " + workerPid + ")")));
      Poll.until(
          "two workers live again, none on the killed TaskManager",
          Duration.ofSeconds(90),
          Duration.ofMillis(200),
          () -> {
            JsonNode workers = floe.get(port, "/api/v1/workers");
            boolean onVictim = false;
            for (JsonNode worker : workers.get("workers")) {
              onVictim |= worker.get("pid").asLong() == workerPid;
            }
            return workers.get("groups").get(0).get("live").asInt() == 2 && !onVictim;
          });

      serve.destroy(); // SIGTERM: the keeper cancels its job; the workers hand their tasks back
      assertThat(serve.waitFor(90, TimeUnit.SECONDS)).isTrue();
      assertThat(serve.exitValue()).as(Files.readString(log)).isZero();
      assertThat(jobStates(cluster))
          .as("every job of the group ended when the keeper stopped")
          .allSatisfy((id, state) -> assertThat(state).isEqualTo("CANCELED"));
      try (FloeCatalog catalog = new CatalogFactory().open(CatalogSettings.embedded(), data)) {
        assertThat(UpsertTables.read(catalog.catalog().loadTable(TableIdentifier.parse(TABLE))))
            .isEqualTo(expected);
      }
    }
  }

  /**
   * Small files of keys from {@code base} (the table is created first when there is none), then
   * deletes and updates in later commits; returns the rows written.
   */
  private static Map<Long, String> writeSmallFiles(Path data, long base) {
    try (FloeCatalog catalog = new CatalogFactory().open(CatalogSettings.embedded(), data)) {
      TableIdentifier name = TableIdentifier.parse(TABLE);
      Table table =
          catalog.catalog().tableExists(name)
              ? catalog.catalog().loadTable(name)
              : UpsertTables.create(
                  catalog.catalog(),
                  "events",
                  UpsertTables.PARTITIONED,
                  Map.of(OptimizePolicy.TARGET_FILE_SIZE_BYTES, String.valueOf(64L << 20)));
      UpsertWriter writer = new UpsertWriter(table);
      for (int file = 0; file < 12; file++) {
        List<Change> changes = new ArrayList<>();
        for (long id = base + file * 500L; id < base + (file + 1) * 500L; id++) {
          changes.add(Change.upsert(id, "row " + id));
        }
        writer.append(changes);
      }
      for (int commit = 0; commit < 3; commit++) {
        List<Change> changes = new ArrayList<>();
        for (long id = base + commit; id < base + 6_000; id += 100) {
          changes.add(commit == 0 ? Change.delete(id) : Change.upsert(id, "u" + commit));
        }
        writer.commit(changes);
      }
      return writer.expected();
    }
  }

  /**
   * Waits until the group's Flink job (another than {@code previous}) runs and both its workers
   * registered; returns the job as the API shows it.
   */
  private JsonNode awaitJobWithWorkers(int port, Optional<String> previous, Path log)
      throws Exception {
    try {
      return Poll.until(
          "the group's Flink job"
              + previous.map(id -> " other than " + id).orElse("")
              + " running with 2 workers",
          FloeProcess.WITHIN,
          Duration.ofMillis(200),
          () -> {
            JsonNode group = floe.get(port, "/api/v1/workers").get("groups").get(0);
            JsonNode job = group.get("flink_job");
            boolean ready =
                job != null
                    && !job.isNull()
                    && job.get("state").asText().equals("RUNNING")
                    && !previous.equals(Optional.of(job.get("id").asText()))
                    && group.get("live").asInt() == 2;
            return ready ? Optional.of(job) : Optional.<JsonNode>empty();
          });
    } catch (AssertionError e) {
      throw new AssertionError(
          e.getMessage()
              + "; workers: "
              + floe.get(port, "/api/v1/workers")
              + "\nserve.log:\n"
              + Files.readString(log),
          e);
    }
  }

  /** The Workers page, logged in with the token, shows the group's running job. */
  private void assertWorkersPageShows(int port, String jobId) throws Exception {
    try (ChromiumBrowser browser = ChromiumBrowser.start(1280, 800)) {
      ChromeDriver driver = browser.driver();
      driver.get("http://127.0.0.1:" + port + "/workers");
      driver.findElement(By.id("token")).sendKeys(TOKEN);
      driver.findElement(By.id("login-submit")).click();
      String cell = "#groups tr[data-group='cluster'] td[data-flink-job='" + jobId + "']";
      String shown =
          Poll.until(
              "the Workers page shows job " + jobId,
              FloeProcess.WITHIN,
              Duration.ofMillis(200),
              () ->
                  Optional.ofNullable(
                      (String)
                          driver.executeScript(
                              "const e = document.querySelector(arguments[0]);"
                                  + " return e ? e.textContent : null;",
                              cell)));
      assertThat(shown).contains("RUNNING", jobId);
      browser.screenshot(Path.of("target", "screenshots", "workers-flink.png"));
    }
  }

  /** The first finished optimize run of the table that started after {@code since}. */
  private Optional<JsonNode> optimizeRunSince(int port, Instant since) throws Exception {
    JsonNode runs = floe.get(port, "/api/v1/tables/" + TABLE).get("runs");
    for (JsonNode run : runs) {
      if (run.get("kind").asText().equals("optimize")
          && Instant.parse(run.get("started_at").asText()).isAfter(since)
          && run.hasNonNull("finished_at")) {
        return Optional.of(run);
      }
    }
    return Optional.empty();
  }

  private List<String> messages(int port, String kind) throws Exception {
    List<String> messages = new ArrayList<>();
    for (JsonNode event : floe.get(port, "/api/v1/events?limit=1000").get("events")) {
      if (event.get("kind").asText().equals(kind)) {
        messages.add(event.get("message").asText());
      }
    }
    return messages;
  }

  private long completedTasks(int port) throws Exception {
    long completed = 0;
    for (JsonNode worker : floe.get(port, "/api/v1/workers").get("workers")) {
      assertThat(worker.get("group").asText()).isEqualTo("cluster");
      completed += worker.get("completed_tasks").asLong();
    }
    return completed;
  }

  private static Map<String, String> jobStates(FlinkCluster cluster) throws Exception {
    Map<String, String> states = new java.util.TreeMap<>();
    for (JsonNode job : cluster.getJson("/jobs/overview").get("jobs")) {
      states.put(job.get("jid").asText(), job.get("state").asText());
    }
    return states;
  }
}

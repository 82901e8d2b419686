package dev.floe.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.floe.core.config.CatalogSettings;
import dev.floe.iceberg.CatalogFactory;
import dev.floe.iceberg.FloeCatalog;
import dev.floe.iceberg.optimize.UpsertTables;
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
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code processes} worker group: {@code floe serve} starts and supervises its {@code floe
 * optimizer} processes itself, all real JVMs.
 */
class OptimizerProcessesITCase {

  private static final String TABLE = "db.events";

  @TempDir Path directory;

  private final FloeProcess floe = new FloeProcess();
  private final List<Long> workerPids = new ArrayList<>();

  @AfterEach
  void stopProcesses() throws InterruptedException {
    floe.close();
    // The workers stop with their keeper; should one not, it must not outlive the test.
    workerPids.forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
  }

  @Test
  void aKilledWorkerProcessIsReplacedWithinTheCheckPeriodAndEveryRowStays() throws Exception {
    Map<Long, String> expected = ServeCommandITCase.writeManySmallFiles(directory);
    int port = FloeProcess.freePort();
    Path serveLog = directory.resolve("serve.log");
    Process serve =
        serve(port, serveLog, "      - { name: local, kind: processes, target: 2, heap: 384m }");

    Poll.until(
        "two worker processes registered",
        FloeProcess.WITHIN,
        Duration.ofMillis(100),
        () -> group(port).get("live").asInt() == 2);
    JsonNode busy =
        Poll.until(
            "a worker process rewriting a task",
            FloeProcess.WITHIN,
            Duration.ofMillis(20),
            () -> busyWorker(port));
    long killed = busy.get("pid").asLong();
    rememberWorkers(port);
    ProcessHandle.of(killed).orElseThrow().destroyForcibly(); // SIGKILL in the middle of a rewrite
    long killedAt = System.nanoTime();

    Poll.until(
        "worker_lost for the killed process",
        Duration.ofSeconds(30),
        Duration.ofMillis(100),
        () -> messages(port, "worker_lost").stream().anyMatch(m -> m.contains("pid " + killed)));
    Poll.until(
        "a new worker process registered in place of the killed one",
        Duration.ofSeconds(60),
        Duration.ofMillis(100),
        () -> group(port).get("live").asInt() == 2 && !pids(port).contains(killed));
    double replacedSeconds = (System.nanoTime() - killedAt) / 1e9;
    rememberWorkers(port);
    floe.awaitCompacted(port, TABLE, "compacted by the worker processes", serveLog);
    assertThat(messages(port, "worker_started")).hasSizeGreaterThanOrEqualTo(3);
    assertThat(floe.get(port, "/api/v1/tables/" + TABLE).get("consecutive_failures").asInt())
        .isZero();
    JsonNode group = group(port);
    assertThat(group.get("kind").asText()).isEqualTo("processes");
    assertThat(group.get("target").asInt()).isEqualTo(2);
    assertThat(group.get("last_start_error").isNull()).isTrue();
    // The check runs every 5 s; a JVM starts in a few more.
    assertThat(replacedSeconds)
        .as("seconds from the kill to a new registered worker")
        .isLessThan(30);

    serve.destroy(); // SIGTERM: the keeper stops its workers, and they hand their tasks back
    assertThat(serve.waitFor(90, TimeUnit.SECONDS)).isTrue();
    assertThat(serve.exitValue()).as(Files.readString(serveLog)).isZero();
    for (long pid : workerPids) {
      assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false))
          .as("worker process " + pid + " after the keeper stopped")
          .isFalse();
    }
    try (FloeCatalog catalog =
        new CatalogFactory().open(CatalogSettings.embedded(), directory.resolve("data"))) {
      assertThat(UpsertTables.read(catalog.catalog().loadTable(TableIdentifier.parse(TABLE))))
          .isEqualTo(expected);
    }
  }

  @Test
  void aGroupWhoseProcessesCannotStartSaysSoAndKeepsItsTarget() throws Exception {
    int port = FloeProcess.freePort();
    Path serveLog = directory.resolve("serve.log");
    Path noJava = directory.resolve("no-such-jdk").resolve("bin").resolve("java");
    serve(
        port,
        serveLog,
        "      - { name: local, kind: processes, target: 2, java: " + noJava + " }");

    String message =
        Poll.until(
            "capacity_below_target for group local",
            Duration.ofSeconds(60),
            Duration.ofMillis(200),
            () -> messages(port, "capacity_below_target").stream().findFirst());
    assertThat(message)
        .contains("worker group local (processes) has 0 of its target 2 workers live")
        .contains("cannot start a worker process")
        .contains(noJava.toString())
        .contains("keeps the target");
    JsonNode group = group(port);
    assertThat(group.get("target").asInt()).isEqualTo(2);
    assertThat(group.get("live").asInt()).isZero();
    assertThat(group.get("last_start_error").asText()).contains(noJava.toString());
    assertThat(floe.text(port, "/metrics"))
        .contains("floe_workers_live{group=\"local\"} 0.0")
        .contains("floe_workers_target{group=\"local\"} 2.0");
  }

  @Test
  void workerProcessesStopWhenTheirKeeperIsKilled() throws Exception {
    int port = FloeProcess.freePort();
    Path serveLog = directory.resolve("serve.log");
    Process serve =
        serve(port, serveLog, "      - { name: local, kind: processes, target: 1, heap: 256m }");
    Poll.until(
        "the worker process registered",
        FloeProcess.WITHIN,
        Duration.ofMillis(100),
        () -> group(port).get("live").asInt() == 1);
    rememberWorkers(port);
    long worker = workerPids.get(0);

    serve.destroyForcibly(); // SIGKILL: the keeper cannot stop its workers itself
    assertThat(serve.waitFor(30, TimeUnit.SECONDS)).isTrue();

    Poll.until(
        "the worker process of the killed keeper ended",
        Duration.ofSeconds(30),
        Duration.ofMillis(100),
        () -> !ProcessHandle.of(worker).map(ProcessHandle::isAlive).orElse(false));
    Path workerLog = directory.resolve("data").resolve("logs").resolve("optimizer-local-1.log");
    assertThat(Files.readString(workerLog)).contains("is gone; stopping");
  }

  private Process serve(int port, Path log, String group) throws Exception {
    Path config = directory.resolve("floe.yaml");
    Files.writeString(
        config,
        String.join(
            "\n",
            "keeper:",
            "  refresh-interval-seconds: 1",
            "  optimizer:",
            "    lease-timeout: 5s",
            "    capacity-grace: 1s",
            "    groups:",
            group,
            ""),
        StandardCharsets.UTF_8);
    return floe.serve(config, directory.resolve("data"), port, log);
  }

  private JsonNode group(int port) throws Exception {
    return floe.get(port, "/api/v1/workers").get("groups").get(0);
  }

  private Optional<JsonNode> busyWorker(int port) throws Exception {
    for (JsonNode worker : floe.get(port, "/api/v1/workers").get("workers")) {
      if (worker.get("running_tasks").asInt() > 0) {
        return Optional.of(worker);
      }
    }
    return Optional.empty();
  }

  private List<Long> pids(int port) throws Exception {
    List<Long> pids = new ArrayList<>();
    floe.get(port, "/api/v1/workers")
        .get("workers")
        .forEach(worker -> pids.add(worker.get("pid").asLong()));
    return pids;
  }

  private void rememberWorkers(int port) throws Exception {
    for (long pid : pids(port)) {
      if (!workerPids.contains(pid)) {
        workerPids.add(pid);
      }
    }
  }

  private List<String> messages(int port, String kind) throws Exception {
    List<String> messages = new ArrayList<>();
    floe.get(port, "/api/v1/events?limit=1000")
        .get("events")
        .forEach(
            event -> {
              if (event.get("kind").asText().equals(kind)) {
                messages.add(event.get("message").asText());
              }
            });
    return messages;
  }
}

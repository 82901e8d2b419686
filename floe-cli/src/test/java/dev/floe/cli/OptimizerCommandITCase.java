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
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.catalog.TableIdentifier;
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
    Path config = directory.resolve("floe.yaml");
    Files.writeString(
        config,
        String.join(
            "\n",
            "keeper:",
            "  refresh-interval-seconds: 1",
            "  optimizer:",
            "    lease-timeout: 3s",
            "    groups:",
            "      - { name: remote, kind: external, target: 1 }",
            ""),
        StandardCharsets.UTF_8);
    int port = FloeProcess.freePort();
    Path serveLog = directory.resolve("serve.log");
    Process serve =
        floe.start(
            serveLog,
            List.of(
                "--config",
                config.toString(),
                "--data-dir",
                directory.resolve("data").toString(),
                "serve",
                "--listen",
                "127.0.0.1:" + port));
    FloeProcess.awaitOutput(serve, serveLog, "Keeper serving floe on");

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
    try {
      Poll.until(
          TABLE + " compacted by the second worker and idle",
          FloeProcess.WITHIN,
          Duration.ofMillis(100),
          () ->
              floe.table(port, TABLE)
                  .filter(entry -> entry.get("state").asText().equals("idle"))
                  .filter(entry -> entry.get("health").asInt() > 90)
                  .filter(entry -> !entry.get("last_optimized_at").isNull())
                  .isPresent());
    } catch (AssertionError e) {
      throw new AssertionError(
          e.getMessage()
              + "; now: "
              + floe.get(port, "/api/v1/tables/" + TABLE)
              + "\nserve log:\n"
              + Files.readString(serveLog),
          e);
    }
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

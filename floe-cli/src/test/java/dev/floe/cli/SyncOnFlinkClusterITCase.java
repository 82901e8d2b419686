package dev.floe.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.floe.core.config.CatalogSettings;
import dev.floe.iceberg.CatalogFactory;
import dev.floe.iceberg.FloeCatalog;
import dev.floe.sync.LakeComparison;
import dev.floe.testing.FlinkCluster;
import dev.floe.testing.MariaDbExtension;
import dev.floe.testing.MariaDbServer;
import dev.floe.testing.Poll;
import dev.floe.testing.SampleShop;
import java.lang.management.ManagementFactory;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code floe sync --flink HOST:PORT} against a Flink standalone session cluster ({@link
 * FlinkCluster}: a JobManager and two TaskManagers, each its own JVM, whose classpath is Flink's
 * jars only: the job brings Floe and its connectors): the binlog job runs there, on both
 * TaskManagers, stops with a savepoint on SIGTERM and resumes from it; a floe sync killed with kill
 * -9 leaves its job running there, a second one is refused, and after the job is cancelled the sync
 * resumes from its retained checkpoint. MySQL and Iceberg are compared row for row after each step.
 */
@ExtendWith(MariaDbExtension.class)
class SyncOnFlinkClusterITCase {

  private static final Duration DEADLINE = Duration.ofSeconds(180);
  private static final List<String> TABLES =
      List.of("customers", "products", "orders", "order_items");
  private static final Duration POLL_INTERVAL = Duration.ofMillis(200);

  /** Jars a plain Flink cluster does not have; Floe's job must bring them. */
  private static final Pattern NOT_ON_A_FLINK_CLUSTER =
      Pattern.compile(
          "(floe-.*|iceberg-.*|flink-connector-mysql-cdc.*|flink-connector-debezium.*"
              + "|flink-cdc-.*|debezium-.*|mysql-.*|mariadb-.*|sqlite-jdbc.*|hadoop-.*|parquet-.*"
              + "|jackson-.*)\\.jar");

  @TempDir Path directory;

  @Test
  void binlogJobRunsOnTheClusterStopsWithASavepointAndResumes(MariaDbServer server)
      throws Exception {
    String database = server.createDatabase("remote");
    SampleShop.create(server, database, new SampleShop.Size(60, 10, 120, 2));
    String url = server.sourceUrl("root", "", "");
    // Spread the job's tasks over both TaskManagers, so that both must load the shipped jars.
    try (FlinkCluster cluster =
        FlinkCluster.builder().set("cluster.evenly-spread-out-slots", "true").start()) {
      assertOnlyFlinkOnTheCluster(cluster);
      String flink = cluster.restAddress();

      Path firstLog = directory.resolve("sync-1.log");
      Process first = startSync(url, database, flink, firstLog);
      try {
        awaitOutput(firstLog, "The binlog job runs on the Flink cluster at " + flink + " (Flink ");
        String firstJob = awaitJobState(cluster, "RUNNING");
        change(server, database, 1);
        awaitEqual(server, database);
        assertThat(taskManagersRunning(cluster, firstJob))
            .containsExactlyInAnyOrder("taskmanager-1", "taskmanager-2");
        first.destroy(); // SIGTERM: stop with a savepoint, through the cluster's REST API
        assertThat(first.waitFor(2, TimeUnit.MINUTES)).isTrue();
      } finally {
        first.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      }
      assertThat(Files.readString(firstLog))
          .contains("Stopped. Run the same command to resume from savepoint file:");
      assertThat(jobStates(cluster)).contains("FINISHED");

      change(server, database, 2);
      Path secondLog = directory.resolve("sync-2.log");
      Process second = startSync(url, database, flink, secondLog);
      try {
        awaitOutput(secondLog, "(resumed from " + directory.resolve("data/sync/remote/savepoints"));
        awaitEqual(server, database);
        change(server, database, 3);
        awaitEqual(server, database);
      } finally {
        second.destroyForcibly().waitFor(30, TimeUnit.SECONDS); // kill -9
      }
      String jobId = awaitJobState(cluster, "RUNNING");
      change(server, database, 4);
      awaitEqual(server, database); // the job goes on without the floe process

      CliRun refused =
          CliRun.run(
              directory,
              "--data-dir",
              "data",
              "sync",
              "--name",
              "remote",
              "--source",
              url,
              "--tables",
              database + "\\..*",
              "--flink",
              flink);
      assertThat(refused.exitCode()).isEqualTo(2);
      assertThat(refused.err())
          .startsWith(
              "Error: The Flink cluster at "
                  + flink
                  + " still runs floe sync remote as job "
                  + jobId
                  + " (RUNNING), so this sync already runs there. Cancel that job first (flink"
                  + " cancel "
                  + jobId
                  + ", or PATCH http://"
                  + flink
                  + "/jobs/"
                  + jobId
                  + "?mode=cancel): its checkpoints are kept, and floe sync resumes from the"
                  + " newest.");

      HttpClient.newHttpClient()
          .send(
              HttpRequest.newBuilder(
                      URI.create(cluster.restUrl() + "/jobs/" + jobId + "?mode=cancel"))
                  .method("PATCH", HttpRequest.BodyPublishers.noBody())
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      awaitJobState(cluster, "CANCELED");
    }
  }

  @Test
  void flinkWithoutAPortIsExplained() {
    CliRun run =
        CliRun.run(
            directory,
            "--data-dir",
            "data",
            "sync",
            "--source",
            "mysql://root@127.0.0.1:3306",
            "--tables",
            "shop\\..*",
            "--flink",
            "localhost");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .isEqualTo(
            "Error: --flink 'localhost' is not HOST:PORT. Give the host and REST port of the Flink"
                + " cluster's JobManager (its rest.port, 8081 by default), e.g. --flink"
                + " localhost:8081, or leave --flink out to run the sync on a local Flink."
                + System.lineSeparator());
  }

  @Test
  void unreachableFlinkIsExplained() throws Exception {
    int port;
    try (ServerSocket free = new ServerSocket(0)) {
      port = free.getLocalPort();
    }
    CliRun run =
        CliRun.run(
            directory,
            "--data-dir",
            "data",
            "sync",
            "--source",
            "mysql://root@127.0.0.1:3306",
            "--tables",
            "shop\\..*",
            "--flink",
            "127.0.0.1:" + port);

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .isEqualTo(
            "Error: Cannot reach a Flink cluster at --flink 127.0.0.1:"
                + port
                + ": connection refused (GET http://127.0.0.1:"
                + port
                + "/config). Start the cluster, or give the host and REST port of its JobManager"
                + " (its rest.port, 8081 by default); leave --flink out to run the sync on a"
                + " local Flink."
                + System.lineSeparator());
  }

  @Test
  void badFlinkInTheConfigNamesTheKey() throws Exception {
    Files.writeString(directory.resolve("floe.yaml"), "sync:\n  flink: flink-jobmanager\n");

    CliRun run =
        CliRun.run(
            directory,
            "--config",
            "floe.yaml",
            "--data-dir",
            "data",
            "sync",
            "--source",
            "mysql://root@127.0.0.1:3306",
            "--tables",
            "shop\\..*");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .startsWith(
            "Error: sync.flink 'flink-jobmanager' is not HOST:PORT. Give the host and REST port of"
                + " the Flink cluster's JobManager (its rest.port, 8081 by default), e.g."
                + " sync.flink: localhost:8081, or leave sync.flink out to run the sync on a local"
                + " Flink.");
  }

  /** Inserts, updates and deletes in every table; {@code round} keeps keys apart. */
  private static void change(MariaDbServer server, String database, int round) {
    String db = "`" + database + "`.";
    server.execute(
        "INSERT INTO "
            + db
            + "customers (email, name, country, vip, created_at) VALUES ('r"
            + round
            + "@x', 'R"
            + round
            + "', 'NL', 0, NOW(3))",
        "UPDATE " + db + "customers SET country = 'C" + round + "' WHERE id % 5 = " + round % 5,
        "UPDATE " + db + "products SET price = price + " + round + " WHERE id % 3 = 0",
        "UPDATE "
            + db
            + "orders SET status = '"
            + List.of("new", "paid", "shipped", "cancelled").get(round % 4)
            + "' WHERE id % 7 = "
            + round % 7,
        "DELETE FROM " + db + "order_items WHERE order_id % 11 = " + round % 11);
  }

  private Process startSync(String url, String database, String flink, Path log) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    for (String argument : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (argument.startsWith("--add-opens") || argument.startsWith("--add-exports")) {
        command.add(argument);
      }
    }
    command.addAll(
        List.of(
            "-Xmx1g",
            "-cp",
            System.getProperty("java.class.path"),
            FloeMain.class.getName(),
            "--data-dir",
            directory.resolve("data").toString(),
            "sync",
            "--name",
            "remote",
            "--source",
            url,
            "--tables",
            database + "\\..*",
            "--flink",
            flink,
            "--checkpoint-interval",
            "1",
            "--progress-interval",
            "0"));
    return new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(log.toFile())
        .start();
  }

  /**
   * What makes the test prove that the job ships what it needs: the cluster's JVMs have Flink's
   * jars only (the JobManager reports its own classpath; the TaskManagers run with the same one).
   */
  private static void assertOnlyFlinkOnTheCluster(FlinkCluster cluster) throws Exception {
    List<String> reported = new ArrayList<>();
    cluster
        .getJson("/jobmanager/environment")
        .path("classpath")
        .forEach(entry -> reported.add(entry.asText()));
    assertThat(reported).isEqualTo(cluster.classpath().stream().map(Path::toString).toList());
    assertThat(cluster.classpath())
        .isNotEmpty()
        .noneMatch(jar -> NOT_ON_A_FLINK_CLUSTER.matcher(jar.getFileName().toString()).matches());
  }

  /** The TaskManagers on which the job's tasks run. */
  private static Set<String> taskManagersRunning(FlinkCluster cluster, String jobId)
      throws Exception {
    Set<String> taskManagers = new TreeSet<>();
    for (JsonNode vertex : cluster.getJson("/jobs/" + jobId).path("vertices")) {
      String path = "/jobs/" + jobId + "/vertices/" + vertex.path("id").asText() + "/taskmanagers";
      for (JsonNode taskManager : cluster.getJson(path).path("taskmanagers")) {
        taskManagers.add(taskManager.path("taskmanager-id").asText());
      }
    }
    return taskManagers;
  }

  /** The states of the cluster's jobs named "floe sync remote", newest first. */
  private static List<String> jobStates(FlinkCluster cluster) throws Exception {
    return jobs(cluster).stream().map(job -> job.path("state").asText()).toList();
  }

  private static List<JsonNode> jobs(FlinkCluster cluster) throws Exception {
    List<JsonNode> jobs = new ArrayList<>();
    for (JsonNode job : cluster.getJson("/jobs/overview").path("jobs")) {
      if ("floe sync remote".equals(job.path("name").asText())) {
        jobs.add(job);
      }
    }
    jobs.sort((a, b) -> Long.compare(b.path("start-time").asLong(), a.path("start-time").asLong()));
    return jobs;
  }

  /** Waits until the newest job of this sync is in the state; returns its id. */
  private static String awaitJobState(FlinkCluster cluster, String state) throws Exception {
    Poll.until(
        "the newest job of floe sync remote is " + state,
        DEADLINE,
        POLL_INTERVAL,
        () -> jobStates(cluster).stream().findFirst().filter(state::equals).isPresent());
    return jobs(cluster).get(0).path("jid").asText();
  }

  private static void awaitOutput(Path log, String text) throws Exception {
    try {
      Poll.until(
          "'" + text + "' printed",
          DEADLINE,
          POLL_INTERVAL,
          () -> Files.exists(log) && Files.readString(log, StandardCharsets.UTF_8).contains(text));
    } catch (AssertionError notPrinted) {
      throw new AssertionError(notPrinted.getMessage() + ":\n" + Files.readString(log), notPrinted);
    }
  }

  private void awaitEqual(MariaDbServer server, String database) throws Exception {
    AtomicReference<String> difference = new AtomicReference<>("");
    try {
      Poll.until(
          "MySQL and Iceberg hold the same rows",
          DEADLINE,
          Duration.ofMillis(500),
          () -> {
            difference.set(difference(server, database));
            return difference.get().isEmpty();
          });
    } catch (AssertionError stillDifferent) {
      throw new AssertionError(
          stillDifferent.getMessage() + ": " + difference.get(), stillDifferent);
    }
  }

  /** The first table whose rows differ, as a sentence; empty when all are equal. */
  private String difference(MariaDbServer server, String database) throws Exception {
    try (FloeCatalog catalog =
        new CatalogFactory().open(CatalogSettings.embedded(), directory.resolve("data"))) {
      for (String table : TABLES) {
        TableIdentifier identifier = TableIdentifier.of(database, table);
        if (!catalog.catalog().tableExists(identifier)) {
          return table + " missing";
        }
        Table iceberg = catalog.catalog().loadTable(identifier);
        TreeMap<String, String> expected =
            LakeComparison.mysqlRows(server, database, table, iceberg.schema());
        TreeMap<String, String> actual = LakeComparison.lakeRows(iceberg);
        if (!expected.equals(actual)) {
          return table
              + ": "
              + expected.size()
              + " rows in MySQL, "
              + actual.size()
              + " in Iceberg";
        }
      }
    }
    return "";
  }
}

package dev.floe.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.floe.core.config.CatalogSettings;
import dev.floe.iceberg.CatalogFactory;
import dev.floe.iceberg.FloeCatalog;
import dev.floe.testing.FlinkCluster;
import dev.floe.testing.KafkaBroker;
import dev.floe.testing.Poll;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code floe sync --source kafka://... --flink HOST:PORT}: the Kafka job runs on a Flink
 * standalone session cluster ({@link FlinkCluster}, whose classpath is Flink's jars only: the job
 * brings the Kafka connector and client with Floe's jars), commits there, and stops with a
 * savepoint on SIGTERM.
 */
// slow: a standalone cluster (~2 min); SyncOnFlinkClusterITCase runs the MySQL sync there in the
// default suite
@Tag("slow")
class KafkaSyncOnFlinkClusterITCase {

  private static final Duration DEADLINE = Duration.ofSeconds(180);

  @TempDir Path directory;

  private final KafkaBroker broker = KafkaBroker.shared();

  private static String canal(int id, String type, int price) {
    return "{\"data\":[{\"id\":\""
        + id
        + "\",\"price\":\""
        + price
        + ".25\"}],\"database\":\"shop\",\"table\":\"items\",\"type\":\""
        + type
        + "\",\"isDdl\":false,\"pkNames\":[\"id\"],"
        + "\"mysqlType\":{\"id\":\"int(11)\",\"price\":\"decimal(10,2)\"},\"es\":1}";
  }

  @Test
  void theKafkaJobRunsOnTheClusterAndStopsWithASavepoint() throws Exception {
    String topic = "cluster-canal-" + Long.toHexString(System.nanoTime());
    broker.createTopic(topic, 2);
    List<KafkaBroker.Message> messages = new ArrayList<>();
    for (int id = 1; id <= 12; id++) {
      messages.add(KafkaBroker.Message.of("shop.items:" + id, canal(id, "INSERT", id)));
    }
    messages.add(KafkaBroker.Message.of("shop.items:3", canal(3, "UPDATE", 300)));
    messages.add(KafkaBroker.Message.of("shop.items:4", canal(4, "DELETE", 4)));
    broker.send(topic, messages);
    try (FlinkCluster cluster = FlinkCluster.builder().taskManagers(1).start();
        FloeCatalog catalog =
            new CatalogFactory().open(CatalogSettings.embedded(), directory.resolve("data"))) {
      Path log = directory.resolve("sync.log");
      Process process = start(log, topic, cluster.restAddress());
      try {
        FloeProcess.awaitOutput(process, log, "Committing every 1 s");
        TableIdentifier items = TableIdentifier.of("shop", "items");
        Poll.until(
            "the 11 rows are in shop.items, id 3 updated",
            DEADLINE,
            Duration.ofMillis(500),
            () -> {
              if (!process.isAlive()) {
                throw new AssertionError("floe sync ended:\n" + Files.readString(log));
              }
              return catalog.catalog().tableExists(items)
                  && prices(catalog, items).size() == 11
                  && "300.25".equals(prices(catalog, items).get(3));
            });
        assertThat(prices(catalog, items)).doesNotContainKey(4);
        assertThat(job(cluster).map(job -> job.path("state").asText())).contains("RUNNING");
        process.destroy(); // SIGTERM: stop with a savepoint, through the cluster's REST API
        assertThat(process.waitFor(2, TimeUnit.MINUTES)).isTrue();
      } finally {
        process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      }
      assertThat(Files.readString(log))
          .contains("Stopped. Run the same command to resume from savepoint file:");
      assertThat(job(cluster).map(job -> job.path("state").asText())).contains("FINISHED");
    }
  }

  private static java.util.Map<Integer, String> prices(FloeCatalog catalog, TableIdentifier table)
      throws Exception {
    java.util.Map<Integer, String> prices = new java.util.TreeMap<>();
    try (CloseableIterable<Record> records =
        IcebergGenerics.read(catalog.catalog().loadTable(table)).build()) {
      for (Record record : records) {
        prices.put((Integer) record.getField("id"), record.getField("price").toString());
      }
    }
    return prices;
  }

  /** The newest job of this sync on the cluster. */
  private static Optional<JsonNode> job(FlinkCluster cluster) throws Exception {
    JsonNode newest = null;
    for (JsonNode job : cluster.getJson("/jobs/overview").path("jobs")) {
      if ("floe sync on-cluster".equals(job.path("name").asText())
          && (newest == null
              || job.path("start-time").asLong() > newest.path("start-time").asLong())) {
        newest = job;
      }
    }
    return Optional.ofNullable(newest);
  }

  private Process start(Path log, String topic, String flink) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    for (String argument : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (argument.startsWith("--add-opens") || argument.startsWith("--add-exports")) {
        command.add(argument);
      }
    }
    command.addAll(
        List.of(
            "-Xmx768m",
            "-cp",
            System.getProperty("java.class.path"),
            FloeMain.class.getName(),
            "--data-dir",
            directory.resolve("data").toString(),
            "sync",
            "--name",
            "on-cluster",
            "--source",
            "kafka://" + broker.bootstrapServers(),
            "--topics",
            topic,
            "--format",
            "canal-json",
            "--flink",
            flink,
            "--checkpoint-interval",
            "1"));
    return new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(log.toFile())
        .start();
  }
}

package dev.floe.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.core.config.CatalogSettings;
import dev.floe.iceberg.CatalogFactory;
import dev.floe.iceberg.FloeCatalog;
import dev.floe.testing.KafkaBroker;
import dev.floe.testing.Poll;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code floe sync --source kafka://...} as users run it: flags, checks, output, Ctrl-C. */
class KafkaSyncCommandITCase {

  private static final Duration DEADLINE = Duration.ofSeconds(120);

  @TempDir Path directory;

  private final KafkaBroker broker = KafkaBroker.shared();

  private CliRun sync(String... args) {
    List<String> all = new ArrayList<>(List.of("--data-dir", directory.resolve("data").toString()));
    all.add("sync");
    all.addAll(List.of(args));
    return CliRun.run(directory, all.toArray(String[]::new));
  }

  @Test
  void refusesAnUnknownFormatNamingTheKnownOnes() {
    CliRun run =
        sync(
            "--source",
            "kafka://" + broker.bootstrapServers(),
            "--topics",
            "x",
            "--format",
            "avro");
    assertThat(run.exitCode()).isNotZero();
    assertThat(run.err())
        .contains(
            "--format avro is not a format Floe reads from Kafka. Use one of: canal-json,"
                + " debezium-json, maxwell-json, json.");
  }

  @Test
  void refusesFlagsOfTheOtherKindOfSource() {
    CliRun kafka =
        sync(
            "--source",
            "kafka://" + broker.bootstrapServers(),
            "--topics",
            "x",
            "--format",
            "canal-json",
            "--chunk-rows",
            "5",
            "--resnapshot");
    assertThat(kafka.exitCode()).isNotZero();
    assertThat(kafka.err())
        .contains(
            "--resnapshot, --chunk-rows are for a MySQL source; a Kafka sync (--source kafka://"
                + broker.bootstrapServers()
                + ") has no snapshot, binlog or keeper report yet. Leave them out.");
    CliRun mysql =
        sync("--source", "mysql://root@127.0.0.1:1", "--tables", "a\\..*", "--topics", "x");
    assertThat(mysql.err())
        .contains(
            "--topics is for a Kafka source (--source kafka://HOST:PORT[,HOST:PORT...]), not a"
                + " MySQL one.");
  }

  @Test
  void refusesAPatternMatchingNoTopicAndAnAddressThatIsNotHostPort() throws Exception {
    String topic = "cli-listed-" + Long.toHexString(System.nanoTime());
    broker.createTopic(topic, 1);
    CliRun none =
        sync(
            "--source",
            "kafka://" + broker.bootstrapServers(),
            "--topics",
            "nothing-like-this",
            "--format",
            "canal-json");
    assertThat(none.exitCode()).isNotZero();
    assertThat(none.err())
        .contains("--topics 'nothing-like-this' matches no topic on " + broker.bootstrapServers())
        .contains(topic);

    CliRun badAddress =
        sync("--source", "kafka://localhost", "--topics", "x", "--format", "canal-json");
    assertThat(badAddress.err())
        .contains(
            "--source kafka://localhost: 'localhost' is not HOST:PORT. Write"
                + " kafka://HOST:PORT[,HOST:PORT...], e.g. kafka://127.0.0.1:9092.");
  }

  @Test
  void syncsACanalTopicMasksSecretPropertiesAndStopsWithASavepoint() throws Exception {
    String topic = "cli-canal-" + Long.toHexString(System.nanoTime());
    broker.createTopic(topic, 2);
    List<KafkaBroker.Message> messages = new ArrayList<>();
    for (int id = 1; id <= 20; id++) {
      messages.add(
          KafkaBroker.Message.of(
              "shop.items:" + id,
              "{\"data\":[{\"id\":\""
                  + id
                  + "\",\"price\":\""
                  + id
                  + ".50\"}],\"database\":\"shop\",\"table\":\"items\",\"type\":\"INSERT\","
                  + "\"isDdl\":false,\"pkNames\":[\"id\"],"
                  + "\"mysqlType\":{\"id\":\"int(11)\",\"price\":\"decimal(10,2)\"},\"es\":1}"));
    }
    broker.send(topic, messages);
    Path log = directory.resolve("sync.log");
    Process process =
        start(
            log,
            "--source",
            "kafka://" + broker.bootstrapServers(),
            "--topics",
            topic,
            "--format",
            "canal-json",
            "--target-namespace",
            "ods",
            "--checkpoint-interval",
            "1",
            "--progress-interval",
            "1",
            "--kafka-property",
            "ssl.key.password=hunter2",
            "--kafka-property",
            "client.dns.lookup=use_all_dns_ips");
    try (FloeCatalog catalog =
        new CatalogFactory().open(CatalogSettings.embedded(), directory.resolve("data"))) {
      FloeProcess.awaitOutput(process, log, "Committing every 1 s");
      TableIdentifier items = TableIdentifier.of("ods", "items");
      Poll.until(
          "the 20 rows are in ods.items",
          DEADLINE,
          Duration.ofMillis(500),
          () -> {
            if (!process.isAlive()) {
              throw new AssertionError("floe sync ended:\n" + Files.readString(log));
            }
            return catalog.catalog().tableExists(items) && count(catalog, items) == 20;
          });
      FloeProcess.awaitOutput(
          process, log, "progress: 1 table; 0 messages behind on 2 partitions; 0 rejected; lag");
      String output = Files.readString(log);
      assertThat(output)
          .contains(
              "Syncing Kafka topics '" + topic + "' (canal-json) from " + broker.bootstrapServers())
          .contains("client.dns.lookup=use_all_dns_ips")
          .contains("ssl.key.password=****")
          .doesNotContain("hunter2");
      process.destroy(); // SIGTERM, as Ctrl-C
      assertThat(process.waitFor(2, TimeUnit.MINUTES)).isTrue();
      assertThat(Files.readString(log)).contains("Stopped.");
    } finally {
      process.destroyForcibly();
    }
  }

  private static long count(FloeCatalog catalog, TableIdentifier table) throws Exception {
    long rows = 0;
    try (CloseableIterable<Record> records =
        IcebergGenerics.read(catalog.catalog().loadTable(table)).build()) {
      for (Record ignored : records) {
        rows++;
      }
    }
    return rows;
  }

  private Process start(Path log, String... args) throws Exception {
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
            "sync"));
    command.addAll(List.of(args));
    return new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(log.toFile())
        .start();
  }
}

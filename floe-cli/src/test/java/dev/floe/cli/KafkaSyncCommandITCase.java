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
  void refusesABadSchemaAPartitionThatDoesNotFitItAndABarePartitionOfAMySqlSync() {
    String[] json = {
      "--source",
      "kafka://" + broker.bootstrapServers(),
      "--topics",
      "x",
      "--format",
      "json",
      "--target",
      "ods.events",
      "--key",
      "id"
    };
    CliRun badType = sync(with(json, "--schema", "id BIGINT, x FOO"));
    assertThat(badType.exitCode()).isNotZero();
    assertThat(badType.err())
        .contains(
            "--schema 'id BIGINT, x FOO': column x has the type FOO: use one of BOOLEAN, INT"
                + " (INTEGER), BIGINT (LONG), FLOAT, DOUBLE, DECIMAL(P,S), STRING (VARCHAR, TEXT),"
                + " DATE, TIME, TIMESTAMP (without zone), TIMESTAMPTZ (with zone, UTC), optionally"
                + " followed by NOT NULL.");
    CliRun badPartition =
        sync(with(json, "--schema", "id BIGINT NOT NULL, name STRING", "--partition", "day(name)"));
    assertThat(badPartition.exitCode()).isNotZero();
    assertThat(badPartition.err())
        .contains(
            "sync.partitions for ods.events is 'day(name)': day(name) needs a date or timestamp"
                + " column, but name is string");
    CliRun mysql = sync("--source", "mysql://root@127.0.0.1:1", "--partition", "day(ts)");
    assertThat(mysql.exitCode()).isNotZero();
    assertThat(mysql.err())
        .contains(
            "--partition 'day(ts)' names no table: write DB.TABLE=SPEC, e.g. --partition"
                + " shop.orders='day(created_at)'. A bare SPEC is for a Kafka --format json sync,"
                + " whose table is --target.");
    CliRun mysqlSchema = sync("--source", "mysql://root@127.0.0.1:1", "--schema", "id BIGINT");
    assertThat(mysqlSchema.err())
        .contains(
            "--schema is for a Kafka source (--source kafka://HOST:PORT[,HOST:PORT...]), not a"
                + " MySQL one.");
  }

  private static String[] with(String[] first, String... more) {
    List<String> all = new ArrayList<>(List.of(first));
    all.addAll(List.of(more));
    return all.toArray(String[]::new);
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

  @Test
  void syncsPlainJsonIntoATableCreatedFromTheConfiguredSchemaPartitionedByABareSpec()
      throws Exception {
    String topic = "cli-json-" + Long.toHexString(System.nanoTime());
    broker.createTopic(topic, 1);
    broker.send(
        topic,
        List.of(
            KafkaBroker.Message.of("1", "{\"id\":1,\"ts\":\"2026-05-01T08:00:00\"}"),
            KafkaBroker.Message.of("2", "{\"id\":2,\"ts\":\"2026-05-02T09:00:00\"}")));
    Path config = directory.resolve("floe.yaml");
    Files.writeString(
        config, "sync:\n  kafka:\n    schema: 'id BIGINT NOT NULL, ts TIMESTAMP, note STRING'\n");
    Path log = directory.resolve("json.log");
    Process process =
        start(
            log,
            List.of("--config", config.toString()),
            "--source",
            "kafka://" + broker.bootstrapServers(),
            "--topics",
            topic,
            "--format",
            "json",
            "--target",
            "ods.events",
            "--key",
            "id",
            "--partition",
            "day(ts)",
            "--checkpoint-interval",
            "1");
    try (FloeCatalog catalog =
        new CatalogFactory().open(CatalogSettings.embedded(), directory.resolve("data"))) {
      FloeProcess.awaitOutput(process, log, "Committing every 1 s");
      TableIdentifier events = TableIdentifier.of("ods", "events");
      Poll.until(
          "the 2 rows are in ods.events",
          DEADLINE,
          Duration.ofMillis(500),
          () -> {
            if (!process.isAlive()) {
              throw new AssertionError("floe sync ended:\n" + Files.readString(log));
            }
            return catalog.catalog().tableExists(events) && count(catalog, events) == 2;
          });
      org.apache.iceberg.Table table = catalog.catalog().loadTable(events);
      assertThat(table.spec().fields())
          .extracting(field -> field.transform().toString() + "(" + field.sourceId() + ")")
          .containsExactly("day(2)");
      assertThat(table.schema().findField("ts").type())
          .isEqualTo(org.apache.iceberg.types.Types.TimestampType.withoutZone());
      assertThat(Files.readString(log))
          .contains(
              "Columns of ods.events as sync.kafka.schema declares them (new fields become"
                  + " optional columns), partitioned by day(ts) when the sync creates it.");
      process.destroy(); // SIGTERM, as Ctrl-C
      assertThat(process.waitFor(2, TimeUnit.MINUTES)).isTrue();
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
    return start(log, List.of(), args);
  }

  /**
   * @param floeOptions the options before {@code sync} (e.g. {@code --config})
   */
  private Process start(Path log, List<String> floeOptions, String... args) throws Exception {
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
            directory.resolve("data").toString()));
    command.addAll(floeOptions);
    command.add("sync");
    command.addAll(List.of(args));
    return new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(log.toFile())
        .start();
  }
}

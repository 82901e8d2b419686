package dev.floe.sync;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.core.config.CatalogSettings;
import dev.floe.iceberg.CatalogFactory;
import dev.floe.iceberg.FloeCatalog;
import dev.floe.testing.KafkaBroker;
import dev.floe.testing.Poll;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Kafka sync's JVM is killed with SIGKILL while messages arrive, restarted from its checkpoint,
 * killed again, and restarted with its checkpoints deleted: every time the lake ends equal to the
 * expected rows, with no key twice.
 */
class KafkaSyncKilledITCase {

  private static final Duration DEADLINE = Duration.ofSeconds(180);

  @TempDir Path directory;

  private final KafkaBroker broker = KafkaBroker.shared();

  /**
   * A batch of random changes over a key space: inserts of absent keys, else updates or deletes.
   */
  private static void changes(CdcScenario scenario, Random random, int count) {
    for (int i = 0; i < count; i++) {
      boolean orders = random.nextInt(4) > 0;
      String table = orders ? "shop.orders" : "shop.customers";
      long id = 1 + random.nextInt(orders ? 300 : 60);
      Map<Long, LinkedHashMap<String, Object>> rows = scenario.expected().get(table);
      if (!rows.containsKey(id)) {
        if (orders) {
          scenario.insert(table, id, "order " + id, random.nextInt(1000), "n" + i);
        } else {
          scenario.insert(table, id, "c" + id + "@example.com");
        }
      } else if (random.nextInt(3) == 0) {
        scenario.delete(table, id);
      } else if (orders) {
        scenario.update(table, id, "qty", random.nextInt(1000), "note", "u" + i);
      } else {
        scenario.update(table, id, "email", "c" + id + "." + i + "@example.com");
      }
    }
  }

  @Test
  void killedDuringLoadThenRestartedFromTheCheckpointAndWithoutIt() throws Exception {
    String topic = "cdc-killed-" + Long.toHexString(System.nanoTime());
    broker.createTopic(topic, 3);
    KafkaFormat format = KafkaFormat.DEBEZIUM_JSON;
    CdcScenario scenario = new CdcScenario(format);
    scenario.table("shop.orders", KafkaSyncITCase.ORDERS_WITH_NOTE);
    scenario.table("shop.customers", KafkaSyncITCase.CUSTOMERS);
    Random random = new Random(18);
    Path data = directory.resolve("data");
    Files.createDirectories(data);

    changes(scenario, random, 300);
    broker.send(topic, scenario.take());
    Process first = KafkaSyncProcess.start(data, broker.bootstrapServers(), topic, format, log(1));
    try (FloeCatalog catalog = new CatalogFactory().open(CatalogSettings.embedded(), data)) {
      awaitCommitted(catalog);
      changes(scenario, random, 300);
      broker.send(topic, scenario.take());
      first.destroyForcibly().waitFor(30, TimeUnit.SECONDS); // SIGKILL while it reads them
    } finally {
      first.destroyForcibly();
    }

    changes(scenario, random, 150);
    broker.send(topic, scenario.take());
    Process second = KafkaSyncProcess.start(data, broker.bootstrapServers(), topic, format, log(2));
    try (FloeCatalog catalog = new CatalogFactory().open(CatalogSettings.embedded(), data)) {
      assertThat(awaitRunning(second, log(2)))
          .as("restored from a checkpoint")
          .isNotEqualTo("fresh");
      awaitEqual(catalog, scenario);
      changes(scenario, random, 300);
      broker.send(topic, scenario.take());
      second.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    } finally {
      second.destroyForcibly();
    }

    KafkaSyncITCase.deleteRecursively(data.resolve("sync").resolve(KafkaSyncProcess.NAME));
    changes(scenario, random, 150);
    broker.send(topic, scenario.take());
    Process third = KafkaSyncProcess.start(data, broker.bootstrapServers(), topic, format, log(3));
    try (FloeCatalog catalog = new CatalogFactory().open(CatalogSettings.embedded(), data)) {
      assertThat(awaitRunning(third, log(3))).as("no checkpoint left").isEqualTo("fresh");
      awaitEqual(catalog, scenario);
    } finally {
      third.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    }
  }

  private Path log(int run) {
    return directory.resolve("sync-" + run + ".log");
  }

  private static String awaitRunning(Process process, Path log) throws Exception {
    return Poll.until(
        "the sync process reports its start",
        DEADLINE,
        Duration.ofMillis(200),
        () -> {
          if (!process.isAlive()) {
            throw new AssertionError("the sync process ended:\n" + Files.readString(log));
          }
          return Files.readAllLines(log).stream()
              .filter(line -> line.startsWith("running "))
              .map(line -> line.substring("running ".length()))
              .findFirst();
        });
  }

  private static void awaitCommitted(FloeCatalog catalog) throws Exception {
    TableIdentifier orders = TableIdentifier.of("shop", "orders");
    Poll.until(
        "the first sync commits shop.orders",
        DEADLINE,
        Duration.ofMillis(200),
        () ->
            catalog.catalog().tableExists(orders)
                && catalog.catalog().loadTable(orders).currentSnapshot() != null);
  }

  private static void awaitEqual(FloeCatalog catalog, CdcScenario scenario) throws Exception {
    Poll.untilNothingWrong(
        "the lake holds the expected rows",
        DEADLINE,
        Duration.ofSeconds(1),
        () -> {
          List<String> differences = new ArrayList<>();
          for (Map.Entry<String, TreeMap<Long, LinkedHashMap<String, Object>>> table :
              scenario.expected().entrySet()) {
            TableIdentifier identifier = TableIdentifier.parse(table.getKey());
            if (!catalog.catalog().tableExists(identifier)) {
              differences.add(identifier + " does not exist yet");
              continue;
            }
            CdcScenario.difference(catalog.catalog().loadTable(identifier), table.getValue())
                .ifPresent(differences::add);
          }
          return differences.isEmpty() ? Optional.empty() : Optional.of(differences.toString());
        });
  }
}

package dev.floe.sync;

import dev.floe.core.config.CatalogSettings;
import dev.floe.core.sync.TableSelection;
import dev.floe.iceberg.CatalogFactory;
import dev.floe.iceberg.FloeCatalog;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A Kafka sync in its own JVM, so tests can kill it with SIGKILL. Arguments: data directory,
 * bootstrap servers, topic pattern, format. Prints "running fresh" or "running CHECKPOINT" once the
 * job is submitted.
 */
public final class KafkaSyncProcess {

  static final String NAME = "killed";

  public static void main(String[] args) throws Exception {
    Path data = Path.of(args[0]);
    try (FloeCatalog catalog = new CatalogFactory().open(CatalogSettings.embedded(), data)) {
      RunningSync sync =
          new KafkaSyncRunner(catalog)
              .start(options(data, args[1], args[2], KafkaFormat.parse(args[3])));
      System.out.println("running " + sync.restoredFrom().orElse("fresh"));
      System.out.flush();
      sync.await();
    }
  }

  static KafkaSyncOptions options(Path data, String bootstrap, String topics, KafkaFormat format) {
    return KafkaSyncOptions.of(
        NAME,
        bootstrap,
        topics,
        format,
        TableSelection.of(List.of("shop\\..*"), List.of(), Optional.empty()),
        Duration.ofSeconds(1),
        2,
        StateDirectory.local(data.resolve("sync").resolve(NAME)),
        KafkaSyncOptions.StartingOffsets.EARLIEST,
        Map.of(),
        Map.of(),
        ZoneOffset.UTC,
        KafkaSyncOptions.DEFAULT_DEAD_LETTER,
        KafkaSyncOptions.OnBadMessage.DEAD_LETTER);
  }

  /** Starts it with this JVM's classpath and module options; its output goes to {@code log}. */
  static Process start(Path data, String bootstrap, String topics, KafkaFormat format, Path log)
      throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    for (String argument : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (argument.startsWith("--add-opens") || argument.startsWith("--add-exports")) {
        command.add(argument);
      }
    }
    command.add("-Xmx768m");
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(KafkaSyncProcess.class.getName());
    command.add(data.toString());
    command.add(bootstrap);
    command.add(topics);
    command.add(format.option());
    return new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(log.toFile())
        .start();
  }
}

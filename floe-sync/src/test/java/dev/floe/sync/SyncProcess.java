package dev.floe.sync;

import dev.floe.core.config.CatalogSettings;
import dev.floe.core.source.MySqlSourceAddress;
import dev.floe.core.sync.TableSelection;
import dev.floe.iceberg.CatalogFactory;
import dev.floe.iceberg.FloeCatalog;
import dev.floe.mysql.MySqlConnections;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A sync in its own JVM, so tests can kill it with SIGKILL. Arguments: data directory, source URL,
 * database, snapshot chunk rows, snapshot rows per second, checkpoint interval in seconds. Syncs
 * every table of the database but those named {@code raw_*}. Prints "running" once the job is
 * submitted.
 */
public final class SyncProcess {

  public static void main(String[] args) throws Exception {
    Path data = Path.of(args[0]);
    try (FloeCatalog catalog = new CatalogFactory().open(CatalogSettings.embedded(), data)) {
      SyncOptions options =
          options(
              data,
              args[1],
              args[2],
              Integer.parseInt(args[3]),
              Long.parseLong(args[4]),
              Duration.ofSeconds(Long.parseLong(args[5])));
      RunningSync sync =
          new SyncRunner(catalog, new MySqlConnections(Duration.ofSeconds(10))).start(options);
      System.out.println("running " + sync.restoredFrom().orElse("fresh"));
      System.out.flush();
      sync.await();
    }
  }

  /** The options the process syncs with, for a test that goes on with the same sync in-process. */
  static SyncOptions options(
      Path data,
      String sourceUrl,
      String database,
      int chunkRows,
      long snapshotRowsPerSecond,
      Duration checkpointInterval) {
    return new SyncOptions(
        "crash-test",
        MySqlSourceAddress.parse(sourceUrl, "--source"),
        // raw_* tables are left out, for a test to rename one into the selection
        TableSelection.of(
            List.of(database + "\\..*"), List.of(database + "\\.raw_.*"), Optional.empty()),
        checkpointInterval,
        2,
        data.resolve("sync/crash-test"),
        Optional.empty(),
        chunkRows,
        snapshotRowsPerSecond,
        java.util.Map.of());
  }

  /** Starts it with this JVM's classpath and module options. */
  static Process start(
      Path data, String sourceUrl, String database, int chunkRows, long snapshotRowsPerSecond)
      throws Exception {
    return start(
        data, sourceUrl, database, chunkRows, snapshotRowsPerSecond, Duration.ofSeconds(1));
  }

  /** Starts it with this JVM's classpath and module options. */
  static Process start(
      Path data,
      String sourceUrl,
      String database,
      int chunkRows,
      long snapshotRowsPerSecond,
      Duration checkpointInterval)
      throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    for (String argument : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (argument.startsWith("--add-opens") || argument.startsWith("--add-exports")) {
        command.add(argument);
      }
    }
    command.add("-Xmx1g");
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(SyncProcess.class.getName());
    command.add(data.toString());
    command.add(sourceUrl);
    command.add(database);
    command.add(String.valueOf(chunkRows));
    command.add(String.valueOf(snapshotRowsPerSecond));
    command.add(String.valueOf(checkpointInterval.toSeconds()));
    return new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(data.resolveSibling("sync-process-" + System.nanoTime() + ".log").toFile())
        .start();
  }
}

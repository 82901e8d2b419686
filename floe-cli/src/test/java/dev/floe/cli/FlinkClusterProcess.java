package dev.floe.cli;

import java.io.File;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;

/**
 * A Flink cluster in its own JVM for tests of {@code floe sync --flink}: a MiniCluster (JobManager
 * with its REST endpoint, one TaskManager with 4 slots) on a free port of 127.0.0.1. Its classpath
 * is the test's without Floe, Iceberg, the CDC connector, Debezium, the JDBC drivers and Hadoop, so
 * a job only runs if the jars it was submitted with carry them, as on a real cluster. Prints "rest
 * URL" once it serves.
 */
public final class FlinkClusterProcess implements AutoCloseable {

  /** Jars a plain Flink cluster does not have; Floe's job must bring them. */
  private static final Pattern NOT_ON_A_FLINK_CLUSTER =
      Pattern.compile(
          "(floe-.*|iceberg-.*|flink-connector-mysql-cdc.*|flink-connector-debezium.*"
              + "|flink-cdc-.*|debezium-.*|mysql-.*|mariadb-.*|sqlite-jdbc.*|hadoop-.*)\\.jar");

  private final Process process;
  private final int port;

  private FlinkClusterProcess(Process process, int port) {
    this.process = process;
    this.port = port;
  }

  public static void main(String[] args) throws Exception {
    Configuration configuration = new Configuration();
    configuration.set(RestOptions.BIND_ADDRESS, "127.0.0.1");
    configuration.set(RestOptions.ADDRESS, "127.0.0.1");
    configuration.set(RestOptions.BIND_PORT, "0");
    configuration.set(TaskManagerOptions.NUM_TASK_SLOTS, 4);
    MiniCluster cluster =
        new MiniCluster(
            new MiniClusterConfiguration.Builder()
                .setConfiguration(configuration)
                .setNumTaskManagers(1)
                .setNumSlotsPerTaskManager(4)
                .build());
    cluster.start();
    URI rest = cluster.getRestAddress().get();
    System.out.println("rest " + rest);
    System.out.flush();
    // runs until the test destroys the process
    Thread.currentThread().join();
  }

  /** Starts the cluster and waits until its REST endpoint serves. */
  static FlinkClusterProcess start(Path log) throws Exception {
    String ownClasses =
        Path.of(
                FlinkClusterProcess.class
                    .getProtectionDomain()
                    .getCodeSource()
                    .getLocation()
                    .toURI())
            .toString();
    String classpath =
        Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
            .filter(
                entry ->
                    entry.equals(ownClasses)
                        || !(new File(entry).isDirectory()
                            || NOT_ON_A_FLINK_CLUSTER.matcher(new File(entry).getName()).matches()))
            .collect(Collectors.joining(File.pathSeparator));
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    for (String argument : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (argument.startsWith("--add-opens") || argument.startsWith("--add-exports")) {
        command.add(argument);
      }
    }
    command.addAll(List.of("-Xmx1g", "-cp", classpath, FlinkClusterProcess.class.getName()));
    Process process =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    Instant deadline = Instant.now().plus(Duration.ofSeconds(90));
    while (Instant.now().isBefore(deadline) && process.isAlive()) {
      if (Files.exists(log)) {
        for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
          if (line.startsWith("rest http")) {
            return new FlinkClusterProcess(process, URI.create(line.substring(5).trim()).getPort());
          }
        }
      }
      Thread.sleep(200); // polling the cluster's output, bounded by the deadline
    }
    process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    throw new AssertionError(
        "the Flink cluster did not start:\n" + Files.readString(log, StandardCharsets.UTF_8));
  }

  int port() {
    return port;
  }

  @Override
  public void close() throws Exception {
    process.destroy();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    }
  }
}

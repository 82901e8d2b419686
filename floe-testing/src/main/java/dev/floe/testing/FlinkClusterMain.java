package dev.floe.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Runs a {@link FlinkCluster} until this process is stopped (SIGTERM or Ctrl-C), for {@code
 * scripts/flink-cluster.sh}: {@code --directory DIR [--task-managers N] [--rest-port PORT]}. The
 * cluster's files stay in DIR; {@code DIR/cluster.pid} holds this process's id while the cluster
 * runs. Exit code 2 on bad input or when the cluster does not start.
 */
public final class FlinkClusterMain {

  private static final String USAGE =
      "Usage: scripts/flink-cluster.sh start [--task-managers N] [--rest-port PORT]";

  private FlinkClusterMain() {}

  public static void main(String[] args) throws InterruptedException {
    Path directory = null;
    int taskManagers = 2;
    int restPort = 8081;
    try {
      for (int i = 0; i < args.length; i++) {
        String option = args[i];
        if (i + 1 >= args.length) {
          throw new IllegalArgumentException(option + " needs a value");
        }
        String value = args[++i];
        switch (option) {
          case "--directory" -> directory = Path.of(value).toAbsolutePath();
          case "--task-managers" -> taskManagers = number(option, value, 1, 64);
          case "--rest-port" -> restPort = number(option, value, 1, 65535);
          default -> throw new IllegalArgumentException("unknown option " + option);
        }
      }
      if (directory == null) {
        throw new IllegalArgumentException("--directory is missing");
      }
      checkFree(restPort);
    } catch (IllegalArgumentException badInput) {
      System.err.println("Error: " + badInput.getMessage() + ". " + USAGE);
      System.exit(2);
      return;
    }

    FlinkCluster cluster;
    try {
      cluster =
          FlinkCluster.builder()
              .directory(directory)
              .taskManagers(taskManagers)
              .restPort(restPort)
              .start();
    } catch (RuntimeException failure) {
      System.err.println("Error: " + failure.getMessage());
      System.exit(2);
      return;
    }
    Path pidFile = directory.resolve("cluster.pid");
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  cluster.close();
                  try {
                    Files.deleteIfExists(pidFile);
                  } catch (IOException e) {
                    System.err.println("Cannot delete " + pidFile + ": " + e.getMessage());
                  }
                  System.out.println("Stopped the Flink cluster at " + cluster.restUrl() + ".");
                },
                "floe-flink-cluster-shutdown"));
    try {
      Files.writeString(pidFile, ProcessHandle.current().pid() + "\n", StandardCharsets.US_ASCII);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + pidFile, e);
    }
    printReady(cluster, directory);
    // The cluster runs until this process is stopped; the shutdown hook stops it.
    Thread.currentThread().join();
  }

  private static void printReady(FlinkCluster cluster, Path directory) {
    List<FlinkCluster.TaskManager> taskManagers = cluster.taskManagers();
    String pids =
        taskManagers.stream()
            .map(taskManager -> Long.toString(taskManager.pid()))
            .collect(Collectors.joining(", "));
    boolean one = taskManagers.size() == 1;
    System.out.println(
        "Flink cluster ready: a JobManager (pid "
            + cluster.jobManagerPid()
            + ") and "
            + taskManagers.size()
            + (one ? " TaskManager (pid " : " TaskManagers (pids ")
            + pids
            + "), "
            + taskManagers.size() * cluster.slotsPerTaskManager()
            + " slots.");
    System.out.println("  Web UI and REST API: " + cluster.restUrl());
    System.out.println(
        "  Sync on it:          ./floe sync --flink " + cluster.restAddress() + " ...");
    System.out.println("  Configuration:       " + directory.resolve("conf/config.yaml"));
    System.out.println("  Logs:                " + directory.resolve("log"));
    System.out.flush();
  }

  private static int number(String option, String value, int min, int max) {
    try {
      int number = Integer.parseInt(value);
      if (number >= min && number <= max) {
        return number;
      }
    } catch (NumberFormatException notANumber) {
      // explained below
    }
    throw new IllegalArgumentException(
        option + " '" + value + "' is not a number from " + min + " to " + max);
  }

  private static void checkFree(int port) {
    try {
      new ServerSocket(port, 1, InetAddress.getLoopbackAddress()).close();
    } catch (IOException inUse) {
      throw new IllegalArgumentException(
          "port "
              + port
              + " on 127.0.0.1 is in use (another Flink cluster?): stop what listens there or"
              + " give --rest-port");
    }
  }
}

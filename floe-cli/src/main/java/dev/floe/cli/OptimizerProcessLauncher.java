package dev.floe.cli;

import static java.util.Objects.requireNonNull;

import dev.floe.core.Secret;
import dev.floe.server.workers.LaunchedProcess;
import dev.floe.server.workers.WorkerGroups;
import dev.floe.server.workers.WorkerLauncher;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Starts the {@code floe optimizer} processes of a {@code processes} group: the group's Java (this
 * JVM's by default) with the group's heap, this JVM's classpath and module options, the keeper's
 * data directory (for spill files), and the API token in the environment (never on the command
 * line, where {@code ps} shows it). Each process watches the keeper's pid and stops when the keeper
 * is gone, so a killed keeper leaves no workers behind. Output goes to {@code
 * <data-dir>/logs/optimizer-GROUP-N.log}.
 */
public final class OptimizerProcessLauncher implements WorkerLauncher {

  private final Path dataDirectory;
  private final Optional<Secret> token;

  public OptimizerProcessLauncher(Path dataDirectory, Optional<Secret> token) {
    this.dataDirectory = requireNonNull(dataDirectory, "dataDirectory is null");
    this.token = requireNonNull(token, "token is null");
  }

  @Override
  public Launched launch(WorkerGroups.Group group, URI server, int number) throws IOException {
    Path logs = dataDirectory.resolve("logs");
    Files.createDirectories(logs);
    Path log = logs.resolve("optimizer-" + group.name() + "-" + number + ".log");
    List<String> command = new ArrayList<>();
    command.add(
        group
            .java()
            .orElseGet(() -> Path.of(System.getProperty("java.home"), "bin", "java").toString()));
    group.heapBytes().ifPresent(heap -> command.add("-Xmx" + (heap >> 20) + "m"));
    for (String argument : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (argument.startsWith("--add-opens") || argument.startsWith("--add-exports")) {
        command.add(argument);
      }
    }
    command.addAll(
        List.of(
            "-cp",
            System.getProperty("java.class.path"),
            FloeMain.class.getName(),
            "--data-dir",
            dataDirectory.toString(),
            "optimizer",
            "--server",
            server.toString(),
            "--group",
            group.name(),
            "--threads",
            Integer.toString(group.threadsPerWorker())));
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    builder.environment().remove(OptimizerCommand.TOKEN_VARIABLE);
    token.ifPresent(
        secret -> builder.environment().put(OptimizerCommand.TOKEN_VARIABLE, secret.reveal()));
    builder
        .environment()
        .put(OptimizerCommand.PARENT_VARIABLE, Long.toString(ProcessHandle.current().pid()));
    return new LaunchedProcess(builder.start(), log);
  }
}

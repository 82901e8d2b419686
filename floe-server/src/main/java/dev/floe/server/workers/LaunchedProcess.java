package dev.floe.server.workers;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;

/** A {@link WorkerLauncher.Launched} that is an operating-system process writing to a log file. */
public final class LaunchedProcess implements WorkerLauncher.Launched {

  private static final int TAIL_LINES = 5;

  private final Process process;
  private final Path log;

  public LaunchedProcess(Process process, Path log) {
    this.process = requireNonNull(process, "process is null");
    this.log = requireNonNull(log, "log is null");
  }

  @Override
  public long pid() {
    return process.pid();
  }

  @Override
  public boolean isAlive() {
    return process.isAlive();
  }

  @Override
  public OptionalInt exitCode() {
    return process.isAlive() ? OptionalInt.empty() : OptionalInt.of(process.exitValue());
  }

  @Override
  public void stop() {
    process.destroy();
  }

  @Override
  public void kill() {
    process.destroyForcibly();
  }

  @Override
  public boolean awaitExit(Duration timeout) throws InterruptedException {
    return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Override
  public String outputTail() {
    try {
      List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
      List<String> tail = lines.subList(Math.max(0, lines.size() - TAIL_LINES), lines.size());
      return (tail.isEmpty() ? "no output" : "last output: " + String.join(" | ", tail))
          + " (log "
          + log
          + ")";
    } catch (IOException e) {
      return "its log " + log + " cannot be read: " + e.getMessage();
    }
  }
}

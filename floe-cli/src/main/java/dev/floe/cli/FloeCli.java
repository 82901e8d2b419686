package dev.floe.cli;

import static java.util.Objects.requireNonNull;

import dev.floe.core.error.FloeException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;

/**
 * Runs one {@code floe} invocation: parses the arguments, runs the command, turns failures into a
 * one-paragraph message and an exit code ({@link ExitCodes}). Everything the commands need from the
 * outside (output streams, environment, working directory) comes in here, so tests run the real CLI
 * in-process.
 */
public final class FloeCli {

  private static final Logger LOG = LoggerFactory.getLogger(FloeCli.class);

  private final PrintWriter out;
  private final PrintWriter err;
  private final Map<String, String> environment;
  private final Path workingDirectory;
  private final Clock clock;

  public FloeCli(
      PrintWriter out, PrintWriter err, Map<String, String> environment, Path workingDirectory) {
    this(out, err, environment, workingDirectory, Clock.systemUTC());
  }

  public FloeCli(
      PrintWriter out,
      PrintWriter err,
      Map<String, String> environment,
      Path workingDirectory,
      Clock clock) {
    this.out = requireNonNull(out, "out is null");
    this.err = requireNonNull(err, "err is null");
    this.environment = Map.copyOf(requireNonNull(environment, "environment is null"));
    this.workingDirectory = requireNonNull(workingDirectory, "workingDirectory is null");
    this.clock = requireNonNull(clock, "clock is null");
  }

  /** Runs the command line and returns the exit code. */
  public int run(String... args) {
    FloeCommand root = new FloeCommand(environment, workingDirectory, clock);
    CommandLine commandLine = new CommandLine(root);
    commandLine.setOut(out);
    commandLine.setErr(err);
    commandLine.setCaseInsensitiveEnumValuesAllowed(true);
    commandLine.setExecutionStrategy(
        parseResult -> {
          root.prepare();
          return new CommandLine.RunLast().execute(parseResult);
        });
    commandLine.setExecutionExceptionHandler(
        (exception, failedCommand, parseResult) -> report(root, exception));
    int exitCode = commandLine.execute(args);
    try {
      root.closeContext();
    } catch (RuntimeException e) {
      int closeExitCode = report(root, e);
      exitCode = exitCode == ExitCodes.OK ? closeExitCode : exitCode;
    }
    out.flush();
    err.flush();
    return exitCode;
  }

  private int report(FloeCommand root, Exception exception) {
    Throwable failure = exception;
    if (failure instanceof CommandLine.ExecutionException && failure.getCause() != null) {
      failure = failure.getCause();
    }
    if (failure instanceof FloeException floeException) {
      LOG.debug("command failed", floeException);
      err.println("Error: " + floeException.getMessage());
      root.logFile().ifPresent(file -> err.println("Details: " + file));
      return ExitCodes.COULD_NOT_RUN;
    }
    LOG.error("unexpected failure", failure);
    err.println(
        "Error: Floe failed unexpectedly ("
            + failure
            + "). This is a bug in Floe: please report it with the stack trace, which --verbose"
            + " writes to "
            + root.logFile().map(Path::toString).orElse("<data-dir>/logs/floe.log")
            + ".");
    return ExitCodes.INTERNAL_ERROR;
  }
}

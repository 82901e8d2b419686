package dev.floe.cli;

import dev.floe.core.Secret;
import dev.floe.core.config.FloeSettings;
import dev.floe.core.error.FloeException;
import dev.floe.optimizer.OptimizerWorker;
import java.io.PrintWriter;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import sun.misc.Signal;

/** {@code floe optimizer}: a worker that rewrites file groups for a keeper, until SIGTERM. */
@Command(
    name = "optimizer",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Run an optimizer worker for a keeper (floe serve): it takes file-group tasks of its worker"
          + " group, reads and rewrites the table's files itself, and hands the written files"
          + " back; the keeper commits them. It reconnects when the keeper restarts. Ctrl-C or"
          + " SIGTERM hands its running tasks back and stops it. With keeper.api-token set (or"
          + " the FLOE_KEEPER_TOKEN environment variable) it sends the token. See"
          + " docs/keeper.md.",
      "Exit code: 0 stopped, 2 could not start or was refused (a wrong token, an unknown group)."
    })
final class OptimizerCommand implements Callable<Integer> {

  /** The environment variable a worker without floe.yaml takes the keeper's token from. */
  static final String TOKEN_VARIABLE = "FLOE_KEEPER_TOKEN";

  /**
   * Set by a keeper that started this worker (a {@code processes} group) to its own pid: the worker
   * stops when that process is gone, so a killed keeper leaves no workers behind.
   */
  static final String PARENT_VARIABLE = "FLOE_OPTIMIZER_PARENT_PID";

  private static final Duration STOP_GRACE = Duration.ofSeconds(10);

  @ParentCommand FloeCommand floe;

  @Option(
      names = "--server",
      required = true,
      paramLabel = "URL",
      description = "The keeper's address, e.g. http://127.0.0.1:8420.")
  String server;

  @Option(
      names = "--group",
      paramLabel = "NAME",
      description = "The worker group to serve (default: the keeper's default group).")
  String group;

  @Option(
      names = "--threads",
      paramLabel = "N",
      defaultValue = "1",
      description = "Tasks to run at once (default: ${DEFAULT-VALUE}).")
  int threads;

  @Override
  public Integer call() throws InterruptedException {
    PrintWriter out = floe.spec.commandLine().getOut();
    if (threads < 1) {
      throw FloeException.badInput("--threads must be 1 or more, got " + threads + ".");
    }
    FloeSettings settings = floe.settings();
    Optional<Secret> token = settings.keeper().apiToken();
    if (token.isEmpty()) {
      token = Optional.ofNullable(floe.environment().get(TOKEN_VARIABLE)).map(Secret::of);
    }
    OptimizerWorker worker =
        new OptimizerWorker(
            new OptimizerWorker.Options(
                serverUri(),
                group == null ? "" : group,
                threads,
                token,
                settings.dataDirectory().resolve("tmp").resolve("optimizer"),
                Map.of(),
                Duration.ofSeconds(5)));
    CountDownLatch stopRequested = new CountDownLatch(1);
    Thread running =
        new Thread(
            () -> {
              try {
                worker.run();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              } finally {
                stopRequested.countDown();
              }
            },
            "floe-optimizer-main");
    handle("INT", stopRequested);
    handle("TERM", stopRequested);
    stopWithParent(out, stopRequested);
    out.println(
        "Optimizer worker for "
            + server
            + (group == null ? "" : " (group " + group + ")")
            + " with "
            + threads
            + " thread(s). Ctrl-C stops it.");
    out.flush();
    Throwable[] failure = new Throwable[1];
    running.setUncaughtExceptionHandler(
        (thread, error) -> {
          failure[0] = error;
          stopRequested.countDown();
        });
    running.start();
    stopRequested.await();
    worker.stop(STOP_GRACE);
    running.join(STOP_GRACE.toMillis());
    if (failure[0] != null) {
      throw FloeException.badInput("The keeper refused this worker: " + failure[0].getMessage());
    }
    out.println("Stopped; " + worker.completedTasks() + " task(s) completed.");
    out.flush();
    return ExitCodes.OK;
  }

  private URI serverUri() {
    try {
      URI uri = new URI(server);
      if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme())
          || uri.getHost() == null) {
        throw new URISyntaxException(server, "not an http(s) URL with a host");
      }
      return uri;
    } catch (URISyntaxException e) {
      throw FloeException.badInput(
          "--server must be the keeper's http(s) URL, e.g. http://127.0.0.1:8420; got '"
              + server
              + "'.");
    }
  }

  /** With {@link #PARENT_VARIABLE} set, stops once that process ended. */
  private void stopWithParent(PrintWriter out, CountDownLatch stopRequested) {
    String parent = floe.environment().get(PARENT_VARIABLE);
    if (parent == null || parent.isBlank()) {
      return;
    }
    long pid;
    try {
      pid = Long.parseLong(parent.trim());
    } catch (NumberFormatException e) {
      throw FloeException.badInput(
          PARENT_VARIABLE
              + " must be the pid of the keeper that started this worker; got '"
              + parent
              + "'. Unset it for a worker of your own.");
    }
    Runnable gone =
        () -> {
          out.println("The keeper that started this worker (pid " + pid + ") is gone; stopping.");
          out.flush();
          stopRequested.countDown();
        };
    ProcessHandle.of(pid).ifPresentOrElse(handle -> handle.onExit().thenRun(gone), gone);
  }

  private static void handle(String signal, CountDownLatch stopRequested) {
    try {
      Signal.handle(new Signal(signal), received -> stopRequested.countDown());
    } catch (IllegalArgumentException e) {
      // The signal does not exist here or the JVM reserves it: the default handling stops.
    }
  }
}

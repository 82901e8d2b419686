package dev.floe.cli;

import dev.floe.core.config.FloeSettings;
import dev.floe.core.config.KeeperSettings;
import dev.floe.core.config.ListenAddress;
import dev.floe.core.error.FloeException;
import dev.floe.server.KeeperService;
import java.io.PrintWriter;
import java.net.URI;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import sun.misc.Signal;

/** {@code floe serve}: the keeper service, until Ctrl-C or SIGTERM. */
@Command(
    name = "serve",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Run the keeper: find every Iceberg table of the configured catalogs (and those under"
          + " keeper.catalogs), compact what needs it, expire snapshots, clean metadata and"
          + " orphan files, watch each table's history, and serve the REST API"
          + " (/api/v1, /api/v1/openapi.json) and Prometheus metrics (/metrics) on keeper.listen"
          + " (default 127.0.0.1:8420). Ctrl-C or SIGTERM stops it cleanly. See docs/keeper.md.",
      "Exit code: 0 stopped, 2 could not start (bad settings, port in use, store unreachable)."
    })
final class ServeCommand implements Callable<Integer> {

  @ParentCommand FloeCommand floe;

  @Option(
      names = "--listen",
      paramLabel = "HOST:PORT",
      description = "Where the API listens (default: keeper.listen, 127.0.0.1:8420).")
  String listen;

  @Override
  public Integer call() throws InterruptedException {
    PrintWriter out = floe.spec.commandLine().getOut();
    FloeSettings settings = floe.settings();
    KeeperSettings keeper = settings.keeper();
    if (listen != null) {
      keeper =
          withListen(
              keeper,
              ListenAddress.parse(listen)
                  .orElseThrow(
                      () ->
                          FloeException.badInput(
                              "--listen must be HOST:PORT with a port from 1 to 65535, e.g."
                                  + " 127.0.0.1:8420 or [::1]:8420; got '"
                                  + listen
                                  + "'.")));
    }
    RunningKeeper running =
        RunningKeeper.start(settings, keeper, keeper.listen(), floe.context().clock());
    KeeperService service = running.service();
    CountDownLatch stopRequested = new CountDownLatch(1);
    AtomicBoolean stopped = new AtomicBoolean();
    Runnable stop =
        () -> {
          if (stopped.compareAndSet(false, true)) {
            out.println("Stopping the keeper: running rewrites finish or are handed back...");
            out.flush();
            running.close();
            out.println("Stopped.");
            out.flush();
          }
        };
    // Ctrl-C and SIGTERM ask the main thread to stop, so the command ends with exit code 0; the
    // shutdown hook covers every other way the JVM goes down (SIGHUP, an exit elsewhere).
    handle("INT", stopRequested);
    handle("TERM", stopRequested);
    Runtime.getRuntime().addShutdownHook(new Thread(stop, "floe-serve-stop"));
    out.println(
        "Keeper serving "
            + String.join(", ", service.catalogNames())
            + " on http://"
            + (keeper.listen().host().contains(":")
                ? "[" + keeper.listen().host() + "]"
                : keeper.listen().host())
            + ":"
            + running.port()
            + "/ (the dashboard; API at /api/v1, metrics at /metrics); store "
            + service.store().description()
            + ". Ctrl-C stops it.");
    out.flush();
    stopRequested.await();
    stop.run();
    return ExitCodes.OK;
  }

  /**
   * Where the worker processes the keeper starts reach it: its listen address, or loopback when it
   * listens on every address.
   */
  static URI workerAddress(ListenAddress listen, int port) {
    String host = listen.host();
    if (host.equals("0.0.0.0") || host.equals("::") || host.equals("[::]") || host.isEmpty()) {
      host = "127.0.0.1";
    }
    return URI.create("http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port);
  }

  /** Makes {@code signal} (INT, TERM) count {@code stopRequested} down, where the JVM lets it. */
  static void handle(String signal, CountDownLatch stopRequested) {
    try {
      Signal.handle(new Signal(signal), received -> stopRequested.countDown());
    } catch (IllegalArgumentException e) {
      // The signal does not exist here or the JVM reserves it: the shutdown hook still stops.
    }
  }

  private static KeeperSettings withListen(KeeperSettings keeper, ListenAddress address) {
    return keeper.toBuilder().listen(address).build();
  }
}

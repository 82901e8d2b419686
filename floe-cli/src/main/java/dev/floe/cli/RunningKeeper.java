package dev.floe.cli;

import static java.util.Objects.requireNonNull;

import dev.floe.core.WorkerToken;
import dev.floe.core.config.FloeSettings;
import dev.floe.core.config.KeeperSettings;
import dev.floe.core.config.ListenAddress;
import dev.floe.server.KeeperService;
import dev.floe.server.http.KeeperHttpServer;
import dev.floe.server.maintenance.IcebergMaintenanceJobs;
import java.net.URI;
import java.time.Clock;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The keeper as {@code floe serve} runs it: the {@link KeeperService} built from the settings with
 * the CLI's worker launchers, its loops started and its HTTP edge (API, dashboard, metrics)
 * listening. {@code floe serve} and {@code floe demo} both start it here, so the demo shows the
 * same keeper.
 *
 * <p>Thread-safe: {@link #close} may be called from any thread, more than once.
 */
final class RunningKeeper implements AutoCloseable {

  private final KeeperService service;
  private final KeeperHttpServer http;
  private final ListenAddress listen;
  private final AtomicBoolean closed = new AtomicBoolean();

  private RunningKeeper(KeeperService service, KeeperHttpServer http, ListenAddress listen) {
    this.service = service;
    this.http = http;
    this.listen = listen;
  }

  /**
   * Builds and starts the keeper.
   *
   * @param keeper the keeper settings to run with (the settings' own, or changed by the caller)
   * @param listen where the HTTP edge listens (port 0: a free port)
   * @throws dev.floe.core.error.FloeException BAD_INPUT for unusable settings or a port in use,
   *     SOURCE_UNAVAILABLE when the store or a catalog cannot be opened; nothing is left running
   */
  static RunningKeeper start(
      FloeSettings settings, KeeperSettings keeper, ListenAddress listen, Clock clock) {
    requireNonNull(settings, "settings is null");
    requireNonNull(keeper, "keeper is null");
    requireNonNull(listen, "listen is null");
    KeeperService service =
        KeeperService.create(
            settings.dataDirectory(),
            settings.catalog(),
            keeper,
            clock,
            new IcebergMaintenanceJobs(),
            new OptimizerProcessLauncher(settings.dataDirectory(), keeper.apiToken()),
            new FlinkWorkerJobLauncher(
                settings.dataDirectory().resolve("tmp").resolve("flink-worker-jars"),
                keeper.apiToken().map(WorkerToken::derive)));
    try {
      service.start();
      KeeperHttpServer http = KeeperHttpServer.start(service, listen, keeper.apiToken());
      service.serveWorkersAt(ServeCommand.workerAddress(listen, http.port()));
      return new RunningKeeper(service, http, listen);
    } catch (RuntimeException e) {
      service.close();
      throw e;
    }
  }

  KeeperService service() {
    return service;
  }

  /** The port the HTTP edge listens on. */
  int port() {
    return http.port();
  }

  /**
   * The dashboard's address: the listen host (loopback when it listens on every address) and the
   * bound port, ending in {@code /}.
   */
  URI dashboard() {
    return URI.create(ServeCommand.workerAddress(listen, http.port()).toString() + "/");
  }

  /**
   * Stops it: the worker processes it started hand their tasks back while the HTTP edge still
   * serves, then the edge closes and the service stops its loops (running rewrites finish or are
   * handed back). Calls after the first do nothing.
   */
  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      try {
        service.stopProcesses();
      } finally {
        try {
          http.close();
        } finally {
          service.close();
        }
      }
    }
  }
}

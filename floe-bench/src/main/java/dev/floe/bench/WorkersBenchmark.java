package dev.floe.bench;

import dev.floe.cli.OptimizerProcessLauncher;
import dev.floe.core.config.CatalogSettings;
import dev.floe.core.config.KeeperSettings;
import dev.floe.core.config.ListenAddress;
import dev.floe.core.config.MaintenanceIntervals;
import dev.floe.core.config.OptimizerSettings;
import dev.floe.core.config.StoreSettings;
import dev.floe.core.config.WorkerGroupSettings;
import dev.floe.core.state.TableKey;
import dev.floe.iceberg.CatalogFactory;
import dev.floe.iceberg.FloeCatalog;
import dev.floe.server.KeeperService;
import dev.floe.server.http.KeeperHttpServer;
import dev.floe.server.maintenance.IcebergMaintenanceJobs;
import dev.floe.server.store.RunRecord;
import dev.floe.server.store.TableRecord;
import dev.floe.server.store.TableStatus;
import dev.floe.server.workers.WorkerLauncher;
import dev.floe.server.workers.WorkerRegistry;
import dev.floe.testing.Poll;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Optimizer workers (issue 15). {@code --mode=throughput}: the same compaction backlog (tables of
 * small files and equality deletes, as a streaming upsert writer leaves them) cleared by {@code
 * floe serve} with 1, 2 and 4 worker threads inside it and with 1, 2 and 4 {@code floe optimizer}
 * processes it starts itself; bytes rewritten per second and per CPU second (the keeper's JVM and
 * the worker processes), each against 1 thread in the same run. {@code --mode=recovery}: a group of
 * two processes; a worker holding a task is killed with SIGKILL, several times; the time until
 * every task it held runs again, against Amoro's detection (60 s heartbeat timeout) plus its
 * capacity check (every 5 minutes).
 */
final class WorkersBenchmark implements Benchmark {

  private static final double AMORO_RECOVERY_SECONDS = 60 + 300;

  @Override
  public String name() {
    return "workers";
  }

  @Override
  public String description() {
    return "optimizer workers: backlog throughput of 1/2/4 threads and processes vs 1 thread"
        + " (--mode=throughput), and kill -9 of a worker to its task running again"
        + " (--mode=recovery)";
  }

  @Override
  public BenchmarkResult run(BenchmarkContext context) throws Exception {
    return context.choiceParameter("mode", List.of("throughput", "recovery")).equals("throughput")
        ? throughput(context)
        : recovery(context);
  }

  private record Backlog(int tables, int partitions, int rows, int commits) {}

  private static Backlog backlog(BenchmarkContext context) {
    return new Backlog(
        context.intParameter("tables", 8),
        context.intParameter("partitions", 4),
        context.intParameter("rows", 100_000),
        context.intParameter("commits", 20));
  }

  private record Outcome(double seconds, double cpuSeconds, long bytesRead, long bytesWritten) {
    double megabytesPerSecond() {
      return bytesRead / 1e6 / seconds;
    }

    double megabytesPerCpuSecond() {
      return bytesRead / 1e6 / cpuSeconds;
    }
  }

  private BenchmarkResult throughput(BenchmarkContext context) throws Exception {
    Backlog backlog = backlog(context);
    int[] counts =
        Arrays.stream(context.parameters().getOrDefault("workers", "1,2,4").split(","))
            .mapToInt(text -> Integer.parseInt(text.trim()))
            .toArray();
    List<String> kinds =
        List.of(context.parameters().getOrDefault("kinds", "threads,processes").split(","));
    List<BenchmarkResult.Measurement> measurements = new ArrayList<>();
    List<BenchmarkResult.Ratio> ratios = new ArrayList<>();
    // One backlog, filled once; each run starts from it again by rolling the tables back to it
    // (a rewrite deletes no data file, so the backlog's files are all still there) with a keeper
    // store of its own, so every run sees the same files and the keeper remembers nothing.
    Path data = context.scratchDirectory().resolve("workers");
    long filling = System.nanoTime();
    Map<String, Long> backlogSnapshots = fill(data, backlog);
    measurements.add(
        new BenchmarkResult.Measurement(
            "backlog written", (System.nanoTime() - filling) / 1e9, "s"));
    // The first keeper in this JVM pays for loading and compiling its classes: an unmeasured
    // round first, so the 1-thread baseline is not charged for it.
    clear(data, "threads", 2, backlog, backlogSnapshots, "warm-up");
    Outcome baseline = null;
    int run = 0;
    for (String kind : kinds) {
      for (int count : counts) {
        CpuMeter.awaitIdle(null, 30); // no MariaDB here: this JVM only
        Outcome outcome =
            clear(data, kind.trim(), count, backlog, backlogSnapshots, "run-" + (++run));
        String label = count + " " + kind.trim();
        System.out.printf(
            Locale.ROOT,
            "%s: %.1f s, %.1f MB read, %.1f MB/s, %.2f MB per CPU second%n",
            label,
            outcome.seconds(),
            outcome.bytesRead() / 1e6,
            outcome.megabytesPerSecond(),
            outcome.megabytesPerCpuSecond());
        measurements.add(
            new BenchmarkResult.Measurement(
                label + ": backlog cleared in", outcome.seconds(), "s"));
        measurements.add(
            new BenchmarkResult.Measurement(
                label + ": bytes rewritten per second", outcome.megabytesPerSecond(), "MB/s"));
        measurements.add(
            new BenchmarkResult.Measurement(
                label + ": bytes rewritten per CPU second",
                outcome.megabytesPerCpuSecond(),
                "MB/CPU-s"));
        measurements.add(
            new BenchmarkResult.Measurement(label + ": CPU seconds", outcome.cpuSeconds(), "s"));
        if (baseline == null) {
          baseline = outcome;
          continue;
        }
        ratios.add(
            new BenchmarkResult.Ratio(
                label + " vs " + counts[0] + " " + kinds.get(0) + ": bytes per second",
                outcome.megabytesPerSecond(),
                baseline.megabytesPerSecond(),
                "MB/s",
                ""));
        ratios.add(
            new BenchmarkResult.Ratio(
                label + " vs " + counts[0] + " " + kinds.get(0) + ": bytes per CPU second",
                outcome.megabytesPerCpuSecond(),
                baseline.megabytesPerCpuSecond(),
                "MB/CPU-s",
                ""));
      }
    }
    measurements.add(
        new BenchmarkResult.Measurement(
            "machine cores", Runtime.getRuntime().availableProcessors(), "cores"));
    return new BenchmarkResult(measurements, ratios);
  }

  private BenchmarkResult recovery(BenchmarkContext context) throws Exception {
    Backlog backlog = backlog(context);
    int kills = context.intParameter("kills", 3);
    Path data = context.scratchDirectory().resolve("workers-recovery");
    fill(data, new Backlog(backlog.tables() * kills, backlog.partitions(), backlog.rows(), 20));
    List<Double> runningAgain = new ArrayList<>();
    List<Double> replaced = new ArrayList<>();
    Duration leaseTimeout = Duration.ofSeconds(30);
    try (Keeper keeper =
        Keeper.start(data, "processes", 2, leaseTimeout, StoreSettings.defaults())) {
      for (int kill = 0; kill < kills; kill++) {
        WorkerRegistry.Worker victim =
            Poll.until(
                "a worker process holding a task",
                Duration.ofMinutes(5),
                Duration.ofMillis(20),
                () ->
                    keeper.service.workerRegistry().all().stream()
                        .filter(worker -> worker.pid().isPresent())
                        .filter(worker -> !keeper.service.queue().leasedTo(worker.id()).isEmpty())
                        .findFirst());
        List<Long> held = keeper.service.queue().leasedTo(victim.id());
        long pid = victim.pid().orElseThrow();
        ProcessHandle.of(pid).orElseThrow().destroyForcibly();
        long killedAt = System.nanoTime();
        Poll.until(
            "the killed worker's tasks running again",
            Duration.ofMinutes(5),
            Duration.ofMillis(20),
            () ->
                held.stream()
                    .allMatch(
                        id ->
                            !keeper.service.queue().contains(id)
                                || keeper
                                    .service
                                    .queue()
                                    .holder(id)
                                    .filter(holder -> !holder.equals(victim.id()))
                                    .isPresent()));
        double again = (System.nanoTime() - killedAt) / 1e9;
        Poll.until(
            "a replacement worker process registered",
            Duration.ofMinutes(5),
            Duration.ofMillis(20),
            () ->
                keeper.service.workerRegistry().live("local") == 2
                    && keeper.service.workerRegistry().all().stream()
                        .noneMatch(worker -> worker.pid().equals(Optional.of(pid))));
        double back = (System.nanoTime() - killedAt) / 1e9;
        System.out.printf(
            Locale.ROOT,
            "kill %d: pid %d held %d task(s); running again after %.1f s, replaced after %.1f s%n",
            kill + 1,
            pid,
            held.size(),
            again,
            back);
        runningAgain.add(again);
        replaced.add(back);
      }
    }
    double slowest = runningAgain.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
    double slowestReplaced = replaced.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
    double bound = leaseTimeout.toSeconds() + 5;
    return new BenchmarkResult(
        List.of(
            new BenchmarkResult.Measurement(
                "kill -9 to the task running again, slowest of " + kills, slowest, "s"),
            new BenchmarkResult.Measurement(
                "kill -9 to a replacement process registered, slowest of " + kills,
                slowestReplaced,
                "s"),
            new BenchmarkResult.Measurement(
                "goal bound: lease timeout + one check period", bound, "s")),
        List.of(
            new BenchmarkResult.Ratio(
                "kill -9 to the task running again vs Amoro's 60 s detection + 5 min check",
                slowest,
                AMORO_RECOVERY_SECONDS,
                "s",
                "<= " + String.format(Locale.ROOT, "%.3f", bound / AMORO_RECOVERY_SECONDS))));
  }

  /** Writes the backlog; returns each table's snapshot holding it. */
  private static Map<String, Long> fill(Path data, Backlog backlog) {
    Map<String, Long> snapshots = new java.util.LinkedHashMap<>();
    try (FloeCatalog catalog = new CatalogFactory().open(CatalogSettings.embedded(), data)) {
      for (int t = 0; t < backlog.tables(); t++) {
        Table table =
            catalog
                .catalog()
                .createTable(
                    TableIdentifier.of("bench", "t" + t),
                    BenchTables.SCHEMA,
                    PartitionSpec.builderFor(BenchTables.SCHEMA).identity("day").build(),
                    Map.of(TableProperties.FORMAT_VERSION, "2"));
        BenchTables.fillStreamingTable(
            table,
            backlog.partitions(),
            backlog.partitions(),
            1,
            backlog.rows(),
            backlog.commits());
        snapshots.put("bench.t" + t, table.currentSnapshot().snapshotId());
      }
    }
    return snapshots;
  }

  /** Rolls every table back to its backlog snapshot and lets a fresh keeper clear it. */
  private static Outcome clear(
      Path data,
      String kind,
      int count,
      Backlog backlog,
      Map<String, Long> backlogSnapshots,
      String storeName)
      throws Exception {
    try (FloeCatalog catalog = new CatalogFactory().open(CatalogSettings.embedded(), data)) {
      backlogSnapshots.forEach(
          (name, snapshot) -> {
            Table table = catalog.catalog().loadTable(TableIdentifier.parse(name));
            if (table.currentSnapshot().snapshotId() != snapshot) {
              table.manageSnapshots().rollbackTo(snapshot).commit();
            }
          });
    }
    StoreSettings store =
        new StoreSettings(
            Optional.of("jdbc:sqlite:" + data.resolve("keeper-" + storeName + ".db")),
            Optional.empty(),
            Optional.empty());
    double cpuBefore = CpuMeter.jvmCpuSeconds();
    long started = System.nanoTime();
    try (Keeper keeper = Keeper.start(data, kind, count, Duration.ofSeconds(30), store)) {
      Poll.until(
          "every table compacted",
          Duration.ofHours(2),
          Duration.ofMillis(100),
          () -> cleared(keeper.service, backlog.tables()));
      double seconds = (System.nanoTime() - started) / 1e9;
      double cpu = CpuMeter.jvmCpuSeconds() - cpuBefore + keeper.workerCpuSeconds();
      long read = 0;
      long written = 0;
      for (String name : backlogSnapshots.keySet()) {
        for (RunRecord run : keeper.service.store().runs(new TableKey("floe", name), 1000)) {
          if (run.kind().equals("optimize")) {
            read += run.bytesIn();
            written += run.bytesOut();
          }
        }
      }
      return new Outcome(seconds, cpu, read, written);
    }
  }

  private static boolean cleared(KeeperService service, int tables) {
    List<TableRecord> all = service.registry().all();
    return all.size() == tables
        && service.queue().queued() == 0
        && service.queue().leased() == 0
        && all.stream()
            .allMatch(
                table ->
                    table.status() == TableStatus.IDLE
                        && table.lastOptimizedAt().isPresent()
                        && table.health() > 90);
  }

  /** A keeper on the backlog's catalog with one worker group of the kind. */
  private static final class Keeper implements AutoCloseable {
    private final KeeperService service;
    private final KeeperHttpServer http;

    private Keeper(KeeperService service, KeeperHttpServer http) {
      this.service = service;
      this.http = http;
    }

    static Keeper start(
        Path data, String kind, int count, Duration leaseTimeout, StoreSettings store) {
      WorkerGroupSettings group =
          switch (kind) {
            case "threads" -> WorkerGroupSettings.threads("local", count);
            case "processes" -> WorkerGroupSettings.processes("local", count, 1, 1L << 30);
            default ->
                throw new IllegalArgumentException(
                    "--kinds takes threads and processes, got '" + kind + "'");
          };
      KeeperSettings settings =
          KeeperSettings.builder()
              .listen(new ListenAddress("127.0.0.1", 0))
              .refreshInterval(Duration.ofSeconds(2))
              .store(store)
              .optimizer(
                  new OptimizerSettings(
                      count,
                      0.5,
                      leaseTimeout,
                      List.of(group),
                      Optional.empty(),
                      Duration.ofMinutes(2)))
              .maintenance(
                  new MaintenanceIntervals(
                      Duration.ofDays(365), Duration.ofDays(365), Duration.ofDays(365)))
              .build();
      WorkerLauncher launcher = new OptimizerProcessLauncher(data, Optional.empty());
      KeeperService service =
          KeeperService.create(
              data,
              CatalogSettings.embedded(),
              settings,
              Clock.systemUTC(),
              new IcebergMaintenanceJobs(),
              launcher);
      service.start();
      KeeperHttpServer http = KeeperHttpServer.start(service, settings.listen(), Optional.empty());
      service.serveWorkersAt(URI.create("http://127.0.0.1:" + http.port()));
      return new Keeper(service, http);
    }

    /** CPU seconds the group's worker processes used so far (those still running). */
    double workerCpuSeconds() {
      double total = 0;
      for (long pid : service.processes().pids("local")) {
        total +=
            ProcessHandle.of(pid)
                .flatMap(handle -> handle.info().totalCpuDuration())
                .map(duration -> duration.toNanos() / 1e9)
                .orElse(0.0);
      }
      return total;
    }

    @Override
    public void close() {
      service.stopProcesses();
      http.close();
      service.close();
    }
  }
}

package dev.floe.server;

import static java.util.Objects.requireNonNull;

import dev.floe.core.config.CatalogSettings;
import dev.floe.core.config.KeeperCatalog;
import dev.floe.core.config.KeeperSettings;
import dev.floe.core.error.FloeException;
import dev.floe.core.state.TableKey;
import dev.floe.iceberg.CatalogFactory;
import dev.floe.iceberg.FloeCatalog;
import dev.floe.iceberg.optimize.OptimizeJob;
import dev.floe.server.alerts.AlertDelivery;
import dev.floe.server.alerts.AlertLoop;
import dev.floe.server.alerts.KeeperObservations;
import dev.floe.server.discovery.CatalogApiLister;
import dev.floe.server.discovery.DiscoveryLoop;
import dev.floe.server.discovery.JdbcCatalogLister;
import dev.floe.server.discovery.KeptCatalog;
import dev.floe.server.discovery.TableLister;
import dev.floe.server.maintenance.MaintenanceLoop;
import dev.floe.server.metrics.KeeperMetrics;
import dev.floe.server.optimize.HistoryGuard;
import dev.floe.server.optimize.OptimizeScheduler;
import dev.floe.server.optimize.OptimizerWorkers;
import dev.floe.server.optimize.RunCoordinator;
import dev.floe.server.optimize.TableEvaluator;
import dev.floe.server.optimize.TaskQueue;
import dev.floe.server.store.JdbcKeeperStore;
import dev.floe.server.store.KeeperEvent;
import dev.floe.server.store.KeeperStore;
import dev.floe.server.store.TableRecord;
import dev.floe.server.store.TableStatus;
import dev.floe.server.syncs.SyncReports;
import dev.floe.server.verify.VerificationScheduler;
import dev.floe.server.verify.VerifyJobRunner;
import dev.floe.server.workers.CapacityLoop;
import dev.floe.server.workers.FlinkGroupSupervisor;
import dev.floe.server.workers.FlinkJobLauncher;
import dev.floe.server.workers.ProcessSupervisor;
import dev.floe.server.workers.WorkerGroups;
import dev.floe.server.workers.WorkerLauncher;
import dev.floe.server.workers.WorkerProtocol;
import dev.floe.server.workers.WorkerRegistry;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The keeper service (docs/keeper.md): builds its parts once from the settings, starts their loops
 * on their own threads, and stops them cleanly. The operations the API offers ({@link #pause},
 * {@link #resume}, {@link #optimizeNow}) are here; the HTTP edge only maps them.
 */
public final class KeeperService implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(KeeperService.class);

  /** How long {@link #close} lets running rewrites finish before handing their tasks back. */
  public static final Duration STOP_GRACE = Duration.ofSeconds(60);

  /** How long a worker process may take to hand its tasks back and end when the service stops. */
  public static final Duration PROCESS_STOP_GRACE = Duration.ofSeconds(15);

  /** Events whose alert must be notified at once rather than at the next check. */
  private static final Set<String> URGENT_EVENTS =
      Set.of(
          KeeperEvent.TABLE_REWOUND,
          KeeperEvent.TABLE_QUARANTINED,
          KeeperEvent.CATALOG_UNREACHABLE,
          KeeperEvent.CAPACITY_BELOW_TARGET,
          KeeperEvent.VERIFICATION_DIFFERENT,
          KeeperEvent.VERIFICATION_FAILED);

  private final KeeperSettings settings;
  private final Clock clock;
  private final KeeperStore store;
  private final List<FloeCatalog> openCatalogs;
  private final Map<String, KeptCatalog> catalogs;
  private final TableRegistry registry;
  private final KeeperEvents events;
  private final HealthHistory health;
  private final TableInspector inspector;
  private final TableLocks locks = new TableLocks();
  private final TaskQueue queue;
  private final RunCoordinator coordinator;
  private final OptimizerWorkers workers;
  private final WorkerGroups groups;
  private final WorkerRegistry workerRegistry;
  private final WorkerProtocol workerProtocol;
  private final ProcessSupervisor processes;
  private final Map<String, FlinkGroupSupervisor> flinkGroups = new LinkedHashMap<>();
  private final CapacityLoop capacity;
  private final TableEvaluator evaluator;
  private final OptimizeScheduler scheduler;
  private final DiscoveryLoop discovery;
  private final MaintenanceLoop maintenance;
  private final KeeperMetrics metrics;
  private final KeeperObservations alertObservations;
  private final AlertDelivery alertDelivery;
  private final AlertLoop alerts;
  private final SyncReports syncs;
  private final VerificationScheduler verifications;
  private final List<Thread> threads = new ArrayList<>();
  private volatile Instant startedAt = Instant.EPOCH;

  private KeeperService(
      KeeperSettings settings,
      Clock clock,
      KeeperStore store,
      List<FloeCatalog> openCatalogs,
      Map<String, KeptCatalog> catalogs,
      Path spillRoot,
      MaintenanceLoop.Jobs jobs,
      WorkerLauncher launcher,
      FlinkJobLauncher flinkLauncher) {
    this.settings = settings;
    this.clock = clock;
    this.store = store;
    this.openCatalogs = openCatalogs;
    this.catalogs = catalogs;
    this.registry = new TableRegistry(store);
    this.events = new KeeperEvents(store, clock);
    this.health = new HealthHistory(store, clock, settings.historyRetention());
    this.inspector = new TableInspector(catalogs);
    registry.addListener(
        (before, after) -> {
          if (after.isEmpty()) {
            before.ifPresent(table -> health.forget(table.key()));
          }
        });
    OptimizeJob job = new OptimizeJob(spillRoot);
    this.groups = WorkerGroups.of(settings.optimizer());
    int slots = groups.slots().values().stream().mapToInt(Integer::intValue).sum();
    Duration leaseTimeout = settings.optimizer().leaseTimeout();
    this.queue =
        new TaskQueue(clock, leaseTimeout, groups.slots(), settings.optimizer().tableShare());
    this.coordinator =
        new RunCoordinator(
            registry, store, queue, events, clock, settings.quarantineAfterFailures());
    this.workerRegistry = new WorkerRegistry(clock, leaseTimeout);
    this.workers =
        new OptimizerWorkers(
            queue,
            coordinator,
            workerRegistry,
            groups.threads().map(WorkerGroups.Group::name).orElse(groups.defaultGroup()),
            groups.threads().map(WorkerGroups.Group::target).orElse(0),
            leaseTimeout);
    this.workerProtocol = new WorkerProtocol(workerRegistry, queue, coordinator, events, groups);
    this.processes = new ProcessSupervisor(groups, launcher, workerRegistry, workerProtocol, clock);
    for (WorkerGroups.Group group : groups.all()) {
      if (group.isFlink()) {
        flinkGroups.put(
            group.name(),
            new FlinkGroupSupervisor(group, flinkLauncher, workerRegistry, workerProtocol, clock));
      }
    }
    this.capacity =
        new CapacityLoop(
            workerProtocol,
            workerRegistry,
            groups,
            processes,
            this::lastStartError,
            events,
            clock,
            settings.optimizer().capacityGrace());
    this.evaluator =
        new TableEvaluator(
            catalogs,
            registry,
            store,
            events,
            job,
            new HistoryGuard(store, events),
            groups,
            health,
            clock,
            1);
    this.scheduler =
        new OptimizeScheduler(
            registry,
            evaluator,
            coordinator,
            queue,
            locks,
            store,
            events,
            job,
            clock,
            Math.max(2, 2 * slots),
            settings.taskTimeout());
    evaluator.onEvaluated(scheduler::wakeUp);
    this.discovery =
        new DiscoveryLoop(
            List.copyOf(catalogs.values()),
            registry,
            evaluator,
            events,
            clock,
            settings.refreshInterval());
    this.maintenance =
        new MaintenanceLoop(
            catalogs,
            registry,
            locks,
            store,
            events,
            jobs,
            clock,
            new MaintenanceLoop.Intervals(
                settings.maintenance().expire(),
                settings.maintenance().metadata(),
                settings.maintenance().orphans()));
    this.metrics = new KeeperMetrics(registry, queue, workers, groups, workerRegistry, clock);
    coordinator.onRun(metrics::recordRun);
    coordinator.onFinished(discovery::changedByKeeper);
    this.syncs = new SyncReports(store, clock);
    // The scheduled verifications' tables are in the top-level catalog, the first one opened.
    this.verifications =
        new VerificationScheduler(
            settings.verifications(),
            store,
            new VerifyJobRunner(openCatalogs.get(0).catalog()),
            events,
            clock);
    this.alertObservations =
        new KeeperObservations(
            registry,
            evaluator,
            capacity,
            queue,
            discovery,
            syncs::observations,
            verifications::observations);
    this.alertDelivery =
        AlertDelivery.of(
            settings.alerts().channels(),
            settings.alerts().smtp(),
            store.alerts(),
            clock,
            metrics::recordDelivery);
    this.alerts =
        new AlertLoop(
            alertObservations,
            settings.alerts(),
            store.alerts(),
            alertDelivery,
            events,
            clock,
            settings.refreshInterval(),
            settings.alerts().linkBase().orElseGet(() -> linkBase(settings.listen())));
    metrics.bindAlerts(alerts::firingByRule);
    events.addListener(
        event -> {
          alertObservations.heard(event);
          if (URGENT_EVENTS.contains(event.kind())) {
            alerts.wakeUp();
          }
        });
  }

  /**
   * Opens the store and the catalogs. Nothing runs until {@link #start}.
   *
   * @param mainCatalog the top-level {@code catalog:}, kept with {@code keeper.include/exclude}
   * @param launcher starts the processes of {@code processes} groups
   * @throws FloeException BAD_INPUT for unusable settings, SOURCE_UNAVAILABLE when the store or a
   *     catalog cannot be opened at all
   */
  public static KeeperService create(
      Path dataDirectory,
      CatalogSettings mainCatalog,
      KeeperSettings settings,
      Clock clock,
      MaintenanceLoop.Jobs jobs,
      WorkerLauncher launcher) {
    return create(
        dataDirectory, mainCatalog, settings, clock, jobs, launcher, FlinkJobLauncher.NONE);
  }

  /**
   * Opens the store and the catalogs. Nothing runs until {@link #start}.
   *
   * @param mainCatalog the top-level {@code catalog:}, kept with {@code keeper.include/exclude}
   * @param launcher starts the processes of {@code processes} groups
   * @param flinkLauncher submits the jobs of {@code flink} groups
   * @throws FloeException BAD_INPUT for unusable settings (a {@code flink} group and {@link
   *     FlinkJobLauncher#NONE}), SOURCE_UNAVAILABLE when the store or a catalog cannot be opened
   */
  public static KeeperService create(
      Path dataDirectory,
      CatalogSettings mainCatalog,
      KeeperSettings settings,
      Clock clock,
      MaintenanceLoop.Jobs jobs,
      WorkerLauncher launcher,
      FlinkJobLauncher flinkLauncher) {
    requireNonNull(dataDirectory, "dataDirectory is null");
    requireNonNull(launcher, "launcher is null");
    requireNonNull(flinkLauncher, "flinkLauncher is null");
    requireNonNull(mainCatalog, "mainCatalog is null");
    requireNonNull(settings, "settings is null");
    requireNonNull(clock, "clock is null");
    if (!settings.listen().isLoopback() && settings.apiToken().isEmpty()) {
      throw FloeException.badInput(
          "keeper.listen is "
              + settings.listen()
              + ", which other machines can reach, and no keeper.api-token is set. Set"
              + " keeper.api-token (e.g. api-token: ${env:FLOE_KEEPER_TOKEN}) or listen on"
              + " 127.0.0.1.");
    }
    if (flinkLauncher == FlinkJobLauncher.NONE) {
      List<String> flink =
          WorkerGroups.of(settings.optimizer()).all().stream()
              .filter(WorkerGroups.Group::isFlink)
              .map(WorkerGroups.Group::name)
              .toList();
      if (!flink.isEmpty()) {
        throw FloeException.badInput(
            "keeper.optimizer.groups has kind flink ("
                + String.join(", ", flink)
                + "), but this keeper cannot submit Flink jobs (it was built without Flink's"
                + " client). Run it with floe serve, or use kind processes or external.");
      }
    }
    KeeperStore store =
        JdbcKeeperStore.open(
            settings.store().url(),
            settings.store().user(),
            settings.store().password(),
            dataDirectory);
    List<FloeCatalog> open = new ArrayList<>();
    Map<String, KeptCatalog> catalogs = new LinkedHashMap<>();
    try {
      List<KeeperCatalog> all = new ArrayList<>();
      all.add(new KeeperCatalog(mainCatalog, settings.include(), settings.exclude()));
      all.addAll(settings.catalogs());
      CatalogFactory factory = new CatalogFactory();
      for (KeeperCatalog kept : all) {
        FloeCatalog catalog = factory.open(kept.catalog(), dataDirectory);
        open.add(catalog);
        TableLister lister =
            JdbcCatalogLister.handles(catalog.properties())
                ? new JdbcCatalogLister(catalog.name(), catalog.properties())
                : new CatalogApiLister(catalog.catalog());
        catalogs.put(
            catalog.name(),
            new KeptCatalog(
                catalog.name(),
                catalog,
                lister,
                patterns(kept.include(), catalog.name(), "include"),
                patterns(kept.exclude(), catalog.name(), "exclude")));
      }
      return new KeeperService(
          settings,
          clock,
          store,
          open,
          catalogs,
          dataDirectory.resolve("tmp").resolve("keeper"),
          jobs,
          launcher,
          flinkLauncher);
    } catch (RuntimeException e) {
      open.forEach(FloeCatalog::close);
      store.close();
      throw e;
    }
  }

  private static List<Pattern> patterns(List<String> regexes, String catalog, String what) {
    List<Pattern> patterns = new ArrayList<>();
    for (String regex : regexes) {
      try {
        patterns.add(Pattern.compile(regex));
      } catch (PatternSyntaxException e) {
        throw FloeException.badInput(
            "The keeper's "
                + what
                + " pattern '"
                + regex
                + "' of catalog '"
                + catalog
                + "' is not a regular expression: "
                + e.getDescription()
                + ".");
      }
    }
    return patterns;
  }

  /**
   * Loads the stored tables, puts every table a previous process left {@code running} back to
   * {@code pending}, and starts the loops.
   */
  public synchronized void start() {
    List<TableRecord> stored = store.tables();
    registry.load(stored);
    for (TableRecord record : stored) {
      if (record.status() == TableStatus.RUNNING || record.status() == TableStatus.PENDING) {
        registry.update(
            record.key(), table -> table.withStatus(TableStatus.PENDING).withoutMetadataLocation());
      }
    }
    store.prune(clock.instant().minus(settings.historyRetention()));
    health.load();
    startedAt = clock.instant();
    workers.start();
    start("floe-keeper-discovery", discovery);
    start("floe-keeper-hot-poll", discovery.hotPoll());
    start("floe-keeper-scheduler", scheduler);
    start("floe-keeper-maintenance", maintenance);
    start("floe-keeper-capacity", capacity);
    alertObservations.restore(store.alerts().firing());
    store.alerts().prune(clock.instant().minus(settings.historyRetention()));
    start("floe-keeper-alerts", alerts);
    verifications.load();
    start("floe-keeper-verifications", verifications);
    flinkGroups
        .values()
        .forEach(flink -> start("floe-keeper-flink-" + flink.group().name(), flink));
    LOG.info(
        "keeper started: {} catalog(s), {} known table(s), {} worker thread(s)",
        catalogs.size(),
        registry.size(),
        workers.threads());
  }

  private void start(String name, Runnable loop) {
    Thread thread = new Thread(loop, name);
    thread.setDaemon(true);
    threads.add(thread);
    thread.start();
  }

  /** The dashboard's address when keeper.alerts.link-base is not set: the listen address. */
  private static String linkBase(dev.floe.core.config.ListenAddress listen) {
    String host = listen.host();
    if (host.equals("0.0.0.0") || host.equals("::") || host.equals("[::]") || host.isEmpty()) {
      host = "127.0.0.1";
    }
    return "http://" + host + ":" + listen.port();
  }

  public TableRegistry registry() {
    return registry;
  }

  public KeeperStore store() {
    return store;
  }

  public HealthHistory health() {
    return health;
  }

  public TableInspector inspector() {
    return inspector;
  }

  public Clock clock() {
    return clock;
  }

  /** The alert loop: its checks, acknowledgements and links. */
  public AlertLoop alerts() {
    return alerts;
  }

  /** The alert channels and their delivery. */
  public AlertDelivery alertDelivery() {
    return alertDelivery;
  }

  /** The latest report of every sync job that reports to this keeper. */
  public SyncReports syncs() {
    return syncs;
  }

  /** The scheduled verifications ({@code keeper.verifications}) and their runs. */
  public VerificationScheduler verifications() {
    return verifications;
  }

  public KeeperMetrics metrics() {
    return metrics;
  }

  public TableEvaluator evaluator() {
    return evaluator;
  }

  public DiscoveryLoop discovery() {
    return discovery;
  }

  public TaskQueue queue() {
    return queue;
  }

  public WorkerGroups groups() {
    return groups;
  }

  public WorkerRegistry workerRegistry() {
    return workerRegistry;
  }

  public WorkerProtocol workerProtocol() {
    return workerProtocol;
  }

  public ProcessSupervisor processes() {
    return processes;
  }

  /** The supervisor of each {@code flink} group, by group name. */
  public Map<String, FlinkGroupSupervisor> flinkGroups() {
    return java.util.Collections.unmodifiableMap(flinkGroups);
  }

  /** Why the group's last start failed (its processes or its Flink job), while it keeps failing. */
  public Optional<String> lastStartError(String group) {
    FlinkGroupSupervisor flink = flinkGroups.get(group);
    return flink != null ? flink.lastStartError() : processes.lastStartError(group);
  }

  /**
   * Gives the address worker processes reach the service at (once its HTTP edge listens); the
   * {@code processes} groups start their workers from then on.
   */
  public void serveWorkersAt(java.net.URI server) {
    processes.serveAt(server);
    flinkGroups.values().forEach(flink -> flink.serveAt(server));
    capacity.tick();
  }

  /**
   * Stops the worker processes the service started and cancels its Flink worker jobs: each worker
   * hands its tasks back first. Call it while the HTTP edge still serves; {@link #close} does it
   * too.
   */
  public void stopProcesses() {
    flinkGroups.values().forEach(flink -> flink.stop(PROCESS_STOP_GRACE));
    processes.stop(PROCESS_STOP_GRACE);
  }

  public KeeperSettings settings() {
    return settings;
  }

  public List<String> catalogNames() {
    return List.copyOf(catalogs.keySet());
  }

  /**
   * Whether the loops are alive: every loop thread runs, and the discovery and scheduler loops
   * ticked recently (a refresh may take up to a few intervals on a huge catalog).
   */
  public boolean healthy() {
    if (threads.isEmpty() || threads.stream().anyMatch(thread -> !thread.isAlive())) {
      return false;
    }
    Instant now = clock.instant();
    Duration refreshLimit = settings.refreshInterval().multipliedBy(3).plusMinutes(1);
    boolean discoveryAlive =
        discovery.lastRefresh().isAfter(now.minus(refreshLimit))
            || startedAt.isAfter(now.minus(refreshLimit));
    boolean schedulerAlive = scheduler.lastTick().isAfter(now.minus(Duration.ofMinutes(1)));
    boolean capacityAlive = capacity.lastTick().isAfter(now.minus(Duration.ofMinutes(1)));
    return discoveryAlive && schedulerAlive && capacityAlive;
  }

  /** Pauses a table: no new runs until resumed (a running run finishes). */
  public Optional<TableRecord> pause(TableKey key) {
    Optional<TableRecord> updated =
        registry.update(
            key,
            table ->
                table.status() == TableStatus.RUNNING
                    ? table
                    : table.withStatus(TableStatus.PAUSED));
    updated.ifPresent(
        table -> events.table(KeeperEvent.TABLE_PAUSED, key, "paused through the API"));
    return updated;
  }

  /**
   * Resumes a paused table and releases a quarantined one: its failure count is cleared and it is
   * evaluated again at once.
   */
  public Optional<TableRecord> resume(TableKey key) {
    Optional<TableRecord> before = registry.get(key);
    Optional<TableRecord> updated =
        registry.update(
            key,
            table ->
                table.status() == TableStatus.RUNNING
                    ? table
                    : table
                        .withStatus(TableStatus.PENDING)
                        .withFailures(0, Optional.empty(), Optional.empty())
                        .withoutMetadataLocation());
    if (updated.isPresent()) {
      boolean wasQuarantined =
          before.map(table -> table.status() == TableStatus.QUARANTINED).orElse(false);
      events.table(
          KeeperEvent.TABLE_RELEASED,
          key,
          wasQuarantined ? "released from quarantine through the API" : "resumed through the API");
      evaluator.submit(key);
    }
    return updated;
  }

  /**
   * Plans the table now, as asked: a backoff table at once, and its time triggers count as due
   * ({@link TableEvaluator#ask}); failed partitions still wait for their retry time.
   */
  public Optional<TableRecord> optimizeNow(TableKey key) {
    Optional<TableRecord> updated =
        registry.update(
            key,
            table ->
                table.status() == TableStatus.BACKOFF || table.status() == TableStatus.FAILED
                    ? table.withStatus(TableStatus.PENDING).withoutMetadataLocation()
                    : table.withoutMetadataLocation());
    updated.ifPresent(table -> evaluator.ask(key));
    return updated;
  }

  /**
   * Stops the loops; running rewrites may finish within {@link #STOP_GRACE} and are committed, the
   * rest are handed back (their tables planned again on the next start). Nothing is half-committed:
   * each group is one Iceberg commit.
   */
  @Override
  public synchronized void close() {
    discovery.stop();
    scheduler.stop();
    maintenance.stop();
    capacity.stop();
    alerts.stop();
    verifications.stop();
    flinkGroups.values().forEach(flink -> flink.stop(PROCESS_STOP_GRACE));
    processes.stop(PROCESS_STOP_GRACE);
    workers.stop(STOP_GRACE);
    coordinator.stop();
    for (Thread thread : threads) {
      try {
        thread.join(STOP_GRACE.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    alertDelivery.close();
    evaluator.close();
    metrics.close();
    for (KeptCatalog catalog : catalogs.values()) {
      if (catalog.lister() instanceof AutoCloseable closeable) {
        try {
          closeable.close();
        } catch (Exception e) {
          LOG.debug("closing the lister of {}", catalog.name(), e);
        }
      }
    }
    openCatalogs.forEach(FloeCatalog::close);
    store.close();
    LOG.info("keeper stopped");
  }

  /** The catalog named, for the API. */
  public Optional<KeptCatalog> catalog(String name) {
    return Optional.ofNullable(catalogs.get(name));
  }
}

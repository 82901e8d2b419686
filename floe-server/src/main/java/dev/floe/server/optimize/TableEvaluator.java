package dev.floe.server.optimize;

import static java.util.Objects.requireNonNull;

import dev.floe.core.error.ErrorCategory;
import dev.floe.core.error.FloeException;
import dev.floe.core.optimize.OptimizeFailures;
import dev.floe.core.optimize.OptimizePolicy;
import dev.floe.core.optimize.PartitionState;
import dev.floe.core.state.TableKey;
import dev.floe.iceberg.optimize.OptimizeJob;
import dev.floe.iceberg.optimize.OptimizeTableCheck;
import dev.floe.iceberg.sync.SyncHistory;
import dev.floe.server.HealthHistory;
import dev.floe.server.KeeperEvents;
import dev.floe.server.TableRegistry;
import dev.floe.server.discovery.KeptCatalog;
import dev.floe.server.store.HealthSample;
import dev.floe.server.store.KeeperEvent;
import dev.floe.server.store.KeeperStore;
import dev.floe.server.store.TableRecord;
import dev.floe.server.store.TableStatus;
import dev.floe.server.workers.WorkerGroups;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Evaluates tables on their own thread, so discovery never waits for a scan: loads the table,
 * checks its history, scans its health and plans (the optimize job's preview), and records the
 * figures and the table's next state. A table whose evaluation fails is {@code failed} with the
 * reason (a bad {@code floe.optimize.*} value names the property) and tried again after {@link
 * #FAILED_RETRY} or on its next change; no other table is affected.
 */
public final class TableEvaluator implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(TableEvaluator.class);

  /** How long a table whose evaluation failed waits before it is tried again without a change. */
  public static final Duration FAILED_RETRY = Duration.ofMinutes(5);

  /** Checks a table's history on each change (the history watch). */
  @FunctionalInterface
  public interface HistoryCheck {
    void check(TableKey key, Table table, Instant now);
  }

  private final Map<String, KeptCatalog> catalogs;
  private final TableRegistry registry;
  private final KeeperStore store;
  private final KeeperEvents events;
  private final OptimizeJob job;
  private final HistoryCheck history;
  private final Clock clock;
  private final Map<TableKey, Evaluated> evaluated = new ConcurrentHashMap<>();
  private final Set<TableKey> queued = ConcurrentHashMap.newKeySet();
  private final Set<TableKey> asked = ConcurrentHashMap.newKeySet();
  private final ExecutorService executor;
  private volatile Runnable onEvaluated = () -> {};

  private final WorkerGroups groups;
  private final HealthHistory health;

  public TableEvaluator(
      Map<String, KeptCatalog> catalogs,
      TableRegistry registry,
      KeeperStore store,
      KeeperEvents events,
      OptimizeJob job,
      HistoryCheck history,
      WorkerGroups groups,
      HealthHistory health,
      Clock clock,
      int threads) {
    this.catalogs = Map.copyOf(requireNonNull(catalogs, "catalogs is null"));
    this.registry = requireNonNull(registry, "registry is null");
    this.store = requireNonNull(store, "store is null");
    this.events = requireNonNull(events, "events is null");
    this.job = requireNonNull(job, "job is null");
    this.history = requireNonNull(history, "history is null");
    this.groups = requireNonNull(groups, "groups is null");
    this.health = requireNonNull(health, "health is null");
    this.clock = requireNonNull(clock, "clock is null");
    this.executor =
        Executors.newFixedThreadPool(
            threads,
            runnable -> {
              Thread thread = new Thread(runnable, "floe-keeper-evaluator");
              thread.setDaemon(true);
              return thread;
            });
  }

  /** Called after every evaluation (the scheduler wakes up). */
  public void onEvaluated(Runnable listener) {
    this.onEvaluated = requireNonNull(listener, "listener is null");
  }

  /**
   * Queues an evaluation whose plan is the one somebody asked for (optimize now): its time triggers
   * count as due, so what the count thresholds leave (a few small files, a few deletes) is
   * rewritten. The request holds until an evaluation plans the table (a run on it finishes first).
   */
  public void ask(TableKey key) {
    asked.add(key);
    submit(key);
  }

  /** Queues an evaluation unless one is already queued for the table. Never blocks. */
  public void submit(TableKey key) {
    if (queued.add(key)) {
      executor.execute(
          () -> {
            queued.remove(key);
            try {
              evaluate(key);
            } finally {
              onEvaluated.run();
            }
          });
    }
  }

  /** Tables queued for evaluation. */
  public int backlog() {
    return queued.size();
  }

  /** The last evaluation of a table, for the scheduler and the API's plan. */
  public Optional<Evaluated> evaluated(TableKey key) {
    return Optional.ofNullable(evaluated.get(key));
  }

  /** Forgets a table's evaluation (dropped, or its run started from it). */
  public void forget(TableKey key) {
    evaluated.remove(key);
  }

  /** Evaluates now, on the calling thread. */
  public void evaluate(TableKey key) {
    Optional<TableRecord> known = registry.get(key);
    if (known.isEmpty() || known.get().status() == TableStatus.RUNNING) {
      return; // dropped, or a run is on it: evaluated again once it finishes
    }
    KeptCatalog catalog = catalogs.get(key.catalog());
    Instant now = clock.instant();
    Table table;
    String location = null;
    OptimizeJob.Preview preview;
    String group;
    try {
      table = catalog.catalog().catalog().loadTable(TableIdentifier.parse(key.table()));
      location = metadataLocation(table);
      history.check(key, table, now);
      OptimizePolicy policy = OptimizePolicy.fromProperties(key.table(), table.properties());
      if (policy.enabled()) {
        OptimizeTableCheck.check(key.table(), table);
      }
      group = groups.groupOf(key.table(), table.properties());
      OptimizeFailures failures = store.optimizeFailures(key);
      preview = job.preview(key.table(), table, policy, failures, now, asked.remove(key));
    } catch (RuntimeException e) {
      failed(key, Optional.ofNullable(location), now, e);
      return;
    }
    PartitionState totals = preview.state().totals();
    evaluated.put(key, new Evaluated(table, preview, group));
    String scannedLocation = location;
    registry.update(
        key,
        record -> {
          TableRecord scanned =
              record.withScan(
                  scannedLocation,
                  preview.state().healthScore(),
                  totals.dataFiles(),
                  totals.smallFiles(),
                  totals.deleteFiles(),
                  preview.plan().plannedBytes());
          TableStatus next = nextStatus(record, preview, now);
          if (record.status() == TableStatus.FAILED) {
            scanned = scanned.withFailures(0, Optional.empty(), Optional.empty());
          }
          if (next == TableStatus.IDLE) {
            // Time-based triggers (minor.max-interval-ms, full.interval-ms) come due without any
            // change to the table: look again then, or a quiet table keeps its stragglers.
            scanned =
                scanned.withFailures(
                    scanned.consecutiveFailures(), scanned.lastError(), nextDue(preview, now));
          }
          return scanned.withStatus(next);
        });
    health.record(
        new HealthSample(
            key,
            now,
            preview.state().healthScore(),
            totals.dataFiles(),
            totals.smallFiles(),
            totals.deleteFiles(),
            preview.plan().plannedBytes(),
            sourceWatermark(table)));
  }

  /** The sync's newest watermark in the table's history ({@link SyncHistory}). */
  static Optional<Instant> sourceWatermark(Table table) {
    java.util.OptionalLong millis = SyncHistory.sourceWatermarkMillis(table);
    return millis.isPresent()
        ? Optional.of(Instant.ofEpochMilli(millis.getAsLong()))
        : Optional.empty();
  }

  private static TableStatus nextStatus(
      TableRecord record, OptimizeJob.Preview preview, Instant now) {
    return switch (record.status()) {
      case PAUSED, QUARANTINED, RUNNING -> record.status();
      case BACKOFF ->
          record.retryAt().isPresent() && record.retryAt().get().isAfter(now)
              ? TableStatus.BACKOFF
              : planned(preview);
      default -> planned(preview);
    };
  }

  /**
   * When the planner's interval triggers next come due for an idle table: the last optimize (or
   * full rewrite) plus its interval, never before a full interval from now once it has passed
   * without work (nothing qualified then).
   */
  static Optional<Instant> nextDue(OptimizeJob.Preview preview, Instant now) {
    Optional<Instant> next = Optional.empty();
    next =
        earliest(
            next, due(preview.policy().minorMaxInterval(), preview.state().lastOptimize(), now));
    next =
        earliest(
            next, due(preview.policy().fullInterval(), preview.state().lastFullRewrite(), now));
    return next;
  }

  private static Optional<Instant> due(Duration interval, Optional<Instant> last, Instant now) {
    if (interval.isZero() || interval.isNegative()) {
      return Optional.empty();
    }
    Instant at = last.orElse(now).plus(interval);
    return Optional.of(at.isAfter(now) ? at : now.plus(interval));
  }

  private static Optional<Instant> earliest(Optional<Instant> a, Optional<Instant> b) {
    if (a.isEmpty()) {
      return b;
    }
    if (b.isEmpty()) {
      return a;
    }
    return a.get().isBefore(b.get()) ? a : b;
  }

  private static TableStatus planned(OptimizeJob.Preview preview) {
    if (!preview.policy().enabled()) {
      return TableStatus.DISABLED;
    }
    return preview.plan().isEmpty() ? TableStatus.IDLE : TableStatus.PENDING;
  }

  /**
   * Marks the table failed with the reason. The metadata location it failed on is kept, so an
   * unchanged failed table waits for its retry time instead of being evaluated on every refresh.
   */
  private void failed(
      TableKey key, Optional<String> location, Instant now, RuntimeException error) {
    String reason = error.getMessage() == null ? error.toString() : error.getMessage();
    if (error instanceof FloeException floe && floe.category() == ErrorCategory.BAD_INPUT) {
      LOG.warn("evaluating {} failed: {}", key, reason); // explained; no stack trace needed
    } else {
      LOG.warn("evaluating {} failed: {}", key, reason, error);
    }
    evaluated.remove(key);
    Optional<TableRecord> before = registry.get(key);
    registry.update(
        key,
        record ->
            location
                .map(record::withMetadataLocation)
                .orElse(record)
                .withFailures(
                    record.consecutiveFailures(),
                    Optional.of(reason),
                    Optional.of(now.plus(FAILED_RETRY)))
                .withStatus(
                    record.status() == TableStatus.PAUSED
                            || record.status() == TableStatus.QUARANTINED
                        ? record.status()
                        : TableStatus.FAILED));
    if (before.isPresent()
        && (before.get().status() != TableStatus.FAILED
            || !before.get().lastError().equals(Optional.of(reason)))) {
      events.table(KeeperEvent.TABLE_FAILED, key, "cannot evaluate the table: " + reason);
    }
  }

  static String metadataLocation(Table table) {
    if (table instanceof HasTableOperations operations) {
      return operations.operations().current().metadataFileLocation();
    }
    return table.location();
  }

  @Override
  public void close() {
    executor.shutdownNow();
    try {
      executor.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}

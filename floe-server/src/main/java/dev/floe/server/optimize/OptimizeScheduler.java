package dev.floe.server.optimize;

import static java.util.Objects.requireNonNull;

import dev.floe.core.state.TableKey;
import dev.floe.iceberg.optimize.OptimizeJob;
import dev.floe.server.KeeperEvents;
import dev.floe.server.PeriodicLoop;
import dev.floe.server.TableLocks;
import dev.floe.server.TableRegistry;
import dev.floe.server.store.KeeperEvent;
import dev.floe.server.store.KeeperStore;
import dev.floe.server.store.TableRecord;
import dev.floe.server.store.TableStatus;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides which pending tables run next: worst health first across every catalog, at most {@code
 * maxRuns} runs at a time (their tasks share the worker slots through the {@link TaskQueue}'s table
 * share). Also takes back expired leases and gives up timed-out tasks. One thread; wakes up every
 * second or when an evaluation finished.
 */
public final class OptimizeScheduler implements Runnable {

  private static final Logger LOG = LoggerFactory.getLogger(OptimizeScheduler.class);
  private static final Duration TICK = Duration.ofSeconds(1);

  private final TableRegistry registry;
  private final TableEvaluator evaluator;
  private final RunCoordinator coordinator;
  private final TaskQueue queue;
  private final TableLocks locks;
  private final KeeperStore store;
  private final KeeperEvents events;
  private final OptimizeJob job;
  private final Clock clock;
  private final int maxRuns;
  private final Duration taskTimeout;
  private final PeriodicLoop loop =
      new PeriodicLoop("the optimize scheduler's tick", TICK, this::tick);
  private volatile Instant lastTick = Instant.EPOCH;

  public OptimizeScheduler(
      TableRegistry registry,
      TableEvaluator evaluator,
      RunCoordinator coordinator,
      TaskQueue queue,
      TableLocks locks,
      KeeperStore store,
      KeeperEvents events,
      OptimizeJob job,
      Clock clock,
      int maxRuns,
      Duration taskTimeout) {
    this.registry = requireNonNull(registry, "registry is null");
    this.evaluator = requireNonNull(evaluator, "evaluator is null");
    this.coordinator = requireNonNull(coordinator, "coordinator is null");
    this.queue = requireNonNull(queue, "queue is null");
    this.locks = requireNonNull(locks, "locks is null");
    this.store = requireNonNull(store, "store is null");
    this.events = requireNonNull(events, "events is null");
    this.job = requireNonNull(job, "job is null");
    this.clock = requireNonNull(clock, "clock is null");
    this.maxRuns = maxRuns;
    this.taskTimeout = requireNonNull(taskTimeout, "taskTimeout is null");
  }

  /** Wakes the loop now (a table was evaluated). */
  public void wakeUp() {
    loop.wakeUp();
  }

  /** When the loop last ran: the health check's sign of life. */
  public Instant lastTick() {
    return lastTick;
  }

  @Override
  public void run() {
    loop.run();
  }

  public void stop() {
    loop.stop();
  }

  /** One round: leases, time-outs, then new runs. */
  void tick() {
    lastTick = clock.instant();
    queue.expireLeases();
    coordinator.abandonTimedOut(taskTimeout);
    List<TableRecord> pending =
        registry.all().stream()
            .filter(table -> table.status() == TableStatus.PENDING)
            .sorted(
                Comparator.comparingInt(TableRecord::health)
                    .thenComparing(table -> -table.backlogBytes()))
            .toList();
    for (TableRecord table : pending) {
      if (coordinator.activeRuns() >= maxRuns || loop.stopping()) {
        return;
      }
      start(table.key());
    }
  }

  private void start(TableKey key) {
    Optional<Evaluated> evaluated = evaluator.evaluated(key);
    if (evaluated.isEmpty()) {
      evaluator.submit(key); // pending from before a restart: plan again
      return;
    }
    if (coordinator.isRunning(key) || !locks.tryAcquire(key)) {
      return;
    }
    boolean started = false;
    try {
      evaluator.forget(key);
      OptimizeJob.Run run = job.start(evaluated.get().table(), evaluated.get().preview());
      coordinator.start(
          new ActiveRun(
              key,
              evaluated.get().table(),
              run,
              evaluated.get().group(),
              store.optimizeFailures(key),
              clock.instant(),
              () -> locks.release(key)));
      started = true;
    } catch (RuntimeException e) {
      String reason = e.getMessage() == null ? e.toString() : e.getMessage();
      LOG.warn("starting the optimize run of {} failed", key, e);
      registry.update(
          key,
          record ->
              record
                  .withFailures(
                      record.consecutiveFailures(),
                      Optional.of("cannot start a run: " + reason),
                      Optional.of(clock.instant().plus(TableEvaluator.FAILED_RETRY)))
                  .withStatus(TableStatus.FAILED));
      events.table(KeeperEvent.TABLE_FAILED, key, "cannot start an optimize run: " + reason);
    } finally {
      if (!started) {
        locks.release(key);
      }
    }
  }
}

package dev.floe.server.optimize;

import static java.util.Objects.requireNonNull;

import dev.floe.core.optimize.OptimizeFailures;
import dev.floe.core.optimize.OptimizePolicy;
import dev.floe.core.optimize.OptimizeResult;
import dev.floe.core.optimize.PartitionOutcome;
import dev.floe.core.state.TableKey;
import dev.floe.iceberg.optimize.GroupResult;
import dev.floe.iceberg.optimize.OptimizeJob;
import dev.floe.server.KeeperEvents;
import dev.floe.server.TableRegistry;
import dev.floe.server.store.KeeperEvent;
import dev.floe.server.store.KeeperStore;
import dev.floe.server.store.RunRecord;
import dev.floe.server.store.TableRecord;
import dev.floe.server.store.TableStatus;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The keeper's one committer: starts runs, commits each completed file group (a table's groups one
 * at a time, through its {@link OptimizeJob.Run}), finishes a run when every group is settled, and
 * moves the table on: {@code idle} after success, {@code backoff} after a failure, {@code
 * quarantined} after {@code keeper.quarantine-after-failures} failed runs in a row. Thread-safe.
 */
public final class RunCoordinator {

  private static final Logger LOG = LoggerFactory.getLogger(RunCoordinator.class);

  private final TableRegistry registry;
  private final KeeperStore store;
  private final TaskQueue queue;
  private final KeeperEvents events;
  private final Clock clock;
  private final int quarantineAfterFailures;
  private final Map<TableKey, ActiveRun> active = new ConcurrentHashMap<>();
  private volatile Consumer<RunRecord> onRun = run -> {};
  private volatile Consumer<TableKey> onFinished = table -> {};

  public RunCoordinator(
      TableRegistry registry,
      KeeperStore store,
      TaskQueue queue,
      KeeperEvents events,
      Clock clock,
      int quarantineAfterFailures) {
    this.registry = requireNonNull(registry, "registry is null");
    this.store = requireNonNull(store, "store is null");
    this.queue = requireNonNull(queue, "queue is null");
    this.events = requireNonNull(events, "events is null");
    this.clock = requireNonNull(clock, "clock is null");
    this.quarantineAfterFailures = quarantineAfterFailures;
  }

  /** Told of every finished optimize run (metrics). */
  public void onRun(Consumer<RunRecord> listener) {
    this.onRun = requireNonNull(listener, "listener is null");
  }

  /**
   * Told of every table whose run finished, after its next state is recorded (discovery then looks
   * at the table at once: writes arrived while it ran).
   */
  public void onFinished(Consumer<TableKey> listener) {
    this.onFinished = requireNonNull(listener, "listener is null");
  }

  public boolean isRunning(TableKey key) {
    return active.containsKey(key);
  }

  public int activeRuns() {
    return active.size();
  }

  /** Starts a run: its tasks go to the queue and the table becomes {@code running}. */
  public void start(ActiveRun run) {
    active.put(run.table(), run);
    registry.update(run.table(), record -> record.withStatus(TableStatus.RUNNING));
    List<OptimizeJob.GroupTask> tasks = run.run().tasks();
    LOG.info("optimize run of {} started: {} file group(s)", run.table(), tasks.size());
    if (tasks.isEmpty()) {
      finish(run);
      return;
    }
    queue.add(run, tasks);
  }

  /**
   * A worker finished rewriting a task. Commits it when the worker still holds the lease; otherwise
   * the result is refused and its files are removed.
   *
   * @return whether the result was accepted
   */
  public boolean completed(long taskId, String worker, QueuedTask task, GroupResult result) {
    Optional<QueuedTask> held = queue.complete(taskId, worker);
    if (held.isEmpty()) {
      LOG.info(
          "task {} of {} came back after its lease ended; its files are removed",
          taskId,
          task.table());
      // Not committed, and never will be: another worker holds the task now, or it was given up.
      task.run().run().discard(result);
      return false;
    }
    try {
      task.run().run().commit(task.task(), result);
    } catch (RuntimeException e) {
      // The committer handles conflicts and unknown states itself; anything else may have come
      // after the commit landed, so the files are kept (orphan cleanup finds them if not).
      LOG.error("committing task {} of {} failed unexpectedly", taskId, task.table(), e);
      task.run().run().abandon(task.task(), "commit failed (" + e + ")", null);
    }
    settleIfDone(task.run());
    return true;
  }

  /** A worker's rewrite failed. */
  public void failed(long taskId, String worker, QueuedTask task, RuntimeException error) {
    if (queue.fail(taskId, worker).isEmpty()) {
      return;
    }
    task.run().run().rewriteFailed(task.task(), error);
    settleIfDone(task.run());
  }

  /** Gives up tasks that outlived {@code keeper.task-timeout}: each counts as a failed group. */
  public void abandonTimedOut(Duration timeout) {
    for (TaskQueue.TimedOut timedOut : queue.removeTimedOut(timeout)) {
      QueuedTask task = timedOut.task();
      task.run().run().abandon(task.task(), "timed out after " + timeout, null);
      settleIfDone(task.run());
    }
  }

  private void settleIfDone(ActiveRun run) {
    if (run.run().settled()) {
      finish(run);
    }
  }

  private void finish(ActiveRun run) {
    if (active.remove(run.table(), run)) {
      try {
        finishRemoved(run);
      } finally {
        run.release().run();
      }
      onFinished.accept(run.table());
    }
  }

  private void finishRemoved(ActiveRun run) {
    {
      Instant now = clock.instant();
      OptimizeResult result;
      try {
        result = run.run().finish();
      } catch (RuntimeException e) {
        LOG.warn("finishing the optimize run of {} failed", run.table(), e);
        failedRun(run, now, "finishing the run failed: " + e.getMessage(), Optional.empty());
        return;
      }
      OptimizeFailures failures = result.updateFailures(run.failuresBefore(), now);
      store.saveOptimizeFailures(run.table(), failures);
      RunRecord record = record(run, result, now);
      LOG.info("optimize run of {} {}: {}", run.table(), record.result(), record.detail());
      store.recordRun(record);
      onRun.accept(record);
      if (result.succeeded()) {
        registry.update(
            run.table(),
            table -> {
              TableRecord next =
                  table
                      .withStatus(nextQuietStatus(table))
                      .withFailures(0, Optional.empty(), Optional.empty());
              return committedAnything(result) ? next.withLastOptimizedAt(now) : next;
            });
      } else {
        String problem =
            result.partitions().stream()
                .flatMap(outcome -> outcome.problems().stream())
                .findFirst()
                .orElse("a file group failed");
        failedRun(run, now, problem, Optional.of(result));
      }
    }
  }

  /**
   * Counts a failed run: backoff by the table's retry policy, or quarantine after too many in a
   * row. A paused table stays paused.
   */
  private void failedRun(
      ActiveRun run, Instant now, String problem, Optional<OptimizeResult> result) {
    OptimizePolicy policy = run.run().preview().policy();
    boolean[] quarantinedNow = {false};
    Optional<TableRecord> updated =
        registry.update(
            run.table(),
            table -> {
              quarantinedNow[0] = false;
              if (table.status() == TableStatus.QUARANTINED) {
                // a run that started before the quarantine and ended after it: the quarantine
                // already counts the failures in a row; keep its count, tell the newest error
                return table.withFailures(
                    table.consecutiveFailures(), Optional.of(problem), Optional.empty());
              }
              int failures = table.consecutiveFailures() + 1;
              TableRecord next = committedAnything(result) ? table.withLastOptimizedAt(now) : table;
              if (failures >= quarantineAfterFailures) {
                quarantinedNow[0] = true;
                return next.withFailures(failures, Optional.of(problem), Optional.empty())
                    .withStatus(TableStatus.QUARANTINED);
              }
              Instant retry = now.plus(backoff(policy, failures));
              return next.withFailures(failures, Optional.of(problem), Optional.of(retry))
                  .withStatus(
                      table.status() == TableStatus.PAUSED
                          ? TableStatus.PAUSED
                          : TableStatus.BACKOFF);
            });
    events.table(KeeperEvent.OPTIMIZE_FAILED, run.table(), problem);
    if (updated.isPresent() && quarantinedNow[0]) {
      events.table(
          KeeperEvent.TABLE_QUARANTINED,
          run.table(),
          "quarantined after "
              + updated.get().consecutiveFailures()
              + " failed runs in a row; last error: "
              + problem
              + ". Release it with POST /api/v1/tables/"
              + run.table().table()
              + "/resume once fixed.");
    }
  }

  private static TableStatus nextQuietStatus(TableRecord table) {
    return table.status() == TableStatus.PAUSED ? TableStatus.PAUSED : TableStatus.IDLE;
  }

  /** {@code retry.backoff-ms x 2^(failures-1)}, at most {@code retry.max-backoff-ms}. */
  static Duration backoff(OptimizePolicy policy, int failures) {
    Duration wait = policy.retryBackoff();
    for (int i = 1; i < failures && wait.compareTo(policy.retryMaxBackoff()) < 0; i++) {
      wait = wait.multipliedBy(2);
    }
    return wait.compareTo(policy.retryMaxBackoff()) > 0 ? policy.retryMaxBackoff() : wait;
  }

  private static boolean committedAnything(Optional<OptimizeResult> result) {
    return result.isPresent() && committedAnything(result.get());
  }

  private static boolean committedAnything(OptimizeResult result) {
    return result.partitions().stream().anyMatch(outcome -> outcome.committed() > 0);
  }

  private static RunRecord record(ActiveRun run, OptimizeResult result, Instant now) {
    long filesIn = 0;
    long filesOut = 0;
    int committed = 0;
    int groups = 0;
    for (PartitionOutcome outcome : result.partitions()) {
      filesIn += outcome.filesRewritten() + outcome.filesConverted();
      filesOut += outcome.filesAdded() + outcome.deleteFilesAdded();
      committed += outcome.committed();
      groups += outcome.groups();
    }
    String status = result.succeeded() ? "succeeded" : committed > 0 ? "partial" : "failed";
    String detail =
        committed
            + "/"
            + groups
            + " file groups committed in "
            + result.partitions().size()
            + " partition(s)"
            + result.partitions().stream()
                .flatMap(outcome -> outcome.problems().stream())
                .findFirst()
                .map(problem -> "; " + problem)
                .orElse("");
    return new RunRecord(
        run.table(),
        "optimize",
        run.startedAt(),
        now,
        status,
        result.bytesRead(),
        result.bytesWritten(),
        filesIn,
        filesOut,
        detail);
  }

  /**
   * Stops without counting anything as a failure: every queued task is dropped, every run closed
   * (its committed groups stand), and its table goes back to {@code pending} to be planned again.
   */
  public void stop() {
    for (ActiveRun run : List.copyOf(active.values())) {
      if (active.remove(run.table(), run)) {
        for (QueuedTask task : queue.removeRun(run)) {
          LOG.debug("handing back task {} of {}", task.id(), task.table());
        }
        run.run().close();
        run.release().run();
        registry.update(
            run.table(),
            table ->
                table.status() == TableStatus.RUNNING
                    ? table.withStatus(TableStatus.PENDING).withoutMetadataLocation()
                    : table);
      }
    }
  }
}

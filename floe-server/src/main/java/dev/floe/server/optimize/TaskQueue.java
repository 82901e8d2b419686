package dev.floe.server.optimize;

import static java.util.Objects.requireNonNull;

import dev.floe.core.state.TableKey;
import dev.floe.iceberg.optimize.OptimizeJob;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The file-group tasks waiting for or held by workers, with leases (docs/keeper.md). A worker
 * {@linkplain #lease leases} a task, {@linkplain #heartbeat heartbeats} it at least every lease
 * timeout, and {@linkplain #complete completes} or {@linkplain #fail fails} it; a lease not
 * heartbeated in time is {@linkplain #expireLeases taken back} and handed out again, without
 * counting as a failure of the table. A task is handed out in queue order, skipping tables that
 * already hold their share of the worker slots while another table has work waiting.
 *
 * <p>Thread-safe. {@link #lease} blocks up to the given wait.
 */
public final class TaskQueue {

  /** A task taken back from a worker because it outlived {@code keeper.task-timeout}. */
  public record TimedOut(QueuedTask task, String worker) {}

  private final Clock clock;
  private final Duration leaseTimeout;
  private final int slots;
  private final int tableSlots;
  private final AtomicLong ids = new AtomicLong();
  private final Map<Long, QueuedTask> tasks = new LinkedHashMap<>();

  /**
   * @param slots worker slots of the service, for the table share
   * @param tableShare the share of the slots one table may hold while others wait, in (0, 1]
   */
  public TaskQueue(Clock clock, Duration leaseTimeout, int slots, double tableShare) {
    this.clock = requireNonNull(clock, "clock is null");
    this.leaseTimeout = requireNonNull(leaseTimeout, "leaseTimeout is null");
    this.slots = slots;
    this.tableSlots = Math.max(1, (int) Math.floor(slots * tableShare));
  }

  /** Queues the tasks of a run. */
  public synchronized void add(ActiveRun run, List<OptimizeJob.GroupTask> groups) {
    Instant now = clock.instant();
    for (OptimizeJob.GroupTask group : groups) {
      long id = ids.incrementAndGet();
      tasks.put(id, new QueuedTask(id, run.table(), run, group, now));
    }
    notifyAll();
  }

  /**
   * Leases the next task the table share allows, waiting up to {@code wait} for one.
   *
   * @throws InterruptedException when interrupted while waiting
   */
  public synchronized Optional<QueuedTask> lease(String worker, Duration wait)
      throws InterruptedException {
    long deadline = System.nanoTime() + wait.toNanos();
    while (true) {
      Optional<QueuedTask> next = next();
      if (next.isPresent()) {
        QueuedTask task = next.get();
        Instant now = clock.instant();
        task.worker = worker;
        task.leaseExpiresAt = now.plus(leaseTimeout);
        if (task.firstLeasedAt == null) {
          task.firstLeasedAt = now;
        }
        task.leases++;
        return next;
      }
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return Optional.empty();
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
  }

  private Optional<QueuedTask> next() {
    Map<TableKey, Integer> held = new HashMap<>();
    for (QueuedTask task : tasks.values()) {
      if (task.worker != null) {
        held.merge(task.table(), 1, Integer::sum);
      }
    }
    QueuedTask overShare = null;
    for (QueuedTask task : tasks.values()) {
      if (task.worker != null) {
        continue;
      }
      if (held.getOrDefault(task.table(), 0) < tableSlots) {
        return Optional.of(task);
      }
      if (overShare == null) {
        overShare = task;
      }
    }
    // Every waiting task belongs to a table at its share: no other table waits, so it may go on.
    if (overShare != null && waitingTables() == 1) {
      return Optional.of(overShare);
    }
    return Optional.empty();
  }

  private long waitingTables() {
    return tasks.values().stream()
        .filter(task -> task.worker == null)
        .map(QueuedTask::table)
        .distinct()
        .count();
  }

  /** Extends a lease; false when the worker no longer holds it. */
  public synchronized boolean heartbeat(long taskId, String worker) {
    QueuedTask task = tasks.get(taskId);
    if (task == null || !worker.equals(task.worker)) {
      return false;
    }
    task.leaseExpiresAt = clock.instant().plus(leaseTimeout);
    return true;
  }

  /**
   * Removes a finished task; empty when the worker no longer holds its lease (it expired and was
   * handed to another, or the task timed out): the caller must then discard the result.
   */
  public synchronized Optional<QueuedTask> complete(long taskId, String worker) {
    QueuedTask task = tasks.get(taskId);
    if (task == null || !worker.equals(task.worker)) {
      return Optional.empty();
    }
    tasks.remove(taskId);
    notifyAll();
    return Optional.of(task);
  }

  /** Same as {@link #complete}: the task leaves the queue, its run records the failure. */
  public synchronized Optional<QueuedTask> fail(long taskId, String worker) {
    return complete(taskId, worker);
  }

  /** Puts tasks whose lease was not heartbeated in time back in the queue; returns how many. */
  public synchronized int expireLeases() {
    Instant now = clock.instant();
    int expired = 0;
    for (QueuedTask task : tasks.values()) {
      if (task.worker != null && task.leaseExpiresAt.isBefore(now)) {
        task.worker = null;
        task.leaseExpiresAt = null;
        expired++;
      }
    }
    if (expired > 0) {
      notifyAll();
    }
    return expired;
  }

  /** Removes and returns tasks first leased longer ago than {@code timeout}. */
  public synchronized List<TimedOut> removeTimedOut(Duration timeout) {
    Instant limit = clock.instant().minus(timeout);
    List<TimedOut> timedOut = new ArrayList<>();
    for (QueuedTask task : List.copyOf(tasks.values())) {
      if (task.firstLeasedAt != null && task.firstLeasedAt.isBefore(limit)) {
        timedOut.add(new TimedOut(task, task.worker == null ? "" : task.worker));
        tasks.remove(task.id());
      }
    }
    return timedOut;
  }

  /** Removes every task of a run (the service stops, or the run was given up). */
  public synchronized List<QueuedTask> removeRun(ActiveRun run) {
    List<QueuedTask> removed = new ArrayList<>();
    tasks
        .values()
        .removeIf(
            task -> {
              if (task.run() == run) {
                removed.add(task);
                return true;
              }
              return false;
            });
    return removed;
  }

  /** Tasks waiting for a worker. */
  public synchronized int queued() {
    return (int) tasks.values().stream().filter(task -> task.worker == null).count();
  }

  /** Tasks held by workers. */
  public synchronized int leased() {
    return tasks.size() - queued();
  }

  /** When the oldest waiting task was queued. */
  public synchronized Optional<Instant> oldestQueuedAt() {
    return tasks.values().stream()
        .filter(task -> task.worker == null)
        .map(QueuedTask::queuedAt)
        .min(Instant::compareTo);
  }

  public int slots() {
    return slots;
  }

  /** Wakes threads waiting in {@link #lease}, e.g. to stop. */
  public synchronized void wakeAll() {
    notifyAll();
  }
}

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
  private final Map<String, Integer> slots;
  private final double tableShare;
  private final AtomicLong ids = new AtomicLong();
  private long expiredLeases;
  private final Map<Long, QueuedTask> tasks = new LinkedHashMap<>();

  /**
   * @param slots the task slots of each worker group, for the table share
   * @param tableShare the share of its group's slots one table may hold while others wait, in (0,
   *     1]
   */
  public TaskQueue(
      Clock clock, Duration leaseTimeout, Map<String, Integer> slots, double tableShare) {
    this.clock = requireNonNull(clock, "clock is null");
    this.leaseTimeout = requireNonNull(leaseTimeout, "leaseTimeout is null");
    this.slots = Map.copyOf(requireNonNull(slots, "slots is null"));
    this.tableShare = tableShare;
  }

  private int tableSlots(String group) {
    return Math.max(1, (int) Math.floor(slots.getOrDefault(group, 1) * tableShare));
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
   * Leases the next task of the worker group that the table share allows, waiting up to {@code
   * wait} for one.
   *
   * @throws InterruptedException when interrupted while waiting
   */
  public synchronized Optional<QueuedTask> lease(String worker, String group, Duration wait)
      throws InterruptedException {
    long deadline = System.nanoTime() + wait.toNanos();
    while (true) {
      Optional<QueuedTask> next = next(group);
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

  private Optional<QueuedTask> next(String group) {
    Map<TableKey, Integer> held = new HashMap<>();
    for (QueuedTask task : tasks.values()) {
      if (task.worker != null) {
        held.merge(task.table(), 1, Integer::sum);
      }
    }
    int tableSlots = tableSlots(group);
    QueuedTask overShare = null;
    for (QueuedTask task : tasks.values()) {
      if (task.worker != null || !task.run().group().equals(group)) {
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
    if (overShare != null && waitingTables(group) == 1) {
      return Optional.of(overShare);
    }
    return Optional.empty();
  }

  private long waitingTables(String group) {
    return tasks.values().stream()
        .filter(task -> task.worker == null && task.run().group().equals(group))
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

  /**
   * Puts a task the worker holds back in the queue unrun (the worker stops): not a failure, and the
   * task keeps its first lease time for the task timeout. False when the worker does not hold it.
   */
  public synchronized boolean release(long taskId, String worker) {
    QueuedTask task = tasks.get(taskId);
    if (task == null || !worker.equals(task.worker)) {
      return false;
    }
    task.worker = null;
    task.leaseExpiresAt = null;
    notifyAll();
    return true;
  }

  /**
   * Puts every task a worker that went quiet holds back in the queue, counted as expired leases
   * (the worker stopped heartbeating them); returns how many.
   */
  public synchronized int expireLeasesOf(String worker) {
    int expired = releaseAll(worker);
    expiredLeases += expired;
    return expired;
  }

  /** Puts every task the worker holds back in the queue (it left or was lost); returns how many. */
  public synchronized int releaseAll(String worker) {
    int released = 0;
    for (QueuedTask task : tasks.values()) {
      if (worker.equals(task.worker)) {
        task.worker = null;
        task.leaseExpiresAt = null;
        released++;
      }
    }
    if (released > 0) {
      notifyAll();
    }
    return released;
  }

  /** The ids of the tasks the worker holds, in queue order. */
  public synchronized List<Long> leasedTo(String worker) {
    List<Long> held = new ArrayList<>();
    tasks.forEach(
        (id, task) -> {
          if (worker.equals(task.worker)) {
            held.add(id);
          }
        });
    return held;
  }

  /** The worker holding the task; empty while it waits (or when it is gone). */
  public synchronized Optional<String> holder(long taskId) {
    QueuedTask task = tasks.get(taskId);
    return task == null ? Optional.empty() : Optional.ofNullable(task.worker);
  }

  /** Whether the task is still queued or leased (not completed, failed or removed). */
  public synchronized boolean contains(long taskId) {
    return tasks.containsKey(taskId);
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
    expiredLeases += expired;
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

  /** Leases that expired without a heartbeat since the start (a metric). */
  public synchronized long expiredLeases() {
    return expiredLeases;
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

  /** Per worker group, when its oldest waiting task was queued (groups with none left out). */
  public synchronized Map<String, Instant> oldestQueuedAtByGroup() {
    Map<String, Instant> oldest = new HashMap<>();
    for (QueuedTask task : tasks.values()) {
      if (task.worker == null) {
        oldest.merge(task.run().group(), task.queuedAt(), (a, b) -> a.isBefore(b) ? a : b);
      }
    }
    return Map.copyOf(oldest);
  }

  /** Task slots of every group together. */
  public int slots() {
    return slots.values().stream().mapToInt(Integer::intValue).sum();
  }

  /** Wakes threads waiting in {@link #lease}, e.g. to stop. */
  public synchronized void wakeAll() {
    notifyAll();
  }
}

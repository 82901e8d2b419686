package dev.floe.server.workers;

import static java.util.Objects.requireNonNull;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * The optimizer workers the keeper knows: the threads inside {@code floe serve} and the worker
 * processes that registered over HTTP. A worker not heard of (registration, poll, heartbeat or
 * result) within the lease timeout is forgotten by {@link #expire}; its leases expire in the task
 * queue the same way, so its tasks go back to the queue.
 *
 * <p>Thread-safe.
 */
public final class WorkerRegistry {

  /**
   * One worker as the API shows it.
   *
   * @param id assigned at registration
   * @param group the worker group it serves
   * @param kind the group's kind ({@code threads}, {@code processes}, {@code flink}, {@code
   *     external})
   * @param pid its process id, when it said
   * @param host the host it runs on, as it said
   * @param threads tasks it runs at once
   */
  public record Worker(
      String id,
      String group,
      String kind,
      Optional<Long> pid,
      String host,
      int threads,
      Instant startedAt,
      Instant lastHeartbeatAt,
      int runningTasks,
      long completedTasks) {

    public Worker {
      requireNonNull(id, "id is null");
      requireNonNull(group, "group is null");
      requireNonNull(kind, "kind is null");
      requireNonNull(pid, "pid is null");
      requireNonNull(host, "host is null");
      requireNonNull(startedAt, "startedAt is null");
      requireNonNull(lastHeartbeatAt, "lastHeartbeatAt is null");
    }
  }

  private static final String THREADS = "threads";

  private final Clock clock;
  private final Duration timeout;
  private final Map<String, Entry> workers = new LinkedHashMap<>();

  /**
   * @param timeout how long a worker may go unheard of before it is forgotten (the lease timeout)
   */
  public WorkerRegistry(Clock clock, Duration timeout) {
    this.clock = requireNonNull(clock, "clock is null");
    this.timeout = requireNonNull(timeout, "timeout is null");
  }

  /** Registers a new worker and returns it. */
  public synchronized Worker register(
      String group, String kind, Optional<Long> pid, String host, int threads) {
    requireNonNull(group, "group is null");
    requireNonNull(kind, "kind is null");
    String id = "w-" + UUID.randomUUID().toString().substring(0, 12);
    Instant now = clock.instant();
    Entry entry = new Entry(id, group, kind, pid, host, Math.max(1, threads), now);
    workers.put(id, entry);
    return entry.snapshot();
  }

  /** Marks the worker as heard of now; empty when it is unknown (forgotten, or never seen). */
  public synchronized Optional<Worker> touch(String id) {
    Entry entry = workers.get(id);
    if (entry == null) {
      return Optional.empty();
    }
    entry.lastHeartbeatAt = clock.instant();
    return Optional.of(entry.snapshot());
  }

  /** The worker started a task. */
  public synchronized void started(String id) {
    Entry entry = workers.get(id);
    if (entry != null) {
      entry.running++;
      entry.lastHeartbeatAt = clock.instant();
    }
  }

  /** The worker is done with a task: {@code completed} when its result was accepted. */
  public synchronized void finished(String id, boolean completed) {
    Entry entry = workers.get(id);
    if (entry != null) {
      entry.running = Math.max(0, entry.running - 1);
      if (completed) {
        entry.completed++;
      }
      entry.lastHeartbeatAt = clock.instant();
    }
  }

  /** Forgets a worker that said goodbye; empty when it was not known. */
  public synchronized Optional<Worker> deregister(String id) {
    Entry entry = workers.remove(id);
    return entry == null ? Optional.empty() : Optional.of(entry.snapshot());
  }

  /**
   * Forgets and returns the workers not heard of within the timeout. The keeper's own threads (kind
   * {@code threads}) live and die with the service, so a long pause of the service (a GC, a
   * suspended machine) never makes it forget them.
   */
  public synchronized List<Worker> expire() {
    Instant limit = clock.instant().minus(timeout);
    List<Worker> lost = new ArrayList<>();
    workers
        .values()
        .removeIf(
            entry -> {
              if (!entry.kind.equals(THREADS) && entry.lastHeartbeatAt.isBefore(limit)) {
                lost.add(entry.snapshot());
                return true;
              }
              return false;
            });
    return lost;
  }

  public synchronized Optional<Worker> get(String id) {
    return Optional.ofNullable(workers.get(id)).map(Entry::snapshot);
  }

  /** Every known worker, by group then start time. */
  public synchronized List<Worker> all() {
    List<Worker> all = new ArrayList<>();
    workers.values().forEach(entry -> all.add(entry.snapshot()));
    all.sort(Comparator.comparing(Worker::group).thenComparing(Worker::startedAt));
    return all;
  }

  /** Live workers of a group. */
  public synchronized int live(String group) {
    return (int) workers.values().stream().filter(entry -> entry.group.equals(group)).count();
  }

  private static final class Entry {
    private final String id;
    private final String group;
    private final String kind;
    private final Optional<Long> pid;
    private final String host;
    private final int threads;
    private final Instant startedAt;
    private Instant lastHeartbeatAt;
    private int running;
    private long completed;

    Entry(
        String id,
        String group,
        String kind,
        Optional<Long> pid,
        String host,
        int threads,
        Instant startedAt) {
      this.id = id;
      this.group = group;
      this.kind = kind;
      this.pid = pid;
      this.host = host;
      this.threads = threads;
      this.startedAt = startedAt;
      this.lastHeartbeatAt = startedAt;
    }

    Worker snapshot() {
      return new Worker(
          id, group, kind, pid, host, threads, startedAt, lastHeartbeatAt, running, completed);
    }
  }
}

package dev.floe.server.optimize;

import static java.util.Objects.requireNonNull;

import dev.floe.core.config.WorkerGroupKind;
import dev.floe.iceberg.optimize.GroupResult;
import dev.floe.server.workers.WorkerRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The in-process worker group (kind {@code threads}): threads that lease file-group tasks of their
 * group from the {@link TaskQueue}, rewrite them and hand the results to the {@link RunCoordinator}
 * (which commits). Each thread is a worker in the {@link WorkerRegistry}, so the API lists it
 * beside the worker processes. A heartbeat thread extends the leases of the tasks being rewritten.
 * {@link #stop} lets running tasks finish, up to a grace period.
 */
public final class OptimizerWorkers {

  private static final Logger LOG = LoggerFactory.getLogger(OptimizerWorkers.class);
  private static final Duration POLL = Duration.ofMillis(500);

  private final TaskQueue queue;
  private final RunCoordinator coordinator;
  private final WorkerRegistry registry;
  private final String group;
  private final int threads;
  private final List<String> ids = new ArrayList<>();
  private final Duration leaseTimeout;
  private final List<Thread> workers = new ArrayList<>();
  private final Map<Long, String> running = new ConcurrentHashMap<>();
  private final AtomicInteger busy = new AtomicInteger();
  private final ScheduledExecutorService heartbeats =
      Executors.newSingleThreadScheduledExecutor(
          runnable -> {
            Thread thread = new Thread(runnable, "floe-keeper-heartbeat");
            thread.setDaemon(true);
            return thread;
          });
  private volatile boolean stopping;

  /**
   * @param group the {@code threads} group the threads serve
   */
  public OptimizerWorkers(
      TaskQueue queue,
      RunCoordinator coordinator,
      WorkerRegistry registry,
      String group,
      int threads,
      Duration leaseTimeout) {
    this.queue = requireNonNull(queue, "queue is null");
    this.coordinator = requireNonNull(coordinator, "coordinator is null");
    this.registry = requireNonNull(registry, "registry is null");
    this.group = requireNonNull(group, "group is null");
    this.threads = threads;
    this.leaseTimeout = requireNonNull(leaseTimeout, "leaseTimeout is null");
  }

  public synchronized void start() {
    for (int i = 0; i < threads; i++) {
      String name =
          registry
              .register(
                  group,
                  WorkerGroupKind.THREADS.configName(),
                  Optional.of(ProcessHandle.current().pid()),
                  "floe serve",
                  1)
              .id();
      ids.add(name);
      Thread thread = new Thread(() -> work(name), "floe-keeper-worker-" + i);
      thread.setDaemon(true);
      workers.add(thread);
      thread.start();
    }
    long every = Math.max(100, leaseTimeout.toMillis() / 3);
    heartbeats.scheduleWithFixedDelay(this::heartbeat, every, every, TimeUnit.MILLISECONDS);
  }

  public int threads() {
    return threads;
  }

  /** Worker threads rewriting a task now. */
  public int busy() {
    return busy.get();
  }

  private void work(String name) {
    while (!stopping) {
      Optional<QueuedTask> leased;
      try {
        leased = queue.lease(name, group, POLL);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      if (leased.isEmpty()) {
        continue;
      }
      QueuedTask task = leased.get();
      running.put(task.id(), name);
      busy.incrementAndGet();
      registry.started(name);
      try {
        GroupResult result = task.run().run().rewrite(task.task());
        running.remove(task.id());
        registry.finished(name, coordinator.completed(task.id(), name, task, result));
      } catch (RuntimeException e) {
        running.remove(task.id());
        LOG.warn("rewriting task {} of {} failed", task.id(), task.table(), e);
        coordinator.failed(task.id(), name, task, e);
        registry.finished(name, false);
      } catch (Error e) {
        running.remove(task.id());
        coordinator.failed(task.id(), name, task, new IllegalStateException(e.toString(), e));
        registry.finished(name, false);
        throw e;
      } finally {
        busy.decrementAndGet();
      }
    }
  }

  private void heartbeat() {
    ids.forEach(registry::touch);
    running.forEach((taskId, worker) -> queue.heartbeat(taskId, worker));
  }

  /**
   * Stops leasing and waits up to {@code grace} for the tasks being rewritten to finish (their
   * results are committed as usual).
   */
  public void stop(Duration grace) {
    stopping = true;
    queue.wakeAll();
    long deadline = System.nanoTime() + grace.toNanos();
    for (Thread worker : workers) {
      long left = deadline - System.nanoTime();
      try {
        worker.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    heartbeats.shutdownNow();
    ids.forEach(registry::deregister);
  }
}

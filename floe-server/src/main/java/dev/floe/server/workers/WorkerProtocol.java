package dev.floe.server.workers;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import dev.floe.core.error.FloeException;
import dev.floe.iceberg.optimize.GroupResult;
import dev.floe.iceberg.optimize.PortableTaskCodec;
import dev.floe.server.KeeperEvents;
import dev.floe.server.optimize.QueuedTask;
import dev.floe.server.optimize.RunCoordinator;
import dev.floe.server.optimize.TaskQueue;
import dev.floe.server.store.KeeperEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What workers outside the keeper can do, whatever carries it (the HTTP edge maps JSON to these
 * calls): register, poll for a task, heartbeat, complete, fail or release it, deregister. The
 * keeper stays the one committer: a result goes to the {@link RunCoordinator}, which commits it
 * only when the worker still holds the lease; a late result's files are removed by the run, which
 * knows they were never committed. A task id carries the keeper process's epoch, so a worker that
 * outlived a keeper restart cannot complete a task of the new process by accident: its result is
 * refused and its files are left to orphan cleanup (the new process cannot tell whether the old one
 * committed them).
 *
 * <p>Thread-safe.
 */
public final class WorkerProtocol {

  private static final Logger LOG = LoggerFactory.getLogger(WorkerProtocol.class);

  /** The longest a poll may wait for a task. */
  public static final Duration MAX_POLL_WAIT = Duration.ofSeconds(20);

  /** A task handed to a worker: its id in the protocol and the portable task as JSON. */
  public record Leased(String taskId, String taskJson) {}

  /** What became of a result. */
  public enum Outcome {
    /** Committed (or, for a failed commit, recorded as the group's failure). */
    ACCEPTED,
    /** The worker no longer held the lease: not committed, its files removed. */
    REFUSED
  }

  /** The answer to a heartbeat: which of the worker's tasks it still holds. */
  public record Heartbeat(List<String> held, List<String> lost) {}

  /** A call about a worker the keeper does not know (forgotten, or another keeper's). */
  public static final class UnknownWorker extends RuntimeException {
    private static final long serialVersionUID = 1L;

    UnknownWorker(String id) {
      super(
          "worker "
              + id
              + " is not registered (it was not heard of within the lease timeout, or the keeper"
              + " restarted): register again");
    }
  }

  private final WorkerRegistry workers;
  private final TaskQueue queue;
  private final RunCoordinator coordinator;
  private final KeeperEvents events;
  private final WorkerGroups groups;
  private final String epoch = UUID.randomUUID().toString().substring(0, 8);
  private final Map<Long, QueuedTask> handedOut = new ConcurrentHashMap<>();

  public WorkerProtocol(
      WorkerRegistry workers,
      TaskQueue queue,
      RunCoordinator coordinator,
      KeeperEvents events,
      WorkerGroups groups) {
    this.workers = requireNonNull(workers, "workers is null");
    this.queue = requireNonNull(queue, "queue is null");
    this.coordinator = requireNonNull(coordinator, "coordinator is null");
    this.events = requireNonNull(events, "events is null");
    this.groups = requireNonNull(groups, "groups is null");
  }

  /**
   * Registers a worker of a group (named ignoring case).
   *
   * @throws FloeException BAD_INPUT when the group does not exist
   */
  public WorkerRegistry.Worker register(
      String named, Optional<Long> pid, String host, int threads) {
    WorkerGroups.Group group =
        groups
            .find(named)
            .orElseThrow(
                () ->
                    FloeException.badInput(
                        "There is no worker group '"
                            + named
                            + "': name one of keeper.optimizer.groups with --group ("
                            + String.join(
                                ", ", groups.all().stream().map(WorkerGroups.Group::name).toList())
                            + ")."));
    WorkerRegistry.Worker worker = workers.register(group.name(), group.kind(), pid, host, threads);
    events.service(
        KeeperEvent.WORKER_STARTED,
        "worker "
            + worker.id()
            + " of group "
            + group.name()
            + " registered from "
            + host
            + pid.map(p -> " (pid " + p + ")").orElse(""));
    return worker;
  }

  /**
   * Waits up to {@code wait} (at most {@link #MAX_POLL_WAIT}) for a task of the worker's group and
   * leases it to the worker.
   *
   * @throws UnknownWorker when the worker is not registered
   */
  public Optional<Leased> poll(String workerId, Duration wait) throws InterruptedException {
    WorkerRegistry.Worker worker = known(workerId);
    Duration bounded = wait.compareTo(MAX_POLL_WAIT) > 0 ? MAX_POLL_WAIT : wait;
    Optional<QueuedTask> leased = queue.lease(workerId, worker.group(), bounded);
    if (leased.isEmpty()) {
      return Optional.empty();
    }
    QueuedTask task = leased.get();
    String json;
    try {
      json = PortableTaskCodec.toJson(task.run().run().portable(task.task()));
    } catch (RuntimeException e) {
      // Cannot describe it (should not happen): the run records the group's failure.
      LOG.error("cannot hand task {} of {} to a worker", task.id(), task.table(), e);
      coordinator.failed(task.id(), workerId, task, e);
      return Optional.empty();
    }
    handedOut.put(task.id(), task);
    workers.started(worker.id());
    return Optional.of(new Leased(taskId(task.id()), json));
  }

  /**
   * Extends the worker and the leases of the given tasks.
   *
   * @throws UnknownWorker when the worker is not registered
   */
  public Heartbeat heartbeat(String workerId, List<String> taskIds) {
    known(workerId);
    List<String> held = new ArrayList<>();
    List<String> lost = new ArrayList<>();
    for (String taskId : taskIds) {
      Optional<Long> id = queueId(taskId);
      if (id.isPresent() && queue.heartbeat(id.get(), workerId)) {
        held.add(taskId);
      } else {
        lost.add(taskId);
      }
    }
    return new Heartbeat(held, lost);
  }

  /**
   * A worker's result. Committed when the worker still holds the lease; refused otherwise, and then
   * its files are removed (for a task of this keeper process) or left to orphan cleanup.
   *
   * @throws UnknownWorker when the worker is not registered
   * @throws IllegalArgumentException when the result is not one of the task's (named)
   */
  public Outcome complete(String workerId, String taskId, JsonNode result) {
    known(workerId);
    Optional<QueuedTask> task = queueId(taskId).map(handedOut::get);
    if (task.isEmpty()) {
      LOG.info(
          "a result for task {} from worker {} is refused: no such task in this keeper process;"
              + " its files are left to orphan cleanup",
          taskId,
          workerId);
      workers.finished(workerId, false);
      return Outcome.REFUSED;
    }
    QueuedTask queued = task.get();
    GroupResult decoded;
    try {
      decoded = queued.run().run().decode(queued.task(), result);
    } catch (IllegalArgumentException e) {
      fail(workerId, taskId, "its result was refused: " + e.getMessage());
      throw e;
    }
    boolean accepted = coordinator.completed(queued.id(), workerId, queued, decoded);
    forgetIfSettled(queued.id());
    workers.finished(workerId, accepted);
    return accepted ? Outcome.ACCEPTED : Outcome.REFUSED;
  }

  /**
   * A worker's rewrite failed: counts as a failure of the table's run, when the worker still held
   * the lease.
   *
   * @throws UnknownWorker when the worker is not registered
   */
  public void fail(String workerId, String taskId, String error) {
    known(workerId);
    queueId(taskId)
        .map(handedOut::get)
        .ifPresent(
            task -> {
              coordinator.failed(
                  task.id(), workerId, task, new IllegalStateException("worker: " + error));
              forgetIfSettled(task.id());
            });
    workers.finished(workerId, false);
  }

  /**
   * Hands a task back unrun (the worker stops): it goes back to the queue, not a failure.
   *
   * @throws UnknownWorker when the worker is not registered
   */
  public void release(String workerId, String taskId) {
    known(workerId);
    queueId(taskId).ifPresent(id -> queue.release(id, workerId));
    workers.finished(workerId, false);
  }

  /** A worker says goodbye: its leases go back to the queue. */
  public void deregister(String workerId) {
    workers
        .deregister(workerId)
        .ifPresent(
            worker -> {
              queue.releaseAll(workerId);
              LOG.info("worker {} of group {} deregistered", workerId, worker.group());
            });
  }

  /**
   * Forgets workers not heard of within the lease timeout: their leases go back to the queue and
   * each raises {@code worker_lost}.
   */
  public List<WorkerRegistry.Worker> expire() {
    List<WorkerRegistry.Worker> lost = workers.expire();
    for (WorkerRegistry.Worker worker : lost) {
      // Quiet past the lease timeout: its leases expired, whichever loop noticed first.
      int released = queue.expireLeasesOf(worker.id());
      reportLost(worker, "was not heard of since " + worker.lastHeartbeatAt(), released);
    }
    handedOut.keySet().removeIf(id -> !queue.contains(id));
    return lost;
  }

  /**
   * Forgets a worker known to be gone (its process ended): its leases go back to the queue at once
   * and it raises {@code worker_lost} with {@code why}.
   */
  public Optional<WorkerRegistry.Worker> lost(String workerId, String why) {
    Optional<WorkerRegistry.Worker> worker = workers.deregister(workerId);
    worker.ifPresent(gone -> reportLost(gone, why, queue.releaseAll(gone.id())));
    handedOut.keySet().removeIf(id -> !queue.contains(id));
    return worker;
  }

  private void reportLost(WorkerRegistry.Worker worker, String why, int released) {
    events.service(
        KeeperEvent.WORKER_LOST,
        "worker "
            + worker.id()
            + " of group "
            + worker.group()
            + worker.pid().map(p -> " (pid " + p + ")").orElse("")
            + " "
            + why
            + "; "
            + released
            + " task(s) went back to the queue");
  }

  /** A task stays known while it is in the queue: another worker may hold it now. */
  private void forgetIfSettled(long id) {
    if (!queue.contains(id)) {
      handedOut.remove(id);
    }
  }

  /** Task ids handed out and not yet settled, for tests and the API. */
  public Set<String> handedOut() {
    Set<String> ids = new java.util.TreeSet<>();
    handedOut.keySet().forEach(id -> ids.add(taskId(id)));
    return ids;
  }

  private WorkerRegistry.Worker known(String workerId) {
    return workers.touch(workerId).orElseThrow(() -> new UnknownWorker(workerId));
  }

  private String taskId(long queueId) {
    return epoch + "-" + queueId;
  }

  private Optional<Long> queueId(String taskId) {
    if (taskId == null || !taskId.startsWith(epoch + "-")) {
      return Optional.empty();
    }
    try {
      return Optional.of(Long.parseLong(taskId.substring(epoch.length() + 1)));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }
}

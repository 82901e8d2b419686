package dev.floe.server.optimize;

import static java.util.Objects.requireNonNull;

import dev.floe.core.state.TableKey;
import dev.floe.iceberg.optimize.OptimizeJob;
import java.time.Instant;
import java.util.Optional;

/**
 * One file-group task in the {@link TaskQueue}: which table and run it belongs to, and its lease.
 * Mutable lease fields are guarded by the queue.
 */
public final class QueuedTask {

  private final long id;
  private final TableKey table;
  private final ActiveRun run;
  private final OptimizeJob.GroupTask task;
  private final Instant queuedAt;
  String worker;
  Instant leaseExpiresAt;
  Instant firstLeasedAt;
  int leases;

  QueuedTask(long id, TableKey table, ActiveRun run, OptimizeJob.GroupTask task, Instant queuedAt) {
    this.id = id;
    this.table = requireNonNull(table, "table is null");
    this.run = requireNonNull(run, "run is null");
    this.task = requireNonNull(task, "task is null");
    this.queuedAt = requireNonNull(queuedAt, "queuedAt is null");
  }

  public long id() {
    return id;
  }

  public TableKey table() {
    return table;
  }

  public ActiveRun run() {
    return run;
  }

  public OptimizeJob.GroupTask task() {
    return task;
  }

  public Instant queuedAt() {
    return queuedAt;
  }

  /** The worker holding the lease; empty while queued. */
  public synchronized Optional<String> worker() {
    return Optional.ofNullable(worker);
  }
}

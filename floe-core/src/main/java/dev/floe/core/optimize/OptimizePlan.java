package dev.floe.core.optimize;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Optional;

/**
 * What one optimize run will do, decided from a {@link TableState}: the tasks, worst partition
 * first, and the partitions left for later. Immutable.
 *
 * @param snapshot the snapshot the plan was made on (its id validates the commits, its sequence
 *     number is given to the rewritten files); empty when there is nothing to plan
 * @param budgetBytes the run's byte budget
 */
public record OptimizePlan(
    String table,
    Optional<PlannedSnapshot> snapshot,
    long targetFileSize,
    long budgetBytes,
    List<PartitionTask> tasks,
    List<DeferredPartition> deferred) {

  public OptimizePlan {
    requireNonNull(table, "table is null");
    requireNonNull(snapshot, "snapshot is null");
    tasks = List.copyOf(requireNonNull(tasks, "tasks is null"));
    deferred = List.copyOf(requireNonNull(deferred, "deferred is null"));
  }

  public boolean isEmpty() {
    return tasks.isEmpty();
  }

  /** Bytes the tasks read, together. */
  public long plannedBytes() {
    return tasks.stream().mapToLong(PartitionTask::bytesIn).sum();
  }
}

package dev.floe.core.optimize;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.util.List;

/** What one optimize run did, partition by partition. */
public record OptimizeResult(String table, List<PartitionOutcome> partitions) {

  public OptimizeResult {
    requireNonNull(table, "table is null");
    partitions = List.copyOf(requireNonNull(partitions, "partitions is null"));
  }

  public boolean succeeded() {
    return partitions.stream().allMatch(PartitionOutcome::succeeded);
  }

  public long bytesRead() {
    return partitions.stream().mapToLong(PartitionOutcome::bytesRead).sum();
  }

  public long bytesWritten() {
    return partitions.stream().mapToLong(PartitionOutcome::bytesWritten).sum();
  }

  /**
   * The failure history after this run: a partition with a failed group counts one more failure at
   * {@code now}; a partition whose groups all committed is cleared. Unknown commits change nothing
   * (the next scan sees what landed).
   */
  public OptimizeFailures updateFailures(OptimizeFailures failures, Instant now) {
    OptimizeFailures next = failures;
    for (PartitionOutcome outcome : partitions) {
      if (outcome.failed() > 0) {
        next = next.recordFailure(outcome.partition(), now);
      } else if (outcome.succeeded()) {
        next = next.recordSuccess(outcome.partition());
      }
    }
    return next;
  }
}

package dev.floe.core.optimize;

import static java.util.Objects.requireNonNull;

/** A partition that needs work but is not in this run's plan, and why (budget, backoff). */
public record DeferredPartition(PartitionKey partition, String reason) {
  public DeferredPartition {
    requireNonNull(partition, "partition is null");
    requireNonNull(reason, "reason is null");
  }
}

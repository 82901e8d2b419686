package dev.floe.core.optimize;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The partitions of one table whose last optimize attempt failed, with how often in a row and when:
 * the planner waits {@code retry.backoff-ms x 2^(failures-1)} (at most {@code
 * retry.max-backoff-ms}) before planning them again. Immutable.
 */
public record OptimizeFailures(Map<PartitionKey, Failure> failures) {

  /** {@code count} failures in a row, the last at {@code last}. */
  public record Failure(int count, Instant last) {
    public Failure {
      requireNonNull(last, "last is null");
      if (count < 1) {
        throw new IllegalArgumentException("count must be >= 1: " + count);
      }
    }
  }

  public OptimizeFailures {
    failures = Map.copyOf(requireNonNull(failures, "failures is null"));
  }

  public static OptimizeFailures none() {
    return new OptimizeFailures(Map.of());
  }

  /** These failures plus one more for {@code partition} at {@code now}. */
  public OptimizeFailures recordFailure(PartitionKey partition, Instant now) {
    Map<PartitionKey, Failure> next = new HashMap<>(failures);
    Failure previous = failures.get(partition);
    next.put(partition, new Failure(previous == null ? 1 : previous.count() + 1, now));
    return new OptimizeFailures(next);
  }

  /** These failures without {@code partition}: its last attempt succeeded. */
  public OptimizeFailures recordSuccess(PartitionKey partition) {
    Map<PartitionKey, Failure> next = new HashMap<>(failures);
    next.remove(partition);
    return new OptimizeFailures(next);
  }

  /** When {@code partition} may be planned again; empty when it is not backing off. */
  public Optional<Instant> retryAt(PartitionKey partition, OptimizePolicy policy) {
    Failure failure = failures.get(partition);
    if (failure == null) {
      return Optional.empty();
    }
    Duration wait = policy.retryBackoff();
    for (int i = 1; i < failure.count() && wait.compareTo(policy.retryMaxBackoff()) < 0; i++) {
      wait = wait.multipliedBy(2);
    }
    if (wait.compareTo(policy.retryMaxBackoff()) > 0) {
      wait = policy.retryMaxBackoff();
    }
    return Optional.of(failure.last().plus(wait));
  }
}

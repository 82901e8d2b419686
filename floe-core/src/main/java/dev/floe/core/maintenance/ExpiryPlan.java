package dev.floe.core.maintenance;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * Which snapshots expiry removes and why each other one stays.
 *
 * @param expired the snapshots to expire, oldest first
 * @param retained every kept snapshot id with the reason it is kept
 * @param cutoff snapshots committed before this instant were old enough to expire
 */
public record ExpiryPlan(
    List<SnapshotFacts> expired, Map<Long, RetentionReason> retained, Instant cutoff) {

  public ExpiryPlan {
    expired = List.copyOf(requireNonNull(expired, "expired is null"));
    retained = Map.copyOf(requireNonNull(retained, "retained is null"));
    requireNonNull(cutoff, "cutoff is null");
  }

  public List<Long> expiredIds() {
    return expired.stream().map(SnapshotFacts::id).toList();
  }
}

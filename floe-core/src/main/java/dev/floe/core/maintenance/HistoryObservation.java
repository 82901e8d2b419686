package dev.floe.core.maintenance;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What Floe saw of a table's history at one moment.
 *
 * @param table the table, as NS.TABLE
 * @param observedAt when
 * @param metadataLocation the table's current metadata file
 * @param currentSnapshotId the current snapshot, empty for a table without one
 * @param ancestry the current snapshot and its ancestors, newest first, as far as they are kept
 * @param ancestryTruncated whether the oldest ancestor has a parent that expiry removed
 */
public record HistoryObservation(
    String table,
    Instant observedAt,
    String metadataLocation,
    OptionalLong currentSnapshotId,
    List<ObservedSnapshot> ancestry,
    boolean ancestryTruncated) {

  public HistoryObservation {
    requireNonNull(table, "table is null");
    requireNonNull(observedAt, "observedAt is null");
    requireNonNull(metadataLocation, "metadataLocation is null");
    requireNonNull(currentSnapshotId, "currentSnapshotId is null");
    ancestry = List.copyOf(requireNonNull(ancestry, "ancestry is null"));
  }

  /**
   * Observes a table from its snapshots.
   *
   * @param snapshots every snapshot the table's metadata keeps
   */
  public static HistoryObservation of(
      String table,
      Instant observedAt,
      String metadataLocation,
      OptionalLong currentSnapshotId,
      List<SnapshotFacts> snapshots) {
    Map<Long, SnapshotFacts> byId = new HashMap<>();
    snapshots.forEach(snapshot -> byId.put(snapshot.id(), snapshot));
    List<ObservedSnapshot> ancestry = new ArrayList<>();
    boolean truncated = false;
    if (currentSnapshotId.isPresent()) {
      List<SnapshotFacts> chain = ExpiryPlanner.ancestry(currentSnapshotId.getAsLong(), byId);
      chain.forEach(snapshot -> ancestry.add(ObservedSnapshot.of(snapshot)));
      truncated = !chain.isEmpty() && chain.get(chain.size() - 1).parentId().isPresent();
    }
    return new HistoryObservation(
        table, observedAt, metadataLocation, currentSnapshotId, ancestry, truncated);
  }

  public Optional<ObservedSnapshot> current() {
    return ancestry.isEmpty() ? Optional.empty() : Optional.of(ancestry.get(0));
  }
}

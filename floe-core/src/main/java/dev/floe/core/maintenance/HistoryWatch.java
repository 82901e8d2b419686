package dev.floe.core.maintenance;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Decides whether a table's history continued from a previous observation or was rewound (commits
 * dropped out of it, as when stale metadata is written back over newer metadata). Pure.
 */
public final class HistoryWatch {

  /**
   * @param previous the earlier observation
   * @param now the new observation
   * @param metadataLog the metadata files the new metadata lists as its predecessors
   * @param snapshotIds every snapshot id the new metadata keeps (on any branch or tag)
   */
  public HistoryVerdict compare(
      HistoryObservation previous,
      HistoryObservation now,
      List<String> metadataLog,
      Set<Long> snapshotIds) {
    requireNonNull(previous, "previous is null");
    requireNonNull(now, "now is null");
    requireNonNull(metadataLog, "metadataLog is null");
    requireNonNull(snapshotIds, "snapshotIds is null");
    if (previous.currentSnapshotId().isEmpty()) {
      return intact("the table had no snapshot when it was last observed");
    }
    long previousId = previous.currentSnapshotId().getAsLong();
    ObservedSnapshot previousCurrent = previous.current().orElseThrow();
    Map<Long, ObservedSnapshot> nowById = new HashMap<>();
    now.ancestry().forEach(snapshot -> nowById.put(snapshot.id(), snapshot));
    if (nowById.containsKey(previousId)) {
      return intact(
          previousId == now.currentSnapshotId().orElse(-1)
              ? "the current snapshot is unchanged"
              : "the previous current snapshot "
                  + previousId
                  + " is an ancestor of the current one");
    }
    boolean reachesBelow =
        !now.ancestryTruncated()
            || now.ancestry().stream().anyMatch(snapshot -> notNewer(snapshot, previousCurrent));
    boolean stillKeptElsewhere = snapshotIds.contains(previousId);
    if (reachesBelow || stillKeptElsewhere) {
      List<ObservedSnapshot> lost = lost(previous, nowById);
      return new HistoryVerdict(
          HistoryVerdict.Status.REWOUND,
          lost,
          "the table's history was rewound: the previous current snapshot "
              + previousId
              + " is no longer an ancestor of the current snapshot "
              + now.currentSnapshotId().stream()
                  .mapToObj(Long::toString)
                  .findFirst()
                  .orElse("(none)")
              + "; "
              + lost.size()
              + " committed snapshot(s) dropped out of history");
    }
    if (metadataLog.contains(previous.metadataLocation())
        || now.metadataLocation().equals(previous.metadataLocation())) {
      return intact(
          "the previous current snapshot "
              + previousId
              + " has expired, and the metadata evolved from the observed metadata file");
    }
    return new HistoryVerdict(
        HistoryVerdict.Status.UNVERIFIABLE,
        List.of(),
        "the previous current snapshot "
            + previousId
            + " is gone and expiry removed the ancestors that would prove or disprove a rewind;"
            + " observe the table more often than its snapshots expire");
  }

  /** The previous ancestry down to (not including) the newest snapshot both histories share. */
  private static List<ObservedSnapshot> lost(
      HistoryObservation previous, Map<Long, ObservedSnapshot> nowById) {
    List<ObservedSnapshot> lost = new ArrayList<>();
    for (ObservedSnapshot snapshot : previous.ancestry()) {
      if (nowById.containsKey(snapshot.id())) {
        break;
      }
      lost.add(snapshot);
    }
    return lost;
  }

  /**
   * Whether a snapshot is not newer than another: by sequence number (format v2+), by commit time
   * when both have sequence number 0 (format v1).
   */
  private static boolean notNewer(ObservedSnapshot snapshot, ObservedSnapshot reference) {
    if (snapshot.sequenceNumber() == 0 && reference.sequenceNumber() == 0) {
      return !snapshot.committedAt().isAfter(reference.committedAt());
    }
    return snapshot.sequenceNumber() <= reference.sequenceNumber();
  }

  private static HistoryVerdict intact(String explanation) {
    return new HistoryVerdict(
        HistoryVerdict.Status.INTACT, List.of(), "history intact: " + explanation);
  }
}

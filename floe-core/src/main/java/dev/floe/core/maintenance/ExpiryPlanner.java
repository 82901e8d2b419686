package dev.floe.core.maintenance;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Decides which snapshots expire. Keeps the current snapshot, every branch or tag head, the newest
 * {@code minSnapshots} of the main history, every snapshot younger than {@code maxSnapshotAge}, and
 * for each Flink writer job its newest checkpointed snapshot in the main history together with
 * every ancestor between it and the current snapshot (Flink finds its last checkpoint by walking
 * parents from the current snapshot; one missing link would hide it). Ancestors of other branches
 * that are not in the main history are kept too: Floe does not age out a branch's history.
 */
public final class ExpiryPlanner {

  /**
   * @param snapshots every snapshot of the table
   * @param refs every branch and tag, {@code main} included when the table has a current snapshot
   * @param policy the table's policy
   * @param now the time of planning
   */
  public ExpiryPlan plan(
      List<SnapshotFacts> snapshots, List<TableRef> refs, MaintenancePolicy policy, Instant now) {
    requireNonNull(snapshots, "snapshots is null");
    requireNonNull(refs, "refs is null");
    requireNonNull(policy, "policy is null");
    requireNonNull(now, "now is null");
    Instant cutoff = now.minus(policy.maxSnapshotAge());
    Map<Long, SnapshotFacts> byId = new HashMap<>();
    for (SnapshotFacts snapshot : snapshots) {
      byId.put(snapshot.id(), snapshot);
    }
    Map<Long, RetentionReason> retained = new LinkedHashMap<>();
    OptionalLong current = OptionalLong.empty();
    for (TableRef ref : refs) {
      if (ref.branch() && ref.name().equals(TableRef.MAIN)) {
        current = OptionalLong.of(ref.snapshotId());
      }
    }
    current.ifPresent(id -> retained.put(id, RetentionReason.CURRENT));
    for (TableRef ref : refs) {
      retained.putIfAbsent(ref.snapshotId(), RetentionReason.REFERENCED);
    }

    List<SnapshotFacts> mainHistory =
        current.isPresent() ? ancestry(current.getAsLong(), byId) : List.of();
    for (int i = 0; i < Math.min(policy.minSnapshots(), mainHistory.size()); i++) {
      retained.putIfAbsent(mainHistory.get(i).id(), RetentionReason.MIN_SNAPSHOTS);
    }
    if (policy.keepFlinkCheckpoints()) {
      Set<String> jobsSeen = new HashSet<>();
      int deepest = -1;
      for (int i = 0; i < mainHistory.size(); i++) {
        var job = mainHistory.get(i).flinkJobId();
        if (job.isPresent() && jobsSeen.add(job.get())) {
          deepest = i;
        }
      }
      for (int i = 0; i <= deepest; i++) {
        retained.putIfAbsent(mainHistory.get(i).id(), RetentionReason.FLINK_CHECKPOINT);
      }
    }
    Set<Long> onSomeBranch = new HashSet<>();
    for (TableRef ref : refs) {
      if (ref.branch() && !ref.name().equals(TableRef.MAIN)) {
        for (SnapshotFacts ancestor : ancestry(ref.snapshotId(), byId)) {
          onSomeBranch.add(ancestor.id());
        }
      }
    }
    Set<Long> onMain = new HashSet<>();
    mainHistory.forEach(snapshot -> onMain.add(snapshot.id()));

    List<SnapshotFacts> expired = new ArrayList<>();
    for (SnapshotFacts snapshot : snapshots) {
      if (retained.containsKey(snapshot.id())) {
        continue;
      }
      if (!snapshot.committedAt().isBefore(cutoff)) {
        retained.put(snapshot.id(), RetentionReason.YOUNG);
      } else if (onSomeBranch.contains(snapshot.id()) && !onMain.contains(snapshot.id())) {
        retained.put(snapshot.id(), RetentionReason.OFF_MAIN);
      } else {
        expired.add(snapshot);
      }
    }
    expired.sort(
        Comparator.comparing(SnapshotFacts::committedAt).thenComparingLong(SnapshotFacts::id));
    return new ExpiryPlan(expired, retained, cutoff);
  }

  /** The snapshot and its ancestors, newest first, as far as the parents are still known. */
  static List<SnapshotFacts> ancestry(long snapshotId, Map<Long, SnapshotFacts> byId) {
    List<SnapshotFacts> chain = new ArrayList<>();
    Set<Long> seen = new HashSet<>();
    SnapshotFacts snapshot = byId.get(snapshotId);
    while (snapshot != null && seen.add(snapshot.id())) {
      chain.add(snapshot);
      OptionalLong parent = snapshot.parentId();
      snapshot = parent.isPresent() ? byId.get(parent.getAsLong()) : null;
    }
    return chain;
  }
}

package dev.floe.iceberg.maintenance;

import static java.util.Objects.requireNonNull;

import dev.floe.core.error.FloeException;
import dev.floe.core.maintenance.ExpiryPlan;
import dev.floe.core.maintenance.ExpiryPlanner;
import dev.floe.core.maintenance.FileToDelete;
import dev.floe.core.maintenance.MaintenanceAction;
import dev.floe.core.maintenance.MaintenancePolicy;
import dev.floe.core.maintenance.MaintenancePreview;
import dev.floe.core.maintenance.ReachableLocations;
import dev.floe.core.maintenance.RetentionReason;
import dev.floe.core.maintenance.SnapshotFacts;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.ExpireSnapshots;
import org.apache.iceberg.Table;

/**
 * Expires snapshots by the table's policy, then deletes the files no remaining snapshot reaches.
 *
 * <p>The preview lists the snapshots to expire and the files only they reach. The commit checks the
 * plan again on the table as it is then (a snapshot a new branch, tag, rollback or Flink checkpoint
 * now keeps fails the commit), expires exactly the previewed snapshots with Iceberg's own file
 * cleanup turned off, reloads the metadata and deletes the previewed files no snapshot of the
 * reloaded metadata reaches. Snapshots committed meanwhile are neither expired nor robbed of their
 * files. Stateless; see {@link MaintenanceJob} for threads.
 */
public final class SnapshotExpirer implements MaintenanceJob<SnapshotExpirer.Preview> {

  /**
   * A previewed expiry.
   *
   * @param preview the snapshots to expire and the files only they reach
   * @param plan the plan it came from
   * @param policy the policy it was planned with; the commit checks the plan again with it
   * @param plannedAt the time it was planned for
   */
  public record Preview(
      MaintenancePreview preview, ExpiryPlan plan, MaintenancePolicy policy, Instant plannedAt)
      implements MaintenanceJob.Preview {

    public Preview {
      requireNonNull(preview, "preview is null");
      requireNonNull(plan, "plan is null");
      requireNonNull(policy, "policy is null");
      requireNonNull(plannedAt, "plannedAt is null");
    }
  }

  private final ExpiryPlanner planner = new ExpiryPlanner();

  @Override
  public Preview preview(String name, Table table, MaintenancePolicy policy, Instant now) {
    requireNonNull(policy, "policy is null");
    requireNonNull(now, "now is null");
    TableSnapshot snapshot = TableSnapshot.refresh(name, table);
    policy.requireGcEnabled(name, MaintenanceAction.EXPIRE_SNAPSHOTS);
    FileReachability reachability = FileReachability.scan(snapshot.metadata(), table.io());
    List<SnapshotFacts> snapshots = snapshot.snapshots();
    ExpiryPlan plan = planner.plan(snapshots, snapshot.refs(), policy, now);
    Set<Long> remaining = new HashSet<>();
    snapshots.forEach(facts -> remaining.add(facts.id()));
    plan.expiredIds().forEach(remaining::remove);
    Set<String> kept = reachability.filesOf(remaining);
    kept.addAll(reachability.metadataFiles());
    List<FileToDelete> files =
        reachability.filesOf(plan.expiredIds()).stream()
            .filter(file -> !kept.contains(file))
            .sorted()
            .map(file -> new FileToDelete(file, reachability.size(file)))
            .toList();
    MaintenancePreview preview =
        new MaintenancePreview(
            MaintenanceAction.EXPIRE_SNAPSHOTS, name, plan.expired(), files, 0, List.of());
    return new Preview(preview, plan, policy, now);
  }

  /**
   * Expires the previewed snapshots and deletes the previewed files no remaining snapshot reaches.
   * Previewed snapshots that are gone already (another run expired them) are skipped.
   *
   * @throws FloeException BAD_INPUT when the table now has gc.enabled=false; COMMIT_CONFLICT when
   *     the table now keeps a previewed snapshot, or a concurrent commit won every retry; nothing
   *     was changed. COMMIT_STATE_UNKNOWN when the catalog did not confirm the commit; nothing was
   *     deleted
   */
  @Override
  public MaintenanceOutcome commit(Table table, Preview preview) {
    String name = preview.preview().table();
    if (preview.plan().expired().isEmpty()) {
      return MaintenanceOutcome.nothingDone(preview.preview());
    }
    TableSnapshot before = TableSnapshot.refresh(name, table);
    MaintenancePolicy.requireGcEnabled(
        name, before.properties(), MaintenanceAction.EXPIRE_SNAPSHOTS);
    List<Long> expiring = stillExpiring(before, preview);
    boolean committed = false;
    if (!expiring.isEmpty()) {
      // Expire exactly these snapshots: no age-based expiry of Iceberg's own (its default would
      // use history.expire.max-snapshot-age-ms), and no Iceberg file cleanup.
      ExpireSnapshots expire = table.expireSnapshots().cleanExpiredFiles(false).expireOlderThan(0L);
      expiring.forEach(expire::expireSnapshotId);
      MaintenanceCommit.land(name, "the snapshot expiry", expire::commit);
      committed = true;
    }
    TableSnapshot after = TableSnapshot.refresh(name, table);
    ReachableLocations reachable =
        new ReachableLocations(FileReachability.scan(after.metadata(), table.io()).all());
    return FileDeleter.deleteUnreferenced(table.io(), preview.preview(), reachable, committed);
  }

  /**
   * The previewed snapshots the table still has, after checking that the plan, made again on the
   * table as it is now with the preview's policy and time, still expires each of them.
   */
  private List<Long> stillExpiring(TableSnapshot current, Preview preview) {
    List<SnapshotFacts> snapshots = current.snapshots();
    ExpiryPlan now = planner.plan(snapshots, current.refs(), preview.policy(), preview.plannedAt());
    Set<Long> present = new HashSet<>();
    snapshots.forEach(facts -> present.add(facts.id()));
    List<Long> expiring = new ArrayList<>();
    for (long id : preview.plan().expiredIds()) {
      if (!present.contains(id)) {
        continue;
      }
      RetentionReason reason = now.retained().get(id);
      if (reason != null) {
        throw FloeException.commitConflict(
            "Table "
                + current.name()
                + " changed since the preview: snapshot "
                + id
                + " is now kept ("
                + reason.description()
                + "). Nothing was changed. Preview again.");
      }
      expiring.add(id);
    }
    return expiring;
  }
}

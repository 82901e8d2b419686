package dev.floe.iceberg.maintenance;

import static java.util.Objects.requireNonNull;

import dev.floe.core.maintenance.ExpiryPlan;
import dev.floe.core.maintenance.ExpiryPlanner;
import dev.floe.core.maintenance.FileToDelete;
import dev.floe.core.maintenance.MaintenanceAction;
import dev.floe.core.maintenance.MaintenancePolicy;
import dev.floe.core.maintenance.MaintenancePreview;
import dev.floe.core.maintenance.SnapshotFacts;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.ExpireSnapshots;
import org.apache.iceberg.Table;

/**
 * Expires snapshots by the table's policy, then deletes the files no remaining snapshot reaches.
 *
 * <p>Iceberg's own file cleanup is turned off: Floe computes the files reachable from every
 * snapshot before the commit and from every snapshot of the reloaded metadata after it, and deletes
 * only the difference. Snapshots committed concurrently are in the reloaded metadata, so their
 * files are never deleted. Not thread-safe for one table; different tables are independent.
 */
public final class SnapshotExpirer {

  /** A preview together with the plan it came from. */
  public record Preview(MaintenancePreview preview, ExpiryPlan plan) {}

  private final ExpiryPlanner planner = new ExpiryPlanner();

  /** Plans, changes nothing. */
  public Preview preview(String name, Table table, MaintenancePolicy policy, Instant now) {
    TableSnapshot snapshot = TableSnapshot.refresh(name, table);
    return preview(snapshot, FileReachability.scan(snapshot.metadata(), table.io()), policy, now);
  }

  private Preview preview(
      TableSnapshot snapshot,
      FileReachability reachability,
      MaintenancePolicy policy,
      Instant now) {
    requireNonNull(policy, "policy is null");
    policy.requireGcEnabled(snapshot.name(), "expire snapshots");
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
            MaintenanceAction.EXPIRE_SNAPSHOTS,
            snapshot.name(),
            plan.expired(),
            files,
            0,
            List.of());
    return new Preview(preview, plan);
  }

  /**
   * Expires the planned snapshots and deletes the files they alone reached.
   *
   * @throws dev.floe.core.error.FloeException BAD_INPUT when the table has gc.enabled=false
   * @throws org.apache.iceberg.exceptions.CommitFailedException when a concurrent commit won;
   *     nothing was deleted
   */
  public MaintenanceOutcome run(String name, Table table, MaintenancePolicy policy, Instant now) {
    TableSnapshot before = TableSnapshot.refresh(name, table);
    FileReachability reachableBefore = FileReachability.scan(before.metadata(), table.io());
    Preview preview = preview(before, reachableBefore, policy, now);
    if (preview.plan().expired().isEmpty()) {
      return new MaintenanceOutcome(preview.preview(), false, 0, 0, List.of());
    }
    // Expire exactly the planned snapshots: no age-based expiry of Iceberg's own (its default
    // would use history.expire.max-snapshot-age-ms), and no Iceberg file cleanup.
    ExpireSnapshots expire = table.expireSnapshots().cleanExpiredFiles(false).expireOlderThan(0L);
    preview.plan().expiredIds().forEach(expire::expireSnapshotId);
    expire.commit();

    TableSnapshot after = TableSnapshot.refresh(name, table);
    Set<String> reachableAfter = FileReachability.scan(after.metadata(), table.io()).all();
    List<FileToDelete> unreachable =
        reachableBefore.all().stream()
            .filter(file -> !reachableAfter.contains(file))
            .sorted()
            .map(file -> new FileToDelete(file, reachableBefore.size(file)))
            .toList();
    MaintenancePreview executed =
        new MaintenancePreview(
            MaintenanceAction.EXPIRE_SNAPSHOTS,
            name,
            preview.plan().expired(),
            unreachable,
            0,
            List.of());
    return FileDeleter.delete(table.io(), executed, true);
  }
}

package dev.floe.iceberg.maintenance;

import dev.floe.core.maintenance.ListedFile;
import dev.floe.core.maintenance.MaintenanceAction;
import dev.floe.core.maintenance.MaintenancePolicy;
import dev.floe.core.maintenance.MaintenancePreview;
import dev.floe.core.maintenance.OrphanPlan;
import dev.floe.core.maintenance.OrphanPlanner;
import dev.floe.core.maintenance.ReachableLocations;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.ReachableFileUtil;
import org.apache.iceberg.Table;

/**
 * Removes files under a table's location that nothing the table keeps references and that are older
 * than {@code floe.orphan.min-age}. The location is listed first and the reachable set built after,
 * so a file committed while listing is already in the reachable set.
 */
public final class OrphanFileCleaner {

  /** A preview together with the plan it came from. */
  public record Preview(MaintenancePreview preview, OrphanPlan plan) {}

  private final OrphanPlanner planner = new OrphanPlanner();

  /**
   * Plans, changes nothing.
   *
   * @param ageSource where the policy's orphan age came from, for messages
   * @param force allow an orphan age below one hour
   * @throws dev.floe.core.error.FloeException BAD_INPUT for gc.enabled=false or an unsafe age
   */
  public Preview preview(
      String name,
      Table table,
      MaintenancePolicy policy,
      String ageSource,
      boolean force,
      Instant now) {
    policy.requireGcEnabled(name, "remove orphan files");
    policy.requireSafeOrphanAge(name, ageSource, force);
    table.refresh();
    List<ListedFile> listed = FileListing.list(name, table.io(), table.location());
    TableSnapshot snapshot = TableSnapshot.refresh(name, table);
    Set<String> reachable = FileReachability.scan(snapshot.metadata(), table.io()).all();
    reachable.add(ReachableFileUtil.versionHintLocation(table));
    OrphanPlan plan =
        planner.plan(listed, new ReachableLocations(reachable), policy.orphanMinAge(), now);
    return new Preview(
        MaintenancePreview.ofOrphans(MaintenanceAction.CLEAN_ORPHANS, name, plan), plan);
  }

  /** Deletes the orphans of a fresh plan; deletes nothing while there are path conflicts. */
  public MaintenanceOutcome run(
      String name,
      Table table,
      MaintenancePolicy policy,
      String ageSource,
      boolean force,
      Instant now) {
    Preview preview = preview(name, table, policy, ageSource, force, now);
    if (preview.preview().blocked()) {
      return new MaintenanceOutcome(preview.preview(), false, 0, 0, List.of());
    }
    return FileDeleter.delete(table.io(), preview.preview(), false);
  }
}

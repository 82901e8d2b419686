package dev.floe.iceberg.maintenance;

import static java.util.Objects.requireNonNull;

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
 * than {@code floe.orphan.min-age}. The preview lists the location first and builds the reachable
 * set after, so a file committed while listing is already in the reachable set. The commit builds
 * the reachable set again and deletes only the previewed orphans it still does not reference, so a
 * file committed between preview and commit stays. Stateless; see {@link MaintenanceJob}.
 */
public final class OrphanFileCleaner implements MaintenanceJob<OrphanFileCleaner.Preview> {

  /** A previewed orphan cleanup and the plan it came from. */
  public record Preview(MaintenancePreview preview, OrphanPlan plan)
      implements MaintenanceJob.Preview {

    public Preview {
      requireNonNull(preview, "preview is null");
      requireNonNull(plan, "plan is null");
    }
  }

  private final OrphanPlanner planner = new OrphanPlanner();

  /**
   * Plans, changes nothing.
   *
   * @throws dev.floe.core.error.FloeException BAD_INPUT for gc.enabled=false or an orphan age below
   *     1h the policy does not accept
   */
  @Override
  public Preview preview(String name, Table table, MaintenancePolicy policy, Instant now) {
    policy.requireGcEnabled(name, MaintenanceAction.CLEAN_ORPHANS);
    policy.requireSafeOrphanAge(name);
    table.refresh();
    List<ListedFile> listed = FileListing.list(name, table.io(), table.location());
    TableSnapshot snapshot = TableSnapshot.refresh(name, table);
    OrphanPlan plan = planner.plan(listed, reachable(snapshot, table), policy.orphanMinAge(), now);
    return new Preview(
        MaintenancePreview.ofOrphans(MaintenanceAction.CLEAN_ORPHANS, name, plan), plan);
  }

  /**
   * Deletes the previewed orphans the table still does not reference; deletes nothing for a preview
   * blocked by path conflicts.
   *
   * @throws dev.floe.core.error.FloeException BAD_INPUT when the table now has gc.enabled=false;
   *     nothing was deleted
   */
  @Override
  public MaintenanceOutcome commit(Table table, Preview preview) {
    MaintenancePreview shown = preview.preview();
    if (shown.blocked() || shown.filesToDelete().isEmpty()) {
      return MaintenanceOutcome.nothingDone(shown);
    }
    TableSnapshot current = TableSnapshot.refresh(shown.table(), table);
    MaintenancePolicy.requireGcEnabled(
        shown.table(), current.properties(), MaintenanceAction.CLEAN_ORPHANS);
    return FileDeleter.deleteUnreferenced(table.io(), shown, reachable(current, table), false);
  }

  /** Everything the metadata keeps, and the version hint of a file-system table. */
  private static ReachableLocations reachable(TableSnapshot snapshot, Table table) {
    Set<String> reachable = FileReachability.scan(snapshot.metadata(), table.io()).all();
    reachable.add(ReachableFileUtil.versionHintLocation(table));
    return new ReachableLocations(reachable);
  }
}

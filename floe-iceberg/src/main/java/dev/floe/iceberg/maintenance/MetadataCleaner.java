package dev.floe.iceberg.maintenance;

import static java.util.Objects.requireNonNull;

import dev.floe.core.maintenance.ListedFile;
import dev.floe.core.maintenance.MaintenanceAction;
import dev.floe.core.maintenance.MaintenancePolicy;
import dev.floe.core.maintenance.MaintenancePreview;
import dev.floe.core.maintenance.MetadataCleanupPlanner;
import dev.floe.core.maintenance.OrphanPlan;
import dev.floe.core.maintenance.ReachableLocations;
import java.time.Instant;
import java.util.List;
import org.apache.iceberg.Table;

/**
 * Removes old metadata files beyond the retained versions, and manifests, manifest lists and
 * statistics files no snapshot references, from the directory of the table's current metadata file;
 * only files older than {@code floe.orphan.min-age}. The commit deletes only the previewed files
 * that the table, as it is then, still does not keep. Stateless; see {@link MaintenanceJob}.
 */
public final class MetadataCleaner implements MaintenanceJob<MetadataCleaner.Preview> {

  /**
   * A previewed metadata cleanup.
   *
   * @param preview the files to delete
   * @param plan the plan it came from
   * @param policy the policy it was planned with; the commit applies its retention again
   */
  public record Preview(MaintenancePreview preview, OrphanPlan plan, MaintenancePolicy policy)
      implements MaintenanceJob.Preview {

    public Preview {
      requireNonNull(preview, "preview is null");
      requireNonNull(plan, "plan is null");
      requireNonNull(policy, "policy is null");
    }
  }

  private final MetadataCleanupPlanner planner = new MetadataCleanupPlanner();

  /**
   * Plans, changes nothing.
   *
   * @throws dev.floe.core.error.FloeException BAD_INPUT for gc.enabled=false or an orphan age below
   *     1h the policy does not accept
   */
  @Override
  public Preview preview(String name, Table table, MaintenancePolicy policy, Instant now) {
    policy.requireGcEnabled(name, MaintenanceAction.CLEAN_METADATA);
    policy.requireSafeOrphanAge(name);
    TableSnapshot first = TableSnapshot.refresh(name, table);
    String current = first.metadataLocation();
    String directory = current.substring(0, current.lastIndexOf('/'));
    List<ListedFile> listed = FileListing.list(name, table.io(), directory);
    TableSnapshot snapshot = TableSnapshot.refresh(name, table);
    List<String> log = snapshot.metadataLog();
    OrphanPlan plan =
        planner.plan(
            listed,
            snapshot.metadataLocation(),
            log,
            retained(policy, log),
            List.copyOf(
                FileReachability.scan(snapshot.metadata(), table.io())
                    .snapshotAndStatisticsFiles()),
            policy.orphanMinAge(),
            now);
    return new Preview(
        MaintenancePreview.ofOrphans(MaintenanceAction.CLEAN_METADATA, name, plan), plan, policy);
  }

  /**
   * Deletes the previewed files the table, as it is now, still does not keep (by the preview's
   * retention); deletes nothing for a preview blocked by path conflicts.
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
    TableSnapshot snapshot = TableSnapshot.refresh(shown.table(), table);
    MaintenancePolicy.requireGcEnabled(
        shown.table(), snapshot.properties(), MaintenanceAction.CLEAN_METADATA);
    List<String> log = snapshot.metadataLog();
    ReachableLocations kept =
        MetadataCleanupPlanner.kept(
            snapshot.metadataLocation(),
            log,
            retained(preview.policy(), log),
            FileReachability.scan(snapshot.metadata(), table.io()).snapshotAndStatisticsFiles());
    return FileDeleter.deleteUnreferenced(table.io(), shown, kept, false);
  }

  private static int retained(MaintenancePolicy policy, List<String> log) {
    return policy.retainedMetadataVersions().orElse(log.size());
  }
}

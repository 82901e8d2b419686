package dev.floe.iceberg.maintenance;

import dev.floe.core.maintenance.ListedFile;
import dev.floe.core.maintenance.MaintenanceAction;
import dev.floe.core.maintenance.MaintenancePolicy;
import dev.floe.core.maintenance.MaintenancePreview;
import dev.floe.core.maintenance.MetadataCleanupPlanner;
import dev.floe.core.maintenance.OrphanPlan;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.Table;

/**
 * Removes old metadata files beyond the retained versions, and manifests, manifest lists and
 * statistics files no snapshot references, from the directory of the table's current metadata file;
 * only files older than {@code floe.orphan.min-age}.
 */
public final class MetadataCleaner {

  /** A preview together with the plan it came from. */
  public record Preview(MaintenancePreview preview, OrphanPlan plan) {}

  private final MetadataCleanupPlanner planner = new MetadataCleanupPlanner();

  /**
   * Plans, changes nothing.
   *
   * @throws dev.floe.core.error.FloeException BAD_INPUT for gc.enabled=false or an unsafe age
   */
  public Preview preview(
      String name,
      Table table,
      MaintenancePolicy policy,
      String ageSource,
      boolean force,
      Instant now) {
    policy.requireGcEnabled(name, "clean metadata files");
    policy.requireSafeOrphanAge(name, ageSource, force);
    TableSnapshot first = TableSnapshot.refresh(name, table);
    String current = first.metadataLocation();
    String directory = current.substring(0, current.lastIndexOf('/'));
    List<ListedFile> listed = FileListing.list(name, table.io(), directory);
    TableSnapshot snapshot = TableSnapshot.refresh(name, table);
    List<String> log = snapshot.metadataLog();
    int retained = policy.retainedMetadataVersions().orElse(log.size());
    List<String> reachable =
        new ArrayList<>(
            FileReachability.scan(snapshot.metadata(), table.io()).snapshotAndStatisticsFiles());
    OrphanPlan plan =
        planner.plan(
            listed,
            snapshot.metadataLocation(),
            log,
            retained,
            reachable,
            policy.orphanMinAge(),
            now);
    return new Preview(
        MaintenancePreview.ofOrphans(MaintenanceAction.CLEAN_METADATA, name, plan), plan);
  }

  /** Deletes what a fresh plan finds; deletes nothing while there are path conflicts. */
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

package dev.floe.server.maintenance;

import dev.floe.core.maintenance.MaintenancePolicy;
import dev.floe.iceberg.maintenance.MaintenanceOutcome;
import dev.floe.iceberg.maintenance.MetadataCleaner;
import dev.floe.iceberg.maintenance.OrphanFileCleaner;
import dev.floe.iceberg.maintenance.SnapshotExpirer;
import java.time.Instant;
import org.apache.iceberg.Table;

/**
 * The maintenance jobs the one-shot commands run, for the keeper's loop: each previews and commits
 * exactly that preview.
 */
public final class IcebergMaintenanceJobs implements MaintenanceLoop.Jobs {

  private final SnapshotExpirer expirer = new SnapshotExpirer();
  private final MetadataCleaner metadataCleaner = new MetadataCleaner();
  private final OrphanFileCleaner orphanCleaner = new OrphanFileCleaner();

  @Override
  public MaintenanceOutcome expire(
      String name, Table table, MaintenancePolicy policy, Instant now) {
    return expirer.previewAndCommit(name, table, policy, now);
  }

  @Override
  public MaintenanceOutcome cleanMetadata(
      String name, Table table, MaintenancePolicy policy, Instant now) {
    return metadataCleaner.previewAndCommit(name, table, policy, now);
  }

  @Override
  public MaintenanceOutcome cleanOrphans(
      String name, Table table, MaintenancePolicy policy, Instant now) {
    return orphanCleaner.previewAndCommit(name, table, policy, now);
  }
}

package dev.floe.server.maintenance;

import dev.floe.core.maintenance.MaintenancePolicy;
import dev.floe.iceberg.maintenance.MaintenanceOutcome;
import dev.floe.iceberg.maintenance.MetadataCleaner;
import dev.floe.iceberg.maintenance.OrphanFileCleaner;
import dev.floe.iceberg.maintenance.SnapshotExpirer;
import java.time.Instant;
import org.apache.iceberg.Table;

/** The maintenance jobs the one-shot commands run, for the keeper's loop. */
public final class IcebergMaintenanceJobs implements MaintenanceLoop.Jobs {

  private final SnapshotExpirer expirer = new SnapshotExpirer();
  private final MetadataCleaner metadataCleaner = new MetadataCleaner();
  private final OrphanFileCleaner orphanCleaner = new OrphanFileCleaner();

  @Override
  public MaintenanceOutcome expire(
      String name, Table table, MaintenancePolicy policy, Instant now) {
    return expirer.run(name, table, policy, now);
  }

  @Override
  public MaintenanceOutcome cleanMetadata(
      String name, Table table, MaintenancePolicy policy, Instant now) {
    return metadataCleaner.run(name, table, policy, MaintenancePolicy.ORPHAN_MIN_AGE, false, now);
  }

  @Override
  public MaintenanceOutcome cleanOrphans(
      String name, Table table, MaintenancePolicy policy, Instant now) {
    return orphanCleaner.run(name, table, policy, MaintenancePolicy.ORPHAN_MIN_AGE, false, now);
  }
}

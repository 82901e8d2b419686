package dev.floe.iceberg.maintenance;

import dev.floe.core.maintenance.MaintenancePolicy;
import dev.floe.core.maintenance.MaintenancePreview;
import java.time.Instant;
import org.apache.iceberg.Table;

/**
 * One maintenance operation on one table, in the two steps of Iceberg's {@code PendingUpdate}:
 * {@link #preview} plans and changes nothing; {@link #commit} lands exactly that preview, never
 * more. What the table gained between the two is left alone: a snapshot committed meanwhile is not
 * expired, a file referenced meanwhile is not deleted. Callers show the preview (the CLI's {@code
 * --dry-run}, the keeper's dashboard) and commit the value they showed.
 *
 * <p>Implementations hold no state between calls: one instance may serve several tables and
 * threads, but two commits on the same table at once race like any two Iceberg writers.
 *
 * @param <P> the operation's preview
 */
public interface MaintenanceJob<P extends MaintenanceJob.Preview> {

  /** A preview: what the operation would do, and what its commit needs to do exactly that. */
  interface Preview {

    /** What the operation would do, as shown to people. */
    MaintenancePreview preview();
  }

  /**
   * Plans; changes nothing.
   *
   * @param name the table, as NS.TABLE, for the preview and messages
   * @param table the loaded table; refreshed first
   * @param policy the table's policy, with any overrides for this run
   * @param now the time to plan for (ages are measured from it)
   * @throws dev.floe.core.error.FloeException BAD_INPUT when the policy forbids the operation
   *     (gc.enabled=false, an unsafe orphan age); SOURCE_UNAVAILABLE when the table's files cannot
   *     be read or listed
   */
  P preview(String name, Table table, MaintenancePolicy policy, Instant now);

  /**
   * Lands exactly {@code preview} on {@code table} (the table it was made from), after checking
   * again, on the table as it is now, whatever the preview's safety depended on. A blocked or empty
   * preview commits nothing.
   *
   * @throws dev.floe.core.error.FloeException BAD_INPUT when the table now forbids the operation
   *     (gc.enabled=false), COMMIT_CONFLICT when the table changed so that the preview no longer
   *     holds or a concurrent commit won every retry Iceberg makes; nothing was changed in either
   *     case. COMMIT_STATE_UNKNOWN when the catalog did not confirm whether the commit landed;
   *     nothing was deleted
   */
  MaintenanceOutcome commit(Table table, P preview);

  /** Previews and commits that preview, for callers that show nothing in between. */
  default MaintenanceOutcome previewAndCommit(
      String name, Table table, MaintenancePolicy policy, Instant now) {
    return commit(table, preview(name, table, policy, now));
  }
}

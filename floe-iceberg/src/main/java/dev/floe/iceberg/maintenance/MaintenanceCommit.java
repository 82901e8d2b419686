package dev.floe.iceberg.maintenance;

import dev.floe.core.error.FloeException;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.ValidationException;

/**
 * Lands one maintenance commit and turns Iceberg's commit failures into categorized errors. Iceberg
 * itself retries a commit that lost a race ({@code commit.retry.num-retries}, with backoff) before
 * it gives up; what reaches here has lost every retry, or was refused by a validation that a retry
 * cannot change, or may have landed.
 */
final class MaintenanceCommit {

  private MaintenanceCommit() {}

  /**
   * Runs {@code commit}.
   *
   * @param table the table, as NS.TABLE, for the message
   * @param operation what was being committed, e.g. "the snapshot expiry"
   * @throws FloeException COMMIT_CONFLICT when another writer won every retry or changed what the
   *     commit depended on (nothing was changed); COMMIT_STATE_UNKNOWN when the catalog did not
   *     answer whether the commit landed
   */
  static void land(String table, String operation, Runnable commit) {
    try {
      commit.run();
    } catch (CommitFailedException e) {
      throw FloeException.commitConflict(
          "Table "
              + table
              + ": another writer committed while "
              + operation
              + " was committing, and it lost every retry (table property"
              + " commit.retry.num-retries): "
              + e.getMessage()
              + ". Nothing was changed. Run it again; to lose fewer races with a streaming"
              + " writer, raise commit.retry.num-retries on the table.",
          e);
    } catch (ValidationException e) {
      throw FloeException.commitConflict(
          "Table "
              + table
              + ": a concurrent commit conflicts with "
              + operation
              + ": "
              + e.getMessage()
              + ". Nothing was changed. Preview and run it again.",
          e);
    } catch (CommitStateUnknownException e) {
      throw FloeException.commitStateUnknown(
          "Table "
              + table
              + ": the catalog did not confirm whether "
              + operation
              + " landed: "
              + e.getMessage()
              + ". Nothing was deleted. Check the table's snapshots before running it again.",
          e);
    }
  }
}

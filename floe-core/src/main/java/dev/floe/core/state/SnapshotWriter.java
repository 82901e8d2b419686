package dev.floe.core.state;

import dev.floe.core.sync.SyncSummary;
import java.util.Map;

/**
 * Who wrote an Iceberg snapshot, told from the keys Floe writes into its summary: Floe's sync
 * ({@link SyncSummary#SYNC_ID}), its optimizer ({@link #OPTIMIZE_KIND}), its maintenance ({@link
 * #MAINTENANCE_ACTION}), or anything else.
 */
public enum SnapshotWriter {
  SYNC("sync"),
  OPTIMIZE("optimize"),
  MAINTENANCE("maintenance"),
  OTHER("other");

  /** The summary key of Floe's optimize commits: the task kind (minor, deletes, full, ...). */
  public static final String OPTIMIZE_KIND = "floe.optimize.kind";

  /**
   * The summary key of Floe's maintenance commits that write a snapshot: the action (e.g. {@code
   * remove-dangling-deletes}). Expiry and cleanups write no snapshot.
   */
  public static final String MAINTENANCE_ACTION = "floe.maintenance.action";

  private final String apiName;

  SnapshotWriter(String apiName) {
    this.apiName = apiName;
  }

  /** The name the API and the pages use. */
  public String apiName() {
    return apiName;
  }

  /** The writer of a snapshot with this summary. */
  public static SnapshotWriter of(Map<String, String> summary) {
    if (summary.containsKey(SyncSummary.SYNC_ID)) {
      return SYNC;
    }
    if (summary.containsKey(OPTIMIZE_KIND)) {
      return OPTIMIZE;
    }
    if (summary.containsKey(MAINTENANCE_ACTION)) {
      return MAINTENANCE;
    }
    return OTHER;
  }
}

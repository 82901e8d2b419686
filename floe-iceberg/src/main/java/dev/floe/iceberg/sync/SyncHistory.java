package dev.floe.iceberg.sync;

import dev.floe.core.sync.SyncSummary;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;

/**
 * What Floe's sync recorded in a table's history, looking past the commits of others: the keeper's
 * optimize and maintenance commits carry no sync marks, so the newest snapshot alone does not tell
 * where the sync stands. Looks at most {@link #DEPTH} snapshots back along the current history.
 */
public final class SyncHistory {

  /** How many snapshots back the sync's marks are looked for. */
  public static final int DEPTH = 100;

  private SyncHistory() {}

  /**
   * The {@code floe.source-watermark-ms} of the newest snapshot that records one: the table is
   * complete up to that MySQL commit time. Empty when none does (or its value is not a number: not
   * written by Floe's sync).
   */
  public static OptionalLong sourceWatermarkMillis(Table table) {
    Snapshot snapshot = table.currentSnapshot();
    for (int depth = 0; snapshot != null && depth < DEPTH; depth++) {
      String value = snapshot.summary().get(SyncSummary.SOURCE_WATERMARK_MS);
      if (value != null) {
        try {
          return OptionalLong.of(Long.parseLong(value.trim()));
        } catch (NumberFormatException e) {
          return OptionalLong.empty();
        }
      }
      snapshot = parent(table, snapshot);
    }
    return OptionalLong.empty();
  }

  /**
   * Whether the sync's copy of the table is complete: a snapshot in reach records {@code
   * floe.snapshot-complete} (for a route's table, {@code floe.snapshot-complete.<db.table>}) or a
   * binlog-phase watermark.
   */
  public static boolean copied(Table table) {
    Snapshot snapshot = table.currentSnapshot();
    for (int depth = 0; snapshot != null && depth < DEPTH; depth++) {
      for (Map.Entry<String, String> entry : snapshot.summary().entrySet()) {
        if (entry.getKey().equals(SyncSummary.SOURCE_WATERMARK_MS)
            || (entry.getKey().startsWith(SyncSummary.SNAPSHOT_COMPLETE)
                && "true".equals(entry.getValue()))) {
          return true;
        }
      }
      snapshot = parent(table, snapshot);
    }
    return false;
  }

  private static Snapshot parent(Table table, Snapshot snapshot) {
    return snapshot.parentId() == null ? null : table.snapshot(snapshot.parentId());
  }
}

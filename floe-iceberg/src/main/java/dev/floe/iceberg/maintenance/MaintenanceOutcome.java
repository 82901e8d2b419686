package dev.floe.iceberg.maintenance;

import static java.util.Objects.requireNonNull;

import dev.floe.core.maintenance.MaintenancePreview;
import java.util.List;

/**
 * What a maintenance commit did.
 *
 * @param preview the preview it committed
 * @param committed whether it committed a change to the table's metadata
 * @param deletedFiles how many files it deleted
 * @param deletedBytes their bytes, as far as known
 * @param failedDeletes files it could not delete, each with the reason (they stay; a later run
 *     retries)
 * @param stillReferenced files of the preview that the table referenced again at commit time: kept,
 *     not deleted
 */
public record MaintenanceOutcome(
    MaintenancePreview preview,
    boolean committed,
    int deletedFiles,
    long deletedBytes,
    List<String> failedDeletes,
    List<String> stillReferenced) {

  public MaintenanceOutcome {
    requireNonNull(preview, "preview is null");
    failedDeletes = List.copyOf(requireNonNull(failedDeletes, "failedDeletes is null"));
    stillReferenced = List.copyOf(requireNonNull(stillReferenced, "stillReferenced is null"));
  }

  /** Nothing committed, nothing deleted: the preview was empty or blocked. */
  public static MaintenanceOutcome nothingDone(MaintenancePreview preview) {
    return new MaintenanceOutcome(preview, false, 0, 0, List.of(), List.of());
  }
}

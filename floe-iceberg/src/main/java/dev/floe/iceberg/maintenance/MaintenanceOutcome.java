package dev.floe.iceberg.maintenance;

import static java.util.Objects.requireNonNull;

import dev.floe.core.maintenance.MaintenancePreview;
import java.util.List;

/**
 * What a maintenance run did.
 *
 * @param preview the plan it executed
 * @param committed whether it committed a change to the table's metadata
 * @param deletedFiles how many files it deleted
 * @param deletedBytes their bytes, as far as known
 * @param failedDeletes files it could not delete, each with the reason (they stay; a later run
 *     retries)
 */
public record MaintenanceOutcome(
    MaintenancePreview preview,
    boolean committed,
    int deletedFiles,
    long deletedBytes,
    List<String> failedDeletes) {

  public MaintenanceOutcome {
    requireNonNull(preview, "preview is null");
    failedDeletes = List.copyOf(requireNonNull(failedDeletes, "failedDeletes is null"));
  }
}

package dev.floe.core.maintenance;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * What a maintenance action would do, before it does it: the value {@code --dry-run} prints and the
 * keeper dashboard shows.
 *
 * @param action the action
 * @param table the table, as NS.TABLE
 * @param snapshotsToExpire snapshots the action removes from the table's metadata
 * @param filesToDelete files it deletes (or removes from the table), sorted by location
 * @param filesKept files it looked at and keeps for a reason worth showing (too young)
 * @param blockers reasons the action will delete nothing (path conflicts); empty when it can run
 */
public record MaintenancePreview(
    MaintenanceAction action,
    String table,
    List<SnapshotFacts> snapshotsToExpire,
    List<FileToDelete> filesToDelete,
    int filesKept,
    List<String> blockers) {

  public MaintenancePreview {
    requireNonNull(action, "action is null");
    requireNonNull(table, "table is null");
    snapshotsToExpire = List.copyOf(requireNonNull(snapshotsToExpire, "snapshotsToExpire is null"));
    filesToDelete = List.copyOf(requireNonNull(filesToDelete, "filesToDelete is null"));
    blockers = List.copyOf(requireNonNull(blockers, "blockers is null"));
  }

  /** Bytes of the files to delete whose size is known. */
  public long bytesToDelete() {
    return filesToDelete.stream().mapToLong(file -> Math.max(0, file.sizeBytes())).sum();
  }

  public boolean blocked() {
    return !blockers.isEmpty();
  }

  /** The preview of an orphan plan. */
  public static MaintenancePreview ofOrphans(
      MaintenanceAction action, String table, OrphanPlan plan) {
    List<String> blockers =
        plan.conflicts().stream()
            .map(
                conflict ->
                    "path conflict: listed "
                        + conflict.listed()
                        + " but the metadata references "
                        + conflict.referenced())
            .toList();
    List<FileToDelete> files =
        plan.orphans().stream()
            .map(file -> new FileToDelete(file.location(), file.sizeBytes()))
            .toList();
    return new MaintenancePreview(
        action, table, List.of(), files, plan.tooYoung().size(), blockers);
  }
}

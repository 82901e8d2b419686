package dev.floe.iceberg.maintenance;

import dev.floe.core.maintenance.FileToDelete;
import dev.floe.core.maintenance.MaintenancePreview;
import dev.floe.core.maintenance.ReachableLocations;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.io.FileIO;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes the files of a preview one by one, each only if the table, as it is at commit time, does
 * not reference it; a failed delete is recorded, not thrown.
 */
final class FileDeleter {

  private static final Logger LOG = LoggerFactory.getLogger(FileDeleter.class);

  private FileDeleter() {}

  /**
   * @param kept what the table keeps now; a file it references, or may reference under another
   *     spelling (a path conflict), is kept
   */
  static MaintenanceOutcome deleteUnreferenced(
      FileIO io, MaintenancePreview preview, ReachableLocations kept, boolean committed) {
    int deleted = 0;
    long bytes = 0;
    List<String> failures = new ArrayList<>();
    List<String> stillReferenced = new ArrayList<>();
    for (FileToDelete file : preview.filesToDelete()) {
      if (kept.match(file.location()) != ReachableLocations.Match.UNREFERENCED) {
        stillReferenced.add(file.location());
        continue;
      }
      try {
        io.deleteFile(file.location());
        deleted++;
        bytes += Math.max(0, file.sizeBytes());
      } catch (RuntimeException e) {
        LOG.warn("cannot delete {}", file.location(), e);
        failures.add(file.location() + ": " + e.getMessage());
      }
    }
    return new MaintenanceOutcome(preview, committed, deleted, bytes, failures, stillReferenced);
  }
}

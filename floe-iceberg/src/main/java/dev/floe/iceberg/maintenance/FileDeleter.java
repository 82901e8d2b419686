package dev.floe.iceberg.maintenance;

import dev.floe.core.maintenance.FileToDelete;
import dev.floe.core.maintenance.MaintenancePreview;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.io.FileIO;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Deletes the files of a preview one by one; a failure is recorded, not thrown. */
final class FileDeleter {

  private static final Logger LOG = LoggerFactory.getLogger(FileDeleter.class);

  private FileDeleter() {}

  static MaintenanceOutcome delete(FileIO io, MaintenancePreview preview, boolean committed) {
    int deleted = 0;
    long bytes = 0;
    List<String> failures = new ArrayList<>();
    for (FileToDelete file : preview.filesToDelete()) {
      try {
        io.deleteFile(file.location());
        deleted++;
        bytes += Math.max(0, file.sizeBytes());
      } catch (RuntimeException e) {
        LOG.warn("cannot delete {}", file.location(), e);
        failures.add(file.location() + ": " + e.getMessage());
      }
    }
    return new MaintenanceOutcome(preview, committed, deleted, bytes, failures);
  }
}

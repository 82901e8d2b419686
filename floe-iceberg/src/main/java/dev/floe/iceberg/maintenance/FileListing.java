package dev.floe.iceberg.maintenance;

import dev.floe.core.error.FloeException;
import dev.floe.core.maintenance.ListedFile;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.SupportsPrefixOperations;

/** Lists every file under a location through the table's own FileIO. */
final class FileListing {

  private static final int LIST_ATTEMPTS = 3;

  private FileListing() {}

  /**
   * @throws FloeException BAD_INPUT when the table's FileIO cannot list, SOURCE_UNAVAILABLE when
   *     the listing fails (nothing is deleted on a partial listing)
   */
  static List<ListedFile> list(String table, FileIO io, String location) {
    if (!(io instanceof SupportsPrefixOperations prefixes)) {
      throw FloeException.badInput(
          "Table "
              + table
              + " uses "
              + io.getClass().getName()
              + ", which cannot list files, so orphan files cannot be found. Nothing was changed."
              + " Configure a FileIO that supports listing (HadoopFileIO, S3FileIO, ...).");
    }
    // A writer may delete its own files while the listing runs (a retried commit removes the
    // manifest list it wrote first); some FileIOs then fail the whole listing. Such a file is no
    // orphan candidate anyway, so list again; after three failures, give up and delete nothing.
    RuntimeException failure = null;
    for (int attempt = 1; attempt <= LIST_ATTEMPTS; attempt++) {
      try {
        List<ListedFile> files = new ArrayList<>();
        for (FileInfo file : prefixes.listPrefix(location)) {
          files.add(
              new ListedFile(
                  file.location(), file.size(), Instant.ofEpochMilli(file.createdAtMillis())));
        }
        return files;
      } catch (RuntimeException e) {
        failure = e;
      }
    }
    throw FloeException.sourceUnavailable(
        "Cannot list "
            + location
            + " of table "
            + table
            + " ("
            + LIST_ATTEMPTS
            + " attempts): "
            + failure.getMessage()
            + ". Nothing was changed.",
        failure);
  }
}

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
    List<ListedFile> files = new ArrayList<>();
    try {
      for (FileInfo file : prefixes.listPrefix(location)) {
        files.add(
            new ListedFile(
                file.location(), file.size(), Instant.ofEpochMilli(file.createdAtMillis())));
      }
    } catch (RuntimeException e) {
      throw FloeException.sourceUnavailable(
          "Cannot list "
              + location
              + " of table "
              + table
              + ": "
              + e.getMessage()
              + ". Nothing was changed.",
          e);
    }
    return files;
  }
}

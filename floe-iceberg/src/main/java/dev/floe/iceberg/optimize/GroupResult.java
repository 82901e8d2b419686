package dev.floe.iceberg.optimize;

import java.util.List;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;

/**
 * What rewriting one file group produced, before it is committed: files written, none committed.
 *
 * @param bytesRead bytes of data files (whole, or key columns for conversions) and delete files
 *     read
 * @param replaced data files whose rows were rewritten (deletes applied) into {@code added}
 * @param added the new data files
 * @param converted large data files kept, whose deletes are now all in {@code addedDeletes}
 * @param addedDeletes position delete files written for {@code converted} (at most one each)
 */
public record GroupResult(
    List<DataFile> replaced,
    List<DataFile> added,
    List<DataFile> converted,
    List<DeleteFile> addedDeletes,
    long bytesRead,
    long rowsWritten,
    long rowsDeleted,
    long equalityDeleteKeys,
    int spilledRuns) {

  public GroupResult {
    replaced = List.copyOf(replaced);
    added = List.copyOf(added);
    converted = List.copyOf(converted);
    addedDeletes = List.copyOf(addedDeletes);
  }

  /** Bytes of the files it wrote. */
  public long bytesWritten() {
    return added.stream().mapToLong(DataFile::fileSizeInBytes).sum()
        + addedDeletes.stream().mapToLong(DeleteFile::fileSizeInBytes).sum();
  }
}

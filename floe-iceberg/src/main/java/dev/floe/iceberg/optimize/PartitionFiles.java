package dev.floe.iceberg.optimize;

import static java.util.Objects.requireNonNull;

import dev.floe.core.optimize.PartitionKey;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.util.ContentFileUtil;

/**
 * The live files of one partition at the planned snapshot: its data files, its own delete files,
 * and the delete files of unpartitioned specs (which apply to every partition). Knows which delete
 * files apply to which data file, by the rules of the Iceberg spec.
 */
final class PartitionFiles {

  private final PartitionKey partition;
  final List<DataFile> dataFiles = new ArrayList<>();
  final List<DeleteFile> deleteFiles = new ArrayList<>();
  final List<DeleteFile> globalDeleteFiles;

  PartitionFiles(PartitionKey partition, List<DeleteFile> globalDeleteFiles) {
    this.partition = requireNonNull(partition, "partition is null");
    this.globalDeleteFiles = globalDeleteFiles;
  }

  PartitionKey partition() {
    return partition;
  }

  /**
   * Equality deletes apply to a data file with a smaller data sequence number, in its partition or
   * from an unpartitioned spec.
   */
  List<DeleteFile> equalityDeletesFor(DataFile file) {
    long sequence = OptimizeScanner.sequenceNumber(file);
    List<DeleteFile> applicable = new ArrayList<>();
    for (List<DeleteFile> source : List.of(deleteFiles, globalDeleteFiles)) {
      for (DeleteFile delete : source) {
        if (delete.content() == FileContent.EQUALITY_DELETES
            && OptimizeScanner.sequenceNumber(delete) > sequence) {
          applicable.add(delete);
        }
      }
    }
    return applicable;
  }

  /**
   * Position deletes apply to a data file with a smaller or equal data sequence number in the same
   * partition; a delete file that names one data file only applies to that one.
   */
  List<DeleteFile> positionDeletesFor(DataFile file) {
    long sequence = OptimizeScanner.sequenceNumber(file);
    List<DeleteFile> applicable = new ArrayList<>();
    for (DeleteFile delete : deleteFiles) {
      if (delete.content() != FileContent.POSITION_DELETES
          || OptimizeScanner.sequenceNumber(delete) < sequence) {
        continue;
      }
      CharSequence referenced = ContentFileUtil.referencedDataFile(delete);
      if (referenced == null || referenced.toString().equals(file.location())) {
        applicable.add(delete);
      }
    }
    return applicable;
  }

  /**
   * The delete files that belong to this partition (and may be removed once they apply to nothing):
   * its own, plus the global equality deletes when this is the unpartitioned spec they were written
   * with.
   */
  List<DeleteFile> ownDeleteFiles() {
    List<DeleteFile> own = new ArrayList<>(deleteFiles);
    if (partition.path().isEmpty()) {
      for (DeleteFile delete : globalDeleteFiles) {
        if (delete.specId() == partition.specId()) {
          own.add(delete);
        }
      }
    }
    return own;
  }

  boolean hasDeletes(DataFile file) {
    return !positionDeletesFor(file).isEmpty() || !equalityDeletesFor(file).isEmpty();
  }
}

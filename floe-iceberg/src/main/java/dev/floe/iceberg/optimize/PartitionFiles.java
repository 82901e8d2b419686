package dev.floe.iceberg.optimize;

import static java.util.Objects.requireNonNull;

import dev.floe.core.optimize.PartitionKey;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Comparators;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.ContentFileUtil;

/**
 * The live files of one partition at the planned snapshot: its data files, its own delete files,
 * and the delete files of unpartitioned specs (which apply to every partition). Knows which delete
 * files apply to which data file, by the rules of the Iceberg spec, and, as Iceberg's own scans do,
 * leaves out an equality delete file whose key range cannot meet the data file's (by their column
 * bounds): key-ordered files (see {@code floe.optimize.cluster-by-key}) then take deletes only
 * where the changed keys are.
 */
final class PartitionFiles {

  private final PartitionKey partition;
  private final Schema schema;
  final List<DataFile> dataFiles = new ArrayList<>();
  final List<DeleteFile> deleteFiles = new ArrayList<>();
  final List<DeleteFile> globalDeleteFiles;

  PartitionFiles(PartitionKey partition, Schema schema, List<DeleteFile> globalDeleteFiles) {
    this.partition = requireNonNull(partition, "partition is null");
    this.schema = requireNonNull(schema, "schema is null");
    this.globalDeleteFiles = globalDeleteFiles;
  }

  PartitionKey partition() {
    return partition;
  }

  /**
   * Equality deletes apply to a data file with a smaller data sequence number, in its partition or
   * from an unpartitioned spec, unless their column bounds show that no key can match.
   */
  List<DeleteFile> equalityDeletesFor(DataFile file) {
    long sequence = OptimizeScanner.sequenceNumber(file);
    List<DeleteFile> applicable = new ArrayList<>();
    for (List<DeleteFile> source : List.of(deleteFiles, globalDeleteFiles)) {
      for (DeleteFile delete : source) {
        if (delete.content() == FileContent.EQUALITY_DELETES
            && OptimizeScanner.sequenceNumber(delete) > sequence
            && mayMatch(file, delete)) {
          applicable.add(delete);
        }
      }
    }
    return applicable;
  }

  /**
   * Whether some row of the data file may equal a key of the equality delete file: false only when,
   * for one of the key columns, both files have bounds, the column cannot be null in both, and the
   * ranges do not meet. Missing statistics, a column this schema does not know or a non-primitive
   * one always may match.
   */
  private boolean mayMatch(DataFile file, DeleteFile delete) {
    Map<Integer, ByteBuffer> dataLower = file.lowerBounds();
    Map<Integer, ByteBuffer> dataUpper = file.upperBounds();
    Map<Integer, ByteBuffer> deleteLower = delete.lowerBounds();
    Map<Integer, ByteBuffer> deleteUpper = delete.upperBounds();
    if (dataLower == null
        || dataUpper == null
        || deleteLower == null
        || deleteUpper == null
        || delete.equalityFieldIds() == null) {
      return true;
    }
    for (int id : delete.equalityFieldIds()) {
      Types.NestedField field = schema.findField(id);
      if (field == null || !field.type().isPrimitiveType()) {
        continue;
      }
      if (mayHaveNulls(file.nullValueCounts(), id) && mayHaveNulls(delete.nullValueCounts(), id)) {
        continue; // a null key deletes null keys, which no bound describes
      }
      ByteBuffer fromData = dataLower.get(id);
      ByteBuffer toData = dataUpper.get(id);
      ByteBuffer fromDelete = deleteLower.get(id);
      ByteBuffer toDelete = deleteUpper.get(id);
      if (fromData == null || toData == null || fromDelete == null || toDelete == null) {
        continue;
      }
      Type.PrimitiveType type = field.type().asPrimitiveType();
      Comparator<Object> order = Comparators.forType(type);
      Object dataMin = Conversions.fromByteBuffer(type, fromData);
      Object dataMax = Conversions.fromByteBuffer(type, toData);
      Object deleteMin = Conversions.fromByteBuffer(type, fromDelete);
      Object deleteMax = Conversions.fromByteBuffer(type, toDelete);
      if (order.compare(deleteMax, dataMin) < 0 || order.compare(dataMax, deleteMin) < 0) {
        return false;
      }
    }
    return true;
  }

  private static boolean mayHaveNulls(Map<Integer, Long> nullCounts, int id) {
    Long nulls = nullCounts == null ? null : nullCounts.get(id);
    return nulls == null || nulls > 0;
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

  /** Whether the delete file applies to the data file, by the same rules. */
  boolean applies(DeleteFile delete, DataFile file) {
    long sequence = OptimizeScanner.sequenceNumber(file);
    if (delete.content() == FileContent.EQUALITY_DELETES) {
      return OptimizeScanner.sequenceNumber(delete) > sequence && mayMatch(file, delete);
    }
    if (OptimizeScanner.sequenceNumber(delete) < sequence) {
      return false;
    }
    CharSequence referenced = ContentFileUtil.referencedDataFile(delete);
    return referenced == null || referenced.toString().equals(file.location());
  }

  boolean hasDeletes(DataFile file) {
    return !positionDeletesFor(file).isEmpty() || !equalityDeletesFor(file).isEmpty();
  }
}

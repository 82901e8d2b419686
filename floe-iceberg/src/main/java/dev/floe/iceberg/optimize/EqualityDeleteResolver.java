package dev.floe.iceberg.optimize;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.TypeUtil;

/**
 * Finds the rows of a group's data files that its equality deletes delete, without holding the
 * delete keys in memory: a sort-merge join of the delete keys {@code (key, sequence number)}
 * against the data files' keys {@code (key, file, position)}, both through an {@link
 * ExternalSorter} that spills to local disk (docs/optimize.md, "Runner"). Only the key columns of
 * the data files are read. The result is one bitmap of deleted positions per data file.
 */
final class EqualityDeleteResolver {

  private final Table table;
  private final Path spillDirectory;
  private final long memoryBytes;
  private long deleteKeys;
  private int spilledRuns;

  EqualityDeleteResolver(Table table, Path spillDirectory, long memoryBytes) {
    this.table = table;
    this.spillDirectory = spillDirectory;
    this.memoryBytes = memoryBytes;
  }

  /** Deleted positions by data file location; files with no deleted row are absent. */
  Map<String, BitSet> resolve(List<DataFile> files, PartitionFiles partition) {
    // Equality deletes written with different key columns are joined separately.
    Map<Set<Integer>, Map<String, DeleteFile>> deletesByKey = new LinkedHashMap<>();
    for (DataFile file : files) {
      for (DeleteFile delete : partition.equalityDeletesFor(file)) {
        deletesByKey
            .computeIfAbsent(new TreeSet<>(delete.equalityFieldIds()), ids -> new LinkedHashMap<>())
            .putIfAbsent(delete.location(), delete);
      }
    }
    Map<String, BitSet> deleted = new HashMap<>();
    for (Map.Entry<Set<Integer>, Map<String, DeleteFile>> entry : deletesByKey.entrySet()) {
      join(files, entry.getKey(), List.copyOf(entry.getValue().values()), deleted);
    }
    return deleted;
  }

  /** Delete keys read so far, for reports and tests. */
  long deleteKeys() {
    return deleteKeys;
  }

  /** Sort runs spilled to disk so far. */
  int spilledRuns() {
    return spilledRuns;
  }

  private void join(
      List<DataFile> files,
      Set<Integer> keyIds,
      List<DeleteFile> deletes,
      Map<String, BitSet> out) {
    Schema keySchema = TypeUtil.select(table.schema(), keyIds);
    int keyFields = keySchema.columns().size();
    long maxDeleteSequence =
        deletes.stream().mapToLong(OptimizeScanner::sequenceNumber).max().orElse(0);
    // Each sorter gets half the memory: the delete sorter is still buffered while the data
    // sorter fills.
    try (ExternalSorter deleteSorter = new ExternalSorter(spillDirectory, memoryBytes / 2);
        ExternalSorter dataSorter = new ExternalSorter(spillDirectory, memoryBytes / 2)) {
      for (DeleteFile delete : deletes) {
        long sequence = OptimizeScanner.sequenceNumber(delete);
        try (CloseableIterable<Record> rows = ParquetFiles.read(table, delete, keySchema)) {
          for (Record row : rows) {
            deleteSorter.add(KeyEncoder.encode(row, keyFields), sequence, 0);
          }
        }
      }
      deleteKeys += deleteSorter.size();
      List<DataFile> candidates = new ArrayList<>();
      for (DataFile file : files) {
        if (OptimizeScanner.sequenceNumber(file) >= maxDeleteSequence) {
          continue; // no delete of this key set is newer than the file
        }
        int index = candidates.size();
        candidates.add(file);
        long position = 0;
        try (CloseableIterable<Record> rows = ParquetFiles.read(table, file, keySchema)) {
          for (Record row : rows) {
            dataSorter.add(KeyEncoder.encode(row, keyFields), index, position++);
          }
        }
      }
      long[] sequences = candidates.stream().mapToLong(OptimizeScanner::sequenceNumber).toArray();
      try (ExternalSorter.CloseableIterator deleteKeysSorted = deleteSorter.sorted();
          ExternalSorter.CloseableIterator dataKeysSorted = dataSorter.sorted()) {
        merge(deleteKeysSorted, dataKeysSorted, sequences, candidates, out);
      }
      spilledRuns += deleteSorter.spilledRuns() + dataSorter.spilledRuns();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read equality deletes of " + table.name(), e);
    }
  }

  private static void merge(
      ExternalSorter.CloseableIterator deletes,
      ExternalSorter.CloseableIterator data,
      long[] sequences,
      List<DataFile> files,
      Map<String, BitSet> out) {
    ExternalSorter.Entry pending = deletes.hasNext() ? deletes.next() : null;
    byte[] deleteKey = null;
    long deleteSequence = -1;
    while (data.hasNext()) {
      ExternalSorter.Entry row = data.next();
      while (deleteKey == null || Arrays.compareUnsigned(deleteKey, row.key()) < 0) {
        if (pending == null) {
          deleteKey = null;
          break;
        }
        deleteKey = pending.key();
        deleteSequence = pending.a();
        pending = deletes.hasNext() ? deletes.next() : null;
        while (pending != null && Arrays.equals(pending.key(), deleteKey)) {
          deleteSequence = Math.max(deleteSequence, pending.a());
          pending = deletes.hasNext() ? deletes.next() : null;
        }
      }
      if (deleteKey == null && pending == null) {
        break; // no delete key left: nothing further can match
      }
      int file = (int) row.a();
      if (Arrays.equals(deleteKey, row.key()) && deleteSequence > sequences[file]) {
        out.computeIfAbsent(files.get(file).location(), location -> new BitSet())
            .set(Math.toIntExact(row.b()));
      }
    }
  }
}

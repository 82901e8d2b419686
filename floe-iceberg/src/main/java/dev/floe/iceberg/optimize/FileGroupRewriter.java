package dev.floe.iceberg.optimize;

import dev.floe.core.optimize.CandidateFile;
import dev.floe.core.optimize.FileGroup;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.data.GenericAppenderFactory;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.OutputFileFactory;

/**
 * Runs one file group (docs/optimize.md, "Runner"): finds every deleted row of its files (position
 * deletes per file into a bitmap; equality deletes by an external sort-merge join on the key
 * columns), then rewrites the files to be rewritten without their deleted rows, rolling output at
 * the target size, and writes one position delete file for each large file being converted. Heap
 * use is bounded by the policy's spill memory plus one bitmap per file of the group. Writes files
 * but commits nothing; on failure, deletes what it wrote.
 *
 * <p>Output files are named {@code <group>-<n>-<operation id>-<count>-<attempt>.parquet}: the
 * group's number within its run, a counter of this process, the run's operation id, and a random
 * attempt id, because two processes may rewrite the same group of the same run (a lease handed to
 * another worker) and must never write to the same path.
 */
final class FileGroupRewriter {

  private static final AtomicLong TASK_IDS = new AtomicLong();

  private final Table table;
  private final RewriteSettings settings;
  private final Path spillDirectory;
  private final String operationId;
  private final int groupNumber;

  FileGroupRewriter(
      Table table,
      RewriteSettings settings,
      Path spillDirectory,
      String operationId,
      int groupNumber) {
    this.table = table;
    this.settings = settings;
    this.spillDirectory = spillDirectory;
    this.operationId = operationId;
    this.groupNumber = groupNumber;
  }

  GroupResult rewrite(FileGroup group, PartitionFiles partition, Map<String, DataFile> byPath) {
    List<DataFile> rewrite = new ArrayList<>();
    List<DataFile> convert = new ArrayList<>();
    for (CandidateFile file : group.rewrite()) {
      rewrite.add(byPath.get(file.path()));
    }
    for (CandidateFile file : group.convert()) {
      convert.add(byPath.get(file.path()));
    }
    List<DataFile> all = new ArrayList<>(rewrite);
    all.addAll(convert);
    EqualityDeleteResolver resolver =
        new EqualityDeleteResolver(table, spillDirectory, settings.spillMemoryBytes());
    Map<String, BitSet> equalityDeleted = resolver.resolve(all, partition);
    BaseDeleteLoader loader =
        new BaseDeleteLoader(delete -> table.io().newInputFile(delete.location()));

    DataFile first = all.get(0);
    PartitionSpec spec = table.specs().get(first.specId());
    GenericAppenderFactory appenders =
        new GenericAppenderFactory(
            table, table.schema(), spec, table.properties(), null, null, null);
    OutputFileFactory outputs =
        OutputFileFactory.builderFor(table, groupNumber, TASK_IDS.incrementAndGet())
            .format(FileFormat.PARQUET)
            .operationId(operationId)
            .suffix(UUID.randomUUID().toString().replace("-", "").substring(0, 16))
            .build();
    RollingWriter writer =
        new RollingWriter(
            table, appenders, outputs, spec, first.partition(), settings.targetFileSizeBytes());
    List<DeleteFile> addedDeletes = new ArrayList<>();
    List<DataFile> converted = new ArrayList<>();
    // Every delete file that applies to the group is read once.
    java.util.Map<String, Long> deleteBytes = new java.util.HashMap<>();
    for (DataFile file : all) {
      for (DeleteFile delete : partition.equalityDeletesFor(file)) {
        deleteBytes.put(delete.location(), delete.fileSizeInBytes());
      }
      for (DeleteFile delete : partition.positionDeletesFor(file)) {
        deleteBytes.put(delete.location(), delete.fileSizeInBytes());
      }
    }
    long bytesRead = deleteBytes.values().stream().mapToLong(Long::longValue).sum();
    long rowsWritten = 0;
    long rowsDeleted = 0;
    try {
      for (DataFile file : convert) {
        BitSet deleted = deletedPositions(file, partition, loader, equalityDeleted);
        bytesRead += OptimizeScanner.keyColumnBytes(file, table.schema().identifierFieldIds());
        if (deleted.cardinality() >= settings.deletesRewriteFileRatio() * file.recordCount()
            && deleted.cardinality() > 0) {
          rewrite.add(file); // too many rows deleted: rewrite it instead of converting
          continue;
        }
        converted.add(file);
        if (!deleted.isEmpty()) {
          addedDeletes.add(writePositionDeletes(file, deleted, appenders, outputs, spec));
        }
      }
      SortOrder sortOrder = outputOrder(table, settings);
      // null (no sorter) for an unsorted table; try-with-resources skips closing it
      try (RowSorter sorter =
          sortOrder.isSorted()
              ? new RowSorter(
                  table.schema(), sortOrder, spillDirectory, settings.spillMemoryBytes())
              : null) {
        for (DataFile file : rewrite) {
          BitSet deleted = deletedPositions(file, partition, loader, equalityDeleted);
          bytesRead += file.fileSizeInBytes();
          long rowBytes = estimatedRowBytes(file);
          int position = 0;
          try (CloseableIterable<Record> rows = ParquetFiles.read(table, file, table.schema())) {
            for (Record row : rows) {
              if (deleted.get(position++)) {
                rowsDeleted++;
              } else if (sorter != null) {
                sorter.add(row, rowBytes);
              } else {
                writer.write(row);
                rowsWritten++;
              }
            }
          }
        }
        if (sorter != null) {
          for (java.util.Iterator<Record> rows = sorter.sorted(); rows.hasNext(); ) {
            writer.write(rows.next());
            rowsWritten++;
          }
        }
      }
      List<DataFile> added = writer.finish();
      return new GroupResult(
          rewrite,
          added,
          converted,
          addedDeletes,
          bytesRead,
          rowsWritten,
          rowsDeleted,
          resolver.deleteKeys(),
          resolver.spilledRuns());
    } catch (IOException | RuntimeException e) {
      // Cleaning up must not hide why the rewrite failed: its own failure rides along.
      try {
        writer.abort();
        for (DeleteFile delete : addedDeletes) {
          table.io().deleteFile(delete.location());
        }
      } catch (RuntimeException cleanup) {
        e.addSuppressed(cleanup);
      }
      if (e instanceof IOException io) {
        throw new UncheckedIOException("cannot rewrite a file group of " + table.name(), io);
      }
      throw (RuntimeException) e;
    }
  }

  /**
   * The order rows are written in: the table's sort order; else, with {@code cluster-by-key}, the
   * table's identifier fields ascending, so each output file holds a narrow key range and a later
   * equality delete applies only to the files whose range holds its keys (Iceberg's scans and
   * {@link PartitionFiles} compare the files' key bounds); else file order.
   */
  static SortOrder outputOrder(Table table, RewriteSettings settings) {
    SortOrder order = table.sortOrder();
    if (order.isSorted()
        || !settings.clusterByKey()
        || table.schema().identifierFieldIds().isEmpty()) {
      return order;
    }
    SortOrder.Builder byKey = SortOrder.builderFor(table.schema());
    table.schema().identifierFieldIds().stream()
        .sorted()
        .forEach(id -> byKey.asc(table.schema().findColumnName(id)));
    return byKey.build();
  }

  /**
   * A row's heap size as a generic record, estimated from its encoded size: decoded rows are
   * several times larger than Parquet's compressed bytes.
   */
  private static long estimatedRowBytes(DataFile file) {
    long encoded = file.recordCount() == 0 ? 0 : file.fileSizeInBytes() / file.recordCount();
    return 8 * encoded + 128;
  }

  /** Position deletes and equality-deleted rows of one file, as one bitmap. */
  private BitSet deletedPositions(
      DataFile file,
      PartitionFiles partition,
      BaseDeleteLoader loader,
      Map<String, BitSet> equalityDeleted) {
    BitSet deleted = new BitSet();
    BitSet fromEquality = equalityDeleted.get(file.location());
    if (fromEquality != null) {
      deleted.or(fromEquality);
    }
    List<DeleteFile> positionDeletes = partition.positionDeletesFor(file);
    if (!positionDeletes.isEmpty()) {
      PositionDeleteIndex index = loader.loadPositionDeletes(positionDeletes, file.location());
      index.forEach(position -> deleted.set(Math.toIntExact(position)));
    }
    return deleted;
  }

  private DeleteFile writePositionDeletes(
      DataFile file,
      BitSet deleted,
      GenericAppenderFactory appenders,
      OutputFileFactory outputs,
      PartitionSpec spec)
      throws IOException {
    PositionDeleteWriter<Record> writer =
        appenders.newPosDeleteWriter(
            RollingWriter.newOutputFile(outputs, spec, file.partition()),
            FileFormat.PARQUET,
            file.partition());
    try (writer) {
      PositionDelete<Record> delete = PositionDelete.create();
      for (int position = deleted.nextSetBit(0);
          position >= 0;
          position = deleted.nextSetBit(position + 1)) {
        writer.write(delete.set(file.location(), position, null));
      }
    }
    return writer.toDeleteFile();
  }
}

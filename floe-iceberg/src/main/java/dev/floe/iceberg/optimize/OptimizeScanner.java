package dev.floe.iceberg.optimize;

import static java.util.Objects.requireNonNull;

import dev.floe.core.optimize.OptimizePolicy;
import dev.floe.core.optimize.PartitionKey;
import dev.floe.core.optimize.PartitionState;
import dev.floe.core.optimize.PlannedSnapshot;
import dev.floe.core.optimize.TableState;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;

/**
 * Reads a table's current snapshot into a {@link TableState}: one pass over its data and delete
 * manifests, streaming, keeping one set of counters per partition and no per-file object. Safe to
 * use from several threads on different tables.
 */
public final class OptimizeScanner {

  /** How far back the snapshot history is searched for the last optimize commit. */
  private static final int HISTORY_LIMIT = 10_000;

  /**
   * Scans {@code table}'s current snapshot.
   *
   * @throws dev.floe.core.error.FloeException BAD_INPUT when a live file is not Parquet
   */
  public TableState scan(String name, Table table, OptimizePolicy policy) {
    requireNonNull(table, "table is null");
    requireNonNull(policy, "policy is null");
    Snapshot snapshot = table.currentSnapshot();
    long smallThreshold = policy.smallFileThreshold();
    if (snapshot == null) {
      return new TableState(
          name,
          Optional.empty(),
          policy.targetFileSizeBytes(),
          smallThreshold,
          List.of(),
          Optional.empty(),
          Optional.empty());
    }
    Map<Integer, PartitionSpec> specs = table.specs();
    Set<Integer> keyFieldIds = table.schema().identifierFieldIds();
    Map<PartitionKey, PartitionState.Builder> partitions = new HashMap<>();
    try {
      for (ManifestFile manifest : snapshot.dataManifests(table.io())) {
        try (ManifestReader<DataFile> reader = ManifestFiles.read(manifest, table.io(), specs)) {
          for (DataFile file : reader) {
            OptimizeTableCheck.checkFormat(name, file.format());
            PartitionKey key = partitionKey(specs, file.specId(), file);
            partitions
                .computeIfAbsent(key, k -> PartitionState.builder(k, smallThreshold))
                .addDataFile(
                    file.fileSizeInBytes(),
                    file.recordCount(),
                    sequenceNumber(file),
                    keyColumnBytes(file, keyFieldIds));
          }
        }
      }
      for (ManifestFile manifest : snapshot.deleteManifests(table.io())) {
        try (ManifestReader<DeleteFile> reader =
            ManifestFiles.readDeleteManifest(manifest, table.io(), specs)) {
          for (DeleteFile file : reader) {
            OptimizeTableCheck.checkFormat(name, file.format());
            PartitionKey key = partitionKey(specs, file.specId(), file);
            PartitionState.Builder builder =
                partitions.computeIfAbsent(key, k -> PartitionState.builder(k, smallThreshold));
            if (file.content() == FileContent.POSITION_DELETES) {
              builder.addPositionDeleteFile(file.fileSizeInBytes(), file.recordCount());
            } else {
              builder.addEqualityDeleteFile(file.fileSizeInBytes(), file.recordCount());
            }
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the manifests of " + name, e);
    }
    List<PartitionState> states = new ArrayList<>();
    partitions.values().forEach(builder -> states.add(builder.build()));
    return new TableState(
        name,
        Optional.of(new PlannedSnapshot(snapshot.snapshotId(), snapshot.sequenceNumber())),
        policy.targetFileSizeBytes(),
        smallThreshold,
        states,
        lastOptimize(table, snapshot, false),
        lastOptimize(table, snapshot, true));
  }

  static PartitionKey partitionKey(
      Map<Integer, PartitionSpec> specs, int specId, org.apache.iceberg.ContentFile<?> file) {
    PartitionSpec spec = specs.get(specId);
    return spec.isUnpartitioned()
        ? PartitionKey.unpartitioned(specId)
        : new PartitionKey(specId, spec.partitionToPath(file.partition()));
  }

  static long sequenceNumber(org.apache.iceberg.ContentFile<?> file) {
    Long sequence = file.dataSequenceNumber();
    return sequence == null ? 0 : sequence;
  }

  static long keyColumnBytes(DataFile file, Set<Integer> keyFieldIds) {
    Map<Integer, Long> sizes = file.columnSizes();
    if (sizes == null || keyFieldIds.isEmpty()) {
      return file.fileSizeInBytes();
    }
    long bytes = 0;
    for (int id : keyFieldIds) {
      Long size = sizes.get(id);
      if (size == null) {
        return file.fileSizeInBytes();
      }
      bytes += size;
    }
    return bytes;
  }

  private static Optional<Instant> lastOptimize(Table table, Snapshot current, boolean fullOnly) {
    Snapshot snapshot = current;
    for (int i = 0; snapshot != null && i < HISTORY_LIMIT; i++) {
      String kind = snapshot.summary().get(OptimizeSummary.KIND);
      if (kind != null
          && (!fullOnly || kind.equals(dev.floe.core.optimize.TaskKind.FULL.displayName()))) {
        return Optional.of(Instant.ofEpochMilli(snapshot.timestampMillis()));
      }
      snapshot = snapshot.parentId() == null ? null : table.snapshot(snapshot.parentId());
    }
    return Optional.empty();
  }
}

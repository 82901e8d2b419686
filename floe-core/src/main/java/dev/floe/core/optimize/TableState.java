package dev.floe.core.optimize;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * A table's health at one snapshot: per-partition counters, and when Floe last optimized it.
 *
 * @param table the table's name, for messages
 * @param snapshot the snapshot read; empty for a table without snapshots
 * @param targetFileSize the target file size the size classes were counted against
 * @param smallFileThreshold data files below this many bytes were counted as small
 * @param partitions one entry per partition that has live files, sorted by partition
 * @param lastOptimize when the last optimize snapshot was committed, if any
 * @param lastFullRewrite when the last full-rewrite optimize snapshot was committed, if any
 */
public record TableState(
    String table,
    Optional<PlannedSnapshot> snapshot,
    long targetFileSize,
    long smallFileThreshold,
    List<PartitionState> partitions,
    Optional<Instant> lastOptimize,
    Optional<Instant> lastFullRewrite) {

  public TableState {
    requireNonNull(table, "table is null");
    requireNonNull(snapshot, "snapshot is null");
    requireNonNull(partitions, "partitions is null");
    requireNonNull(lastOptimize, "lastOptimize is null");
    requireNonNull(lastFullRewrite, "lastFullRewrite is null");
    if (targetFileSize <= 0) {
      throw new IllegalArgumentException("targetFileSize must be positive: " + targetFileSize);
    }
    partitions =
        partitions.stream().sorted(Comparator.comparing(PartitionState::partition)).toList();
  }

  /** The table's counters: the sum over its partitions. */
  public PartitionState totals() {
    PartitionState total = PartitionState.builder(new PartitionKey(-1, "(table)"), 0).build();
    for (PartitionState partition : partitions) {
      total = total.plus(partition);
    }
    return total;
  }

  /**
   * The table's health score, from {@link #totals()}, except that files never merge across
   * partitions: the ideal file count is the sum of each partition's, so a table compacted to one
   * file per small partition scores as well as its partitions do. 100 for an empty table.
   */
  public int healthScore() {
    PartitionState totals = totals();
    if (totals.dataFiles() == 0) {
      return totals.healthScore(targetFileSize);
    }
    long ideal = 0;
    for (PartitionState partition : partitions) {
      ideal += partition.idealFiles(targetFileSize);
    }
    double fileExcess = Math.max(0.0, 1.0 - (double) ideal / totals.dataFiles());
    return PartitionState.score(fileExcess, totals.deleteRatio(), totals.deleteFileLoad());
  }
}

package dev.floe.core.optimize;

import static java.util.Objects.requireNonNull;

/**
 * The work planned for one partition.
 *
 * @param kind what is done
 * @param reason why the partition qualified, for people (e.g. {@code 40 small files >= 12})
 * @param healthScore the partition's health score when planned
 * @param filesIn data files the task reads (estimate from the partition's counters)
 * @param bytesIn bytes the task reads: rewritten files whole, converted files' key columns
 * @param expectedFilesOut data files expected after the task: {@code ceil(rewritten bytes /
 *     target)}, plus the large files kept
 * @param inputByteLimit the most bytes the executor may read for this task: {@code Long.MAX_VALUE}
 *     when whole, less when the budget cut the task (the rest is left for the next run)
 * @param convertsLargeFiles in a delete rewrite: whether the large files with deletes keep their
 *     data and get their equality deletes converted to a position delete file (true), or are
 *     rewritten with their deletes applied (false); false for the other kinds
 */
public record PartitionTask(
    PartitionKey partition,
    TaskKind kind,
    String reason,
    int healthScore,
    long filesIn,
    long bytesIn,
    long expectedFilesOut,
    long inputByteLimit,
    boolean convertsLargeFiles) {

  public PartitionTask {
    requireNonNull(partition, "partition is null");
    requireNonNull(kind, "kind is null");
    requireNonNull(reason, "reason is null");
  }

  /** Whether the budget cut this task short. */
  public boolean isPartial() {
    return inputByteLimit != Long.MAX_VALUE;
  }
}

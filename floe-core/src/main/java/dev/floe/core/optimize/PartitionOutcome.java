package dev.floe.core.optimize;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * What an optimize run did to one partition.
 *
 * @param groups file groups planned
 * @param committed groups committed
 * @param failed groups that failed (conflict or error; their output deleted)
 * @param unknown groups whose commit state is unknown (their output kept)
 * @param filesRewritten data files replaced
 * @param filesAdded data files written
 * @param filesConverted large data files whose equality deletes became position deletes
 * @param deleteFilesAdded position delete files written by conversions
 * @param deleteFilesRemoved delete files removed because they no longer apply to any file
 * @param problems one line per failed or unknown group
 */
public record PartitionOutcome(
    PartitionKey partition,
    TaskKind kind,
    int groups,
    int committed,
    int failed,
    int unknown,
    long filesRewritten,
    long filesAdded,
    long filesConverted,
    long deleteFilesAdded,
    long deleteFilesRemoved,
    long bytesRead,
    long bytesWritten,
    long rowsDeleted,
    List<String> problems) {

  public PartitionOutcome {
    requireNonNull(partition, "partition is null");
    requireNonNull(kind, "kind is null");
    problems = List.copyOf(requireNonNull(problems, "problems is null"));
  }

  /** This outcome with {@code removed} dangling delete files removed. */
  public PartitionOutcome withDeleteFilesRemoved(long removed) {
    return new PartitionOutcome(
        partition,
        kind,
        groups,
        committed,
        failed,
        unknown,
        filesRewritten,
        filesAdded,
        filesConverted,
        deleteFilesAdded,
        removed,
        bytesRead,
        bytesWritten,
        rowsDeleted,
        problems);
  }

  /** Whether every group of the partition landed. */
  public boolean succeeded() {
    return failed == 0 && unknown == 0;
  }
}

package dev.floe.sync;

import static java.util.Objects.requireNonNull;

import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * The committer's Flink state: the sync's id (kept across restarts, it marks the sync's commits),
 * how far the source was read by the checkpoints committed so far (Kafka offsets; {@link
 * SourceProgress#NONE} for a binlog, whose position every checkpoint carries whole), and the
 * checkpoints whose files are not committed yet, by checkpoint id.
 */
record CommitterState(
    String syncId, SourceProgress committed, NavigableMap<Long, PendingCheckpoint> checkpoints) {

  CommitterState {
    requireNonNull(syncId, "syncId is null");
    requireNonNull(committed, "committed is null");
    checkpoints = new TreeMap<>(requireNonNull(checkpoints, "checkpoints is null"));
  }

  /** State with no committed progress (binlog syncs, and state before version 2). */
  CommitterState(String syncId, NavigableMap<Long, PendingCheckpoint> checkpoints) {
    this(syncId, SourceProgress.NONE, checkpoints);
  }
}

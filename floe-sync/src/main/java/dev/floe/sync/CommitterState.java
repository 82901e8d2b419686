package dev.floe.sync;

import static java.util.Objects.requireNonNull;

import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * The committer's Flink state: the sync's id (kept across restarts, it marks the sync's commits)
 * and the checkpoints whose files are not committed yet, by checkpoint id.
 */
record CommitterState(String syncId, NavigableMap<Long, PendingCheckpoint> checkpoints) {

  CommitterState {
    requireNonNull(syncId, "syncId is null");
    checkpoints = new TreeMap<>(requireNonNull(checkpoints, "checkpoints is null"));
  }
}

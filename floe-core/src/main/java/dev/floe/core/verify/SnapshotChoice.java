package dev.floe.core.verify;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Which lake snapshot verify reads: the first one whose recorded sync position is at or past the
 * cutoff, else the current one (and why).
 *
 * @param snapshotId the snapshot to read; empty for a table without snapshots (no rows)
 * @param reason one sentence for the report
 * @param caughtUp false when the lake is not known to have reached the cutoff
 */
public record SnapshotChoice(Optional<Long> snapshotId, String reason, boolean caughtUp) {

  /**
   * The snapshot summary key sync writes: every source change committed at or before this time
   * (epoch milliseconds, UTC) is in the snapshot.
   */
  public static final String SOURCE_WATERMARK_MS =
      dev.floe.core.sync.SyncSummary.SOURCE_WATERMARK_MS;

  /** A snapshot as far as choosing goes. */
  public record Candidate(long snapshotId, Map<String, String> summary) {
    public Candidate {
      summary = Map.copyOf(requireNonNull(summary, "summary is null"));
    }
  }

  public SnapshotChoice {
    requireNonNull(snapshotId, "snapshotId is null");
    requireNonNull(reason, "reason is null");
  }

  /**
   * Chooses a snapshot.
   *
   * @param history the current snapshot and its ancestors, oldest first
   * @param cutoffEpochMillis the cutoff as an instant
   */
  public static SnapshotChoice choose(List<Candidate> history, long cutoffEpochMillis) {
    if (history.isEmpty()) {
      return new SnapshotChoice(Optional.empty(), "the table has no snapshot (no rows)", false);
    }
    long current = history.get(history.size() - 1).snapshotId();
    Optional<Long> latestWatermark = Optional.empty();
    for (Candidate candidate : history) {
      String value = candidate.summary().get(SOURCE_WATERMARK_MS);
      if (value == null) {
        continue;
      }
      long watermark;
      try {
        watermark = Long.parseLong(value.trim());
      } catch (NumberFormatException e) {
        continue;
      }
      latestWatermark = Optional.of(watermark);
      if (watermark >= cutoffEpochMillis) {
        return new SnapshotChoice(
            Optional.of(candidate.snapshotId()),
            "first snapshot whose "
                + SOURCE_WATERMARK_MS
                + " ("
                + watermark
                + ") is at or past the cutoff",
            true);
      }
    }
    if (latestWatermark.isEmpty()) {
      return new SnapshotChoice(
          Optional.of(current),
          "current snapshot: no snapshot records " + SOURCE_WATERMARK_MS,
          false);
    }
    return new SnapshotChoice(
        Optional.of(current),
        "current snapshot: the lake has not reached the cutoff yet (latest "
            + SOURCE_WATERMARK_MS
            + " "
            + latestWatermark.get()
            + ")",
        false);
  }
}

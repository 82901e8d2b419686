package dev.floe.iceberg.optimize;

/** Keys Floe writes into the summary of its optimize snapshots. */
final class OptimizeSummary {
  /** The task kind (minor, deletes, full) or {@code dangling-deletes}. */
  static final String KIND = dev.floe.core.state.SnapshotWriter.OPTIMIZE_KIND;

  static final String DANGLING_DELETES = "dangling-deletes";

  private OptimizeSummary() {}
}

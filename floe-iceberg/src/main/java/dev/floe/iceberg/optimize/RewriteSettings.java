package dev.floe.iceberg.optimize;

import dev.floe.core.optimize.OptimizePolicy;

/**
 * The policy values a file-group rewrite reads, and nothing else: a portable task carries them, so
 * a worker never derives policy from the table's properties itself (docs/optimize.md, "Portable
 * tasks").
 *
 * @param targetFileSizeBytes output rolls to a new data file once the current one reaches this
 * @param spillMemoryBytes heap the sort buffers may use before spilling to local disk
 * @param deletesRewriteFileRatio a file to be converted with at least this fraction of its rows
 *     deleted is rewritten instead
 * @param clusterByKey whether the rows of a table with identifier fields and no sort order are
 *     written in key order ({@code floe.optimize.cluster-by-key})
 */
public record RewriteSettings(
    long targetFileSizeBytes,
    long spillMemoryBytes,
    double deletesRewriteFileRatio,
    boolean clusterByKey) {

  /**
   * @throws IllegalArgumentException naming the value when a size is not positive or the ratio is
   *     outside [0, 1]
   */
  public RewriteSettings {
    if (targetFileSizeBytes < 1) {
      throw new IllegalArgumentException(
          "target file size must be positive, was " + targetFileSizeBytes);
    }
    if (spillMemoryBytes < 1) {
      throw new IllegalArgumentException("spill memory must be positive, was " + spillMemoryBytes);
    }
    if (!(deletesRewriteFileRatio >= 0 && deletesRewriteFileRatio <= 1)) {
      throw new IllegalArgumentException(
          "deletes rewrite-file ratio must be in [0, 1], was " + deletesRewriteFileRatio);
    }
  }

  /** The values of {@code policy} that the rewrite uses. */
  public static RewriteSettings of(OptimizePolicy policy) {
    return new RewriteSettings(
        policy.targetFileSizeBytes(),
        policy.spillMemoryBytes(),
        policy.deletesRewriteFileRatio(),
        policy.clusterByKey());
  }
}

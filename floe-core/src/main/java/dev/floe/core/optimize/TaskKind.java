package dev.floe.core.optimize;

/** What an optimize task does to one partition. */
public enum TaskKind {
  /** Bin-pack the small data files, applying their deletes. */
  MINOR,
  /**
   * Apply the partition's deletes: rewrite its small files, convert the equality deletes of its
   * large files to position deletes (or rewrite those with many rows deleted), drop delete files
   * that no longer apply.
   */
  DELETES,
  /** Rewrite every data file of the partition (the optional periodic full rewrite). */
  FULL;

  public String displayName() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}

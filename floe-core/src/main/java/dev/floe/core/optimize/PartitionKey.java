package dev.floe.core.optimize;

import static java.util.Objects.requireNonNull;

/**
 * One partition of a table: the partition spec id and the partition path as Iceberg prints it
 * ({@code day=2026-11-28/bucket=3}; empty for an unpartitioned spec).
 */
public record PartitionKey(int specId, String path) implements Comparable<PartitionKey> {

  public PartitionKey {
    requireNonNull(path, "path is null");
  }

  public static PartitionKey unpartitioned(int specId) {
    return new PartitionKey(specId, "");
  }

  /** How the partition is shown to users: its path, or {@code (unpartitioned)}. */
  public String displayName() {
    return path.isEmpty() ? "(unpartitioned)" : path;
  }

  @Override
  public int compareTo(PartitionKey other) {
    int bySpec = Integer.compare(specId, other.specId);
    return bySpec != 0 ? bySpec : path.compareTo(other.path);
  }

  @Override
  public String toString() {
    return displayName();
  }
}

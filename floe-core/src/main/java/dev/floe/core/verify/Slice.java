package dev.floe.core.verify;

import static java.util.Objects.requireNonNull;

/**
 * A key range and how many MySQL keys it held when it was walked (all rows, before the time
 * filter).
 */
public record Slice(KeyRange range, long keys) {
  public Slice {
    requireNonNull(range, "range is null");
    if (keys < 0) {
      throw new IllegalArgumentException("keys must be >= 0, got " + keys);
    }
  }
}

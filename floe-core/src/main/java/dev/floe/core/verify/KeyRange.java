package dev.floe.core.verify;

import static java.util.Objects.requireNonNull;

import java.util.Optional;

/**
 * A range of primary keys: from {@code lower} (inclusive) to {@code upper} (exclusive); an absent
 * bound is open. Slices cover the whole key space, so lake keys outside MySQL's range are compared.
 */
public record KeyRange(Optional<RowKey> lower, Optional<RowKey> upper) {
  public KeyRange {
    requireNonNull(lower, "lower is null");
    requireNonNull(upper, "upper is null");
  }

  public static KeyRange all() {
    return new KeyRange(Optional.empty(), Optional.empty());
  }

  @Override
  public String toString() {
    return "["
        + lower.map(RowKey::toString).orElse("-inf")
        + ", "
        + upper.map(RowKey::toString).orElse("+inf")
        + ")";
  }
}

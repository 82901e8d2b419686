package dev.floe.core.verify;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * A primary key value: the normalized text of each key column, in key order (see {@link
 * ColumnKind#text}). Equal keys have equal texts on both sides.
 */
public record RowKey(List<String> values) {
  public RowKey {
    values = List.copyOf(requireNonNull(values, "values is null"));
  }

  public static RowKey of(String... values) {
    return new RowKey(List.of(values));
  }

  @Override
  public String toString() {
    return values.size() == 1 ? values.get(0) : "(" + String.join(", ", values) + ")";
  }
}

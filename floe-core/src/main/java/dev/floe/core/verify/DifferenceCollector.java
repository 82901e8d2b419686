package dev.floe.core.verify;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Collects differences from all slices: exact counts of distinct keys per kind, and the first
 * {@code keyLimit} keys of each (so memory is bounded). A key counts once: a key already counted as
 * missing in the lake is not counted again under another kind. Thread-safe.
 */
public final class DifferenceCollector {

  private final int keyLimit;
  private final Map<DifferenceKind, Long> counts = new EnumMap<>(DifferenceKind.class);
  private final Map<DifferenceKind, Map<RowKey, List<String>>> keys =
      new EnumMap<>(DifferenceKind.class);
  private long changedAfterCutoff;

  public DifferenceCollector(int keyLimit) {
    if (keyLimit < 0) {
      throw new IllegalArgumentException("keyLimit must be >= 0, got " + keyLimit);
    }
    this.keyLimit = keyLimit;
    for (DifferenceKind kind : DifferenceKind.values()) {
      counts.put(kind, 0L);
      keys.put(kind, new LinkedHashMap<>());
    }
  }

  public int keyLimit() {
    return keyLimit;
  }

  /** Adds one slice's differences (slices are disjoint key ranges, so keys are distinct). */
  public synchronized void add(RowDifferences differences) {
    differences
        .missingInLake()
        .forEach(key -> record(DifferenceKind.MISSING_IN_LAKE, key, List.of()));
    differences.extraInLake().forEach(key -> record(DifferenceKind.EXTRA_IN_LAKE, key, List.of()));
    differences
        .different()
        .forEach(row -> record(DifferenceKind.DIFFERENT, row.key(), row.columns()));
  }

  /** Counts lake keys that MySQL still has, changed after the cutoff (not differences). */
  public synchronized void addChangedAfterCutoff(long rows) {
    changedAfterCutoff += rows;
  }

  private void record(DifferenceKind kind, RowKey key, List<String> columns) {
    if (kind != DifferenceKind.MISSING_IN_LAKE
        && keys.get(DifferenceKind.MISSING_IN_LAKE).containsKey(key)) {
      return;
    }
    counts.merge(kind, 1L, Long::sum);
    Map<RowKey, List<String>> kept = keys.get(kind);
    if (kept.size() < keyLimit) {
      kept.put(key, List.copyOf(columns));
    }
  }

  public synchronized long count(DifferenceKind kind) {
    return counts.get(kind);
  }

  /** The kept keys of a kind, with the differing columns (empty unless DIFFERENT). */
  public synchronized Map<RowKey, List<String>> keys(DifferenceKind kind) {
    return new LinkedHashMap<>(keys.get(kind));
  }

  public synchronized long changedAfterCutoff() {
    return changedAfterCutoff;
  }

  public synchronized List<DifferenceKind> kindsFound() {
    List<DifferenceKind> found = new ArrayList<>();
    counts.forEach(
        (kind, count) -> {
          if (count > 0) {
            found.add(kind);
          }
        });
    return found;
  }
}

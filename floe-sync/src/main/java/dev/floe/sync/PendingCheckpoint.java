package dev.floe.sync;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What one checkpoint brought the committer, until it is committed: per table and schema version
 * the closed files, the UUID of the Iceberg table they were written for, the schema versions that
 * begin with a TRUNCATE TABLE, and the source progress (binlog position or Kafka offsets). Mutable,
 * confined to the committer's task thread; kept in state by {@link CommitterStateSerializer}.
 */
final class PendingCheckpoint {

  /** Per table, per schema version, the files in the order the writers handed them on. */
  final Map<String, TreeMap<Integer, List<PendingFiles>>> results = new HashMap<>();

  /** The UUID of the Iceberg table each table's files were written for. */
  final Map<String, String> tableUuids = new HashMap<>();

  /** Per table, the schema versions that begin with a TRUNCATE TABLE. */
  final Map<String, TreeSet<Integer>> truncations = new HashMap<>();

  SourceProgress position = SourceProgress.NONE;
  long sourceMillis;

  void addFiles(String table, int schemaVersion, PendingFiles files) {
    results
        .computeIfAbsent(table, name -> new TreeMap<>())
        .computeIfAbsent(schemaVersion, version -> new ArrayList<>())
        .add(files);
  }

  void addTruncation(String table, int schemaVersion) {
    truncations.computeIfAbsent(table, name -> new TreeSet<>()).add(schemaVersion);
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof PendingCheckpoint that
        && results.equals(that.results)
        && tableUuids.equals(that.tableUuids)
        && truncations.equals(that.truncations)
        && position.equals(that.position)
        && sourceMillis == that.sourceMillis;
  }

  @Override
  public int hashCode() {
    return Objects.hash(results, tableUuids, truncations, position, sourceMillis);
  }

  @Override
  public String toString() {
    return "PendingCheckpoint{results="
        + results
        + ", tableUuids="
        + tableUuids
        + ", truncations="
        + truncations
        + ", position="
        + position
        + ", sourceMillis="
        + sourceMillis
        + "}";
  }
}

package dev.floe.core.maintenance;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;

/** Builds snapshot facts for planner tests: id n is committed n hours after T0. */
final class Snapshots {

  static final Instant T0 = Instant.parse("2026-11-01T00:00:00Z");

  private Snapshots() {}

  static SnapshotFacts snapshot(long id, Long parent) {
    return snapshot(id, parent, Map.of());
  }

  static SnapshotFacts snapshot(long id, Long parent, Map<String, String> summary) {
    Map<String, String> withRecords = new HashMap<>(summary);
    withRecords.putIfAbsent("added-records", Long.toString(id * 10));
    withRecords.putIfAbsent("total-records", Long.toString(id * 100));
    return new SnapshotFacts(
        id,
        parent == null ? OptionalLong.empty() : OptionalLong.of(parent),
        id,
        T0.plus(Duration.ofHours(id)),
        withRecords);
  }

  static Map<String, String> flink(String job, long checkpoint) {
    return Map.of(
        SnapshotFacts.FLINK_JOB_ID,
        job,
        SnapshotFacts.FLINK_CHECKPOINT_ID,
        Long.toString(checkpoint));
  }
}

package dev.floe.core.optimize;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** Builds table states for planner tests. */
final class States {

  static final long MIB = 1024L * 1024;
  static final long TARGET = 128 * MIB;

  private States() {}

  static OptimizePolicy policy() {
    return OptimizePolicy.defaults(TARGET);
  }

  static PartitionState.Builder partition(String path) {
    return PartitionState.builder(new PartitionKey(0, path), policy().smallFileThreshold());
  }

  /** A partition with {@code count} small files of {@code mib} MiB, 1000 rows each. */
  static PartitionState.Builder smallFiles(String path, int count, long mib) {
    PartitionState.Builder builder = partition(path);
    for (int i = 0; i < count; i++) {
      builder.addDataFile(mib * MIB, 1000, 10 + i, mib * MIB / 10);
    }
    return builder;
  }

  static TableState table(PartitionState... partitions) {
    return table(Optional.empty(), partitions);
  }

  static TableState table(Optional<Instant> lastOptimize, PartitionState... partitions) {
    return new TableState(
        "db.t",
        Optional.of(new PlannedSnapshot(42, 7)),
        TARGET,
        policy().smallFileThreshold(),
        List.of(partitions),
        lastOptimize,
        Optional.empty());
  }
}

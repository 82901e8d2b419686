package dev.floe.core.optimize;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Decides what one optimize run does to a table: which partitions, which kind of work, why, in
 * which order and within which byte budget (docs/optimize.md, "Planner"). Pure: no I/O, no clock.
 * Thread-safe (stateless).
 */
public final class OptimizePlanner {

  /** Plans without any failure history. */
  public OptimizePlan plan(TableState state, OptimizePolicy policy, Instant now) {
    return plan(state, policy, OptimizeFailures.none(), now);
  }

  /**
   * Plans one run on the table's state alone: {@link #plan(TableState, OptimizePolicy,
   * OptimizeFailures, Instant, boolean)} not asked.
   */
  public OptimizePlan plan(
      TableState state, OptimizePolicy policy, OptimizeFailures failures, Instant now) {
    return plan(state, policy, failures, now, false);
  }

  /**
   * Plans one run.
   *
   * @param failures partitions whose last attempt failed: skipped (deferred) until their backoff
   *     ends
   * @param now the time the plan is made, for intervals and backoff
   * @param asked whether somebody asked for this run (the keeper's optimize now): the time triggers
   *     count as due, so a partition with 2 small files or any delete file is rewritten without
   *     waiting for {@code minor.max-interval-ms}; the count thresholds, backoff and budget still
   *     hold
   */
  public OptimizePlan plan(
      TableState state,
      OptimizePolicy policy,
      OptimizeFailures failures,
      Instant now,
      boolean asked) {
    requireNonNull(state, "state is null");
    requireNonNull(policy, "policy is null");
    requireNonNull(failures, "failures is null");
    requireNonNull(now, "now is null");
    long target = policy.targetFileSizeBytes();
    if (!policy.enabled() || state.snapshot().isEmpty()) {
      return new OptimizePlan(
          state.table(), state.snapshot(), target, policy.budgetBytes(), List.of(), List.of());
    }
    boolean fullDue = isDue(policy.fullInterval(), state.lastFullRewrite(), now);
    boolean minorIntervalDue = asked || isDue(policy.minorMaxInterval(), state.lastOptimize(), now);
    String dueReason = asked ? "optimize asked for" : sinceLast(state.lastOptimize(), now, policy);

    List<PartitionTask> candidates = new ArrayList<>();
    List<DeferredPartition> deferred = new ArrayList<>();
    for (PartitionState partition : state.partitions()) {
      if (partition.dataFiles() == 0) {
        continue;
      }
      Optional<PartitionTask> task =
          candidate(partition, policy, fullDue, minorIntervalDue, dueReason);
      if (task.isEmpty()) {
        continue;
      }
      Optional<Instant> retryAt = failures.retryAt(partition.partition(), policy);
      if (retryAt.isPresent() && retryAt.get().isAfter(now)) {
        OptimizeFailures.Failure failure = failures.failures().get(partition.partition());
        deferred.add(
            new DeferredPartition(
                partition.partition(),
                task.get().kind().displayName()
                    + " backing off after "
                    + failure.count()
                    + (failure.count() == 1 ? " failure" : " failures in a row")
                    + ", next attempt at "
                    + retryAt.get()));
        continue;
      }
      candidates.add(task.get());
    }
    candidates.sort(
        Comparator.comparingInt(PartitionTask::healthScore)
            .thenComparing(Comparator.comparingLong(PartitionTask::bytesIn).reversed())
            .thenComparing(PartitionTask::partition));

    List<PartitionTask> tasks = new ArrayList<>();
    long remaining = policy.budgetBytes();
    for (PartitionTask candidate : candidates) {
      if (candidate.bytesIn() <= remaining) {
        tasks.add(candidate);
        remaining -= candidate.bytesIn();
      } else if (remaining > 0) {
        tasks.add(cut(candidate, remaining, target));
        deferred.add(
            new DeferredPartition(
                candidate.partition(),
                "the rest of "
                    + candidate.kind().displayName()
                    + " ("
                    + bytes(candidate.bytesIn() - remaining)
                    + ") is over the budget of "
                    + bytes(policy.budgetBytes())));
        remaining = 0;
      } else {
        deferred.add(
            new DeferredPartition(
                candidate.partition(),
                candidate.kind().displayName()
                    + " ("
                    + bytes(candidate.bytesIn())
                    + ") is over the budget of "
                    + bytes(policy.budgetBytes())));
      }
    }
    return new OptimizePlan(
        state.table(), state.snapshot(), target, policy.budgetBytes(), tasks, deferred);
  }

  private static Optional<PartitionTask> candidate(
      PartitionState partition,
      OptimizePolicy policy,
      boolean fullDue,
      boolean minorIntervalDue,
      String dueReason) {
    long target = policy.targetFileSizeBytes();
    int score = partition.healthScore(target);
    if (fullDue && (partition.dataFiles() >= 2 || partition.deleteFiles() > 0)) {
      return Optional.of(
          new PartitionTask(
              partition.partition(),
              TaskKind.FULL,
              "full rewrite due every " + duration(policy.fullInterval()),
              score,
              partition.dataFiles(),
              partition.dataBytes(),
              Math.max(1, PartitionState.ceilDiv(partition.dataBytes(), target)),
              Long.MAX_VALUE,
              false));
    }
    Optional<String> deleteReason = Optional.empty();
    if (partition.deleteFiles() >= policy.deletesMinDeleteFiles()) {
      deleteReason =
          Optional.of(
              partition.deleteFiles()
                  + " delete files >= "
                  + policy.deletesMinDeleteFiles()
                  + " ("
                  + OptimizePolicy.DELETES_MIN_DELETE_FILES
                  + ")");
    } else if (partition.deleteFiles() > 0 && partition.deleteRatio() >= policy.deletesMinRatio()) {
      deleteReason =
          Optional.of(
              "delete ratio "
                  + ratio(partition.deleteRatio())
                  + " >= "
                  + ratio(policy.deletesMinRatio())
                  + " ("
                  + OptimizePolicy.DELETES_MIN_RATIO
                  + ")");
    } else if (partition.deleteFiles() > 0 && minorIntervalDue) {
      deleteReason =
          Optional.of(
              partition.deleteFiles()
                  + (partition.deleteFiles() == 1 ? " delete file" : " delete files")
                  + " and "
                  + dueReason);
    }
    if (deleteReason.isPresent()) {
      return Optional.of(deleteTask(partition, policy, score, deleteReason.get()));
    }
    Optional<String> minorReason = Optional.empty();
    if (partition.smallFiles() >= policy.minorMinSmallFiles()) {
      minorReason =
          Optional.of(
              partition.smallFiles()
                  + " small files >= "
                  + policy.minorMinSmallFiles()
                  + " ("
                  + OptimizePolicy.MINOR_MIN_SMALL_FILES
                  + ")");
    } else if (partition.smallFiles() >= 2 && minorIntervalDue) {
      minorReason = Optional.of(partition.smallFiles() + " small files and " + dueReason);
    }
    return minorReason.map(
        reason ->
            new PartitionTask(
                partition.partition(),
                TaskKind.MINOR,
                reason,
                score,
                partition.smallFiles(),
                partition.smallBytes(),
                PartitionState.ceilDiv(partition.smallBytes(), target),
                Long.MAX_VALUE,
                false));
  }

  /**
   * A delete rewrite. Small files are rewritten. Large files with deletes are rewritten too in a
   * partition below {@code deletes.convert-min-partition-bytes}, so that no delete is left for
   * scans to apply (a reader pays for a position delete on every row of the file it names, however
   * few rows it deletes); in a larger partition, where rewriting them every run would cost too
   * much, their equality deletes are converted to position deletes, reading only key columns. Bytes
   * in and files out are estimates from the counters: which large files have deletes is only known
   * at execution, and the rewrite estimate counts all of them.
   */
  private static PartitionTask deleteTask(
      PartitionState partition, OptimizePolicy policy, int score, String reason) {
    long target = policy.targetFileSizeBytes();
    boolean convert = policy.convertsLargeFiles(partition.dataBytes());
    String largeFiles = "";
    if (partition.largeFiles() > 0) {
      largeFiles =
          (convert
                  ? "; large files: deletes converted to positions (partition "
                      + bytes(partition.dataBytes())
                      + " >= "
                  : "; large files with deletes rewritten (partition "
                      + bytes(partition.dataBytes())
                      + " < ")
              + bytes(policy.deletesConvertMinPartitionBytes())
              + ", "
              + OptimizePolicy.DELETES_CONVERT_MIN_PARTITION_BYTES
              + ")";
    }
    return new PartitionTask(
        partition.partition(),
        TaskKind.DELETES,
        reason + largeFiles,
        score,
        partition.dataFiles(),
        partition.smallBytes()
            + (convert ? partition.largeKeyColumnBytes() : partition.largeBytes()),
        convert
            ? PartitionState.ceilDiv(partition.smallBytes(), target) + partition.largeFiles()
            : Math.max(1, PartitionState.ceilDiv(partition.dataBytes(), target)),
        Long.MAX_VALUE,
        convert);
  }

  private static PartitionTask cut(PartitionTask task, long limit, long target) {
    long files = Math.max(1, (long) Math.ceil((double) task.filesIn() * limit / task.bytesIn()));
    return new PartitionTask(
        task.partition(),
        task.kind(),
        task.reason() + "; cut to the remaining budget of " + bytes(limit),
        task.healthScore(),
        Math.min(files, task.filesIn()),
        limit,
        Math.max(1, PartitionState.ceilDiv(limit, target)),
        limit,
        task.convertsLargeFiles());
  }

  private static boolean isDue(Duration interval, Optional<Instant> last, Instant now) {
    if (interval.isZero()) {
      return false;
    }
    return last.isEmpty() || !last.get().plus(interval).isAfter(now);
  }

  private static String sinceLast(Optional<Instant> last, Instant now, OptimizePolicy policy) {
    String limit =
        " >= "
            + duration(policy.minorMaxInterval())
            + " ("
            + OptimizePolicy.MINOR_MAX_INTERVAL_MS
            + ")";
    return last.map(
            instant -> "last optimize " + duration(Duration.between(instant, now)) + " ago" + limit)
        .orElse("never optimized");
  }

  /** A duration for people: {@code 1h}, {@code 90m}, {@code 45s}, {@code 1500ms}. */
  static String duration(Duration duration) {
    long millis = duration.toMillis();
    if (millis % 3_600_000 == 0) {
      return millis / 3_600_000 + "h";
    }
    if (millis % 60_000 == 0) {
      return millis / 60_000 + "m";
    }
    if (millis % 1_000 == 0) {
      return millis / 1_000 + "s";
    }
    if (millis >= 60_000) {
      return millis / 60_000 + "m";
    }
    return millis + "ms";
  }

  /** Bytes for people, binary units: {@code 512 B}, {@code 1.5 MiB}, {@code 10.0 GiB}. */
  public static String bytes(long bytes) {
    if (bytes < 1024) {
      return bytes + " B";
    }
    String[] units = {"KiB", "MiB", "GiB", "TiB", "PiB"};
    double value = bytes;
    int unit = -1;
    while (value >= 1024 && unit < units.length - 1) {
      value /= 1024;
      unit++;
    }
    return String.format(Locale.ROOT, "%.1f %s", value, units[unit]);
  }

  private static String ratio(double value) {
    return String.format(Locale.ROOT, "%.2f", value);
  }
}

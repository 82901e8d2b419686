package dev.floe.core.optimize;

import static dev.floe.core.optimize.States.MIB;
import static dev.floe.core.optimize.States.TARGET;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class OptimizePlannerTest {

  private static final Instant NOW = Instant.parse("2026-11-29T10:00:00Z");
  private static final Optional<Instant> RECENT = Optional.of(NOW.minusSeconds(60));

  private final OptimizePlanner planner = new OptimizePlanner();

  @Test
  void healthyTableNeedsNothing() {
    TableState state =
        States.table(
            RECENT,
            States.partition("d=1").addDataFile(TARGET, 1000, 1, 0).build(),
            States.smallFiles("d=2", 11, 1).build());

    OptimizePlan plan = planner.plan(state, States.policy(), NOW);

    assertThat(plan.isEmpty()).isTrue();
    assertThat(plan.deferred()).isEmpty();
    assertThat(plan.snapshot()).contains(new PlannedSnapshot(42, 7));
  }

  @Test
  void minorCompactionForManySmallFiles() {
    TableState state = States.table(RECENT, States.smallFiles("d=1", 40, 2).build());

    OptimizePlan plan = planner.plan(state, States.policy(), NOW);

    assertThat(plan.tasks())
        .containsExactly(
            new PartitionTask(
                new PartitionKey(0, "d=1"),
                TaskKind.MINOR,
                "40 small files >= 12 (floe.optimize.minor.min-small-files)",
                state.partitions().get(0).healthScore(TARGET),
                40,
                80 * MIB,
                1,
                Long.MAX_VALUE,
                false));
  }

  @Test
  void minorCompactionOfFewSmallFilesOnceTheMaximumIntervalPassed() {
    TableState state =
        States.table(
            Optional.of(NOW.minus(Duration.ofMinutes(90))), States.smallFiles("d=1", 3, 2).build());

    OptimizePlan plan = planner.plan(state, States.policy(), NOW);

    assertThat(plan.tasks())
        .singleElement()
        .satisfies(
            task -> {
              assertThat(task.kind()).isEqualTo(TaskKind.MINOR);
              assertThat(task.reason())
                  .isEqualTo(
                      "3 small files and last optimize 90m ago >= 1h (floe.optimize.minor.max-interval-ms)");
            });
  }

  @Test
  void anAskedRunRewritesWhatTheCountThresholdsLeaveRightAfterAnOptimize() {
    PartitionState.Builder deletes = States.smallFiles("d=1", 5, 1);
    for (int i = 0; i < 3; i++) {
      deletes.addEqualityDeleteFile(100, 5);
    }
    TableState state =
        States.table(RECENT, deletes.build(), States.smallFiles("d=2", 2, 1).build());

    assertThat(planner.plan(state, States.policy(), OptimizeFailures.none(), NOW).isEmpty())
        .isTrue();
    OptimizePlan asked = planner.plan(state, States.policy(), OptimizeFailures.none(), NOW, true);

    assertThat(asked.tasks())
        .extracting(PartitionTask::kind, PartitionTask::reason)
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple(
                TaskKind.DELETES, "3 delete files and optimize asked for"),
            org.assertj.core.groups.Tuple.tuple(
                TaskKind.MINOR, "2 small files and optimize asked for"));
  }

  @Test
  void anAskedRunLeavesAPartitionWithOneSmallFileAndNoDeletes() {
    TableState state = States.table(RECENT, States.smallFiles("d=1", 1, 1).build());

    assertThat(planner.plan(state, States.policy(), OptimizeFailures.none(), NOW, true).isEmpty())
        .isTrue();
  }

  @Test
  void aNeverOptimizedTableIsDueForTheInterval() {
    TableState state = States.table(Optional.empty(), States.smallFiles("d=1", 2, 2).build());

    assertThat(planner.plan(state, States.policy(), NOW).tasks())
        .singleElement()
        .extracting(PartitionTask::reason)
        .isEqualTo("2 small files and never optimized");
  }

  @Test
  void deleteRewriteForManyDeleteFilesRewritesTheLargeFilesOfASmallPartition() {
    PartitionState.Builder partition =
        States.partition("d=1").addDataFile(TARGET, 1_000_000, 1, 10 * MIB);
    partition.addDataFile(4 * MIB, 1000, 2, MIB);
    for (int i = 0; i < 8; i++) {
      partition.addEqualityDeleteFile(1000, 10);
    }
    TableState state = States.table(RECENT, partition.build());

    PartitionTask task = planner.plan(state, States.policy(), NOW).tasks().get(0);

    assertThat(task.kind()).isEqualTo(TaskKind.DELETES);
    assertThat(task.reason())
        .isEqualTo(
            "8 delete files >= 8 (floe.optimize.deletes.min-delete-files); large files with"
                + " deletes rewritten (partition 132.0 MiB < 512.0 MiB,"
                + " floe.optimize.deletes.convert-min-partition-bytes)");
    assertThat(task.convertsLargeFiles()).isFalse();
    assertThat(task.bytesIn()).isEqualTo(4 * MIB + TARGET);
    assertThat(task.expectedFilesOut()).isEqualTo(2);
  }

  @Test
  void deleteRewriteOfALargePartitionConvertsTheEqualityDeletesOfItsLargeFiles() {
    PartitionState.Builder partition = States.partition("d=1");
    for (int i = 0; i < 4; i++) {
      partition.addDataFile(TARGET, 1_000_000, 1, 10 * MIB);
    }
    partition.addDataFile(4 * MIB, 1000, 2, MIB);
    for (int i = 0; i < 8; i++) {
      partition.addEqualityDeleteFile(1000, 10);
    }
    TableState state = States.table(RECENT, partition.build());

    PartitionTask task = planner.plan(state, States.policy(), NOW).tasks().get(0);

    assertThat(task.reason())
        .isEqualTo(
            "8 delete files >= 8 (floe.optimize.deletes.min-delete-files); large files: deletes"
                + " converted to positions (partition 516.0 MiB >= 512.0 MiB,"
                + " floe.optimize.deletes.convert-min-partition-bytes)");
    assertThat(task.convertsLargeFiles()).isTrue();
    assertThat(task.bytesIn()).isEqualTo(4 * MIB + 4 * 10 * MIB);
    assertThat(task.expectedFilesOut()).isEqualTo(5);
  }

  @Test
  void convertingCanBeMadeTheRuleForEveryPartition() {
    PartitionState partition =
        States.partition("d=1")
            .addDataFile(TARGET, 1_000_000, 1, 10 * MIB)
            .addEqualityDeleteFile(1000, 200_000)
            .build();
    OptimizePolicy alwaysConvert =
        OptimizePolicy.fromProperties(
            "db.t",
            Map.of(
                "floe.optimize.target-file-size-bytes",
                String.valueOf(TARGET),
                "floe.optimize.deletes.convert-min-partition-bytes",
                "0"));

    PartitionTask task =
        planner.plan(States.table(RECENT, partition), alwaysConvert, NOW).tasks().get(0);

    assertThat(task.convertsLargeFiles()).isTrue();
    assertThat(task.bytesIn()).isEqualTo(10 * MIB);
  }

  @Test
  void deleteRewriteForAHighDeleteRatio() {
    PartitionState partition =
        States.partition("d=1")
            .addDataFile(TARGET, 1000, 1, 0)
            .addPositionDeleteFile(100, 150)
            .build();

    PartitionTask task =
        planner.plan(States.table(RECENT, partition), States.policy(), NOW).tasks().get(0);

    assertThat(task.kind()).isEqualTo(TaskKind.DELETES);
    assertThat(task.reason())
        .startsWith(
            "delete ratio 0.15 >= 0.10 (floe.optimize.deletes.min-ratio); large files with deletes"
                + " rewritten");
  }

  @Test
  void fullRewriteWhenDueAndEnabled() {
    OptimizePolicy policy =
        OptimizePolicy.fromProperties(
            "db.t",
            Map.of(
                "floe.optimize.target-file-size-bytes",
                String.valueOf(TARGET),
                "floe.optimize.full.interval-ms",
                "86400000"));
    TableState state =
        States.table(
            RECENT,
            States.partition("d=1")
                .addDataFile(TARGET, 1, 1, 0)
                .addDataFile(TARGET, 1, 1, 0)
                .build(),
            States.partition("d=2").addDataFile(TARGET, 1, 1, 0).build());

    OptimizePlan plan = planner.plan(state, policy, NOW);

    assertThat(plan.tasks())
        .singleElement()
        .satisfies(
            task -> {
              assertThat(task.kind()).isEqualTo(TaskKind.FULL);
              assertThat(task.partition().path()).isEqualTo("d=1");
              assertThat(task.reason()).isEqualTo("full rewrite due every 24h");
              assertThat(task.bytesIn()).isEqualTo(2 * TARGET);
              assertThat(task.expectedFilesOut()).isEqualTo(2);
            });
  }

  @Test
  void worstPartitionsFirstWithinTheBudgetAndTheRestDeferred() {
    PartitionState mild = States.smallFiles("d=1", 12, 4).build();
    PartitionState bad = States.smallFiles("d=2", 500, 1).build();
    PartitionState worst =
        States.smallFiles("d=3", 100, 1).addEqualityDeleteFile(10, 90_000).build();
    OptimizePolicy policy = States.policy().withBudgetBytes(150 * MIB);

    OptimizePlan plan = planner.plan(States.table(RECENT, mild, bad, worst), policy, NOW);

    assertThat(plan.tasks())
        .extracting(task -> task.partition().path())
        .containsExactly("d=3", "d=2");
    PartitionTask cut = plan.tasks().get(1);
    assertThat(cut.isPartial()).isTrue();
    assertThat(cut.bytesIn()).isEqualTo(50 * MIB);
    assertThat(cut.inputByteLimit()).isEqualTo(50 * MIB);
    assertThat(cut.filesIn()).isEqualTo(50);
    assertThat(cut.reason())
        .isEqualTo(
            "500 small files >= 12 (floe.optimize.minor.min-small-files); cut to the remaining"
                + " budget of 50.0 MiB");
    assertThat(plan.plannedBytes()).isEqualTo(150 * MIB);
    assertThat(plan.deferred())
        .containsExactly(
            new DeferredPartition(
                new PartitionKey(0, "d=2"),
                "the rest of minor (450.0 MiB) is over the budget of 150.0 MiB"),
            new DeferredPartition(
                new PartitionKey(0, "d=1"), "minor (48.0 MiB) is over the budget of 150.0 MiB"));
  }

  @Test
  void aFailedPartitionWaitsForItsBackoff() {
    PartitionState partition = States.smallFiles("d=1", 20, 1).build();
    OptimizeFailures failures =
        OptimizeFailures.none().recordFailure(partition.partition(), NOW.minusSeconds(60));

    OptimizePlan during =
        planner.plan(States.table(RECENT, partition), States.policy(), failures, NOW);
    OptimizePlan after =
        planner.plan(
            States.table(RECENT, partition), States.policy(), failures, NOW.plusSeconds(120));

    assertThat(during.tasks()).isEmpty();
    assertThat(during.deferred())
        .containsExactly(
            new DeferredPartition(
                partition.partition(),
                "minor backing off after 1 failure, next attempt at 2026-11-29T10:02:00Z"));
    assertThat(after.tasks()).hasSize(1);
  }

  @Test
  void disabledTablesAndTablesWithoutSnapshotsGetAnEmptyPlan() {
    OptimizePolicy disabled =
        OptimizePolicy.fromProperties(
            "db.t",
            Map.of("floe.optimize.enabled", "false", "write.target-file-size-bytes", "134217728"));
    TableState state = States.table(RECENT, States.smallFiles("d=1", 40, 1).build());
    TableState empty =
        new TableState(
            "db.t", Optional.empty(), TARGET, 1, List.of(), Optional.empty(), Optional.empty());

    assertThat(planner.plan(state, disabled, NOW).isEmpty()).isTrue();
    assertThat(planner.plan(empty, States.policy(), NOW).isEmpty()).isTrue();
  }

  @Test
  void bytesAreShownInBinaryUnits() {
    assertThat(OptimizePlanner.bytes(512)).isEqualTo("512 B");
    assertThat(OptimizePlanner.bytes(1536 * 1024)).isEqualTo("1.5 MiB");
    assertThat(OptimizePlanner.bytes(10L << 30)).isEqualTo("10.0 GiB");
  }
}

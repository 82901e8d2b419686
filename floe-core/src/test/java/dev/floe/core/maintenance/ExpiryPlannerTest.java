package dev.floe.core.maintenance;

import static dev.floe.core.maintenance.Snapshots.T0;
import static dev.floe.core.maintenance.Snapshots.flink;
import static dev.floe.core.maintenance.Snapshots.snapshot;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ExpiryPlannerTest {

  private final ExpiryPlanner planner = new ExpiryPlanner();
  private final Instant now = T0.plus(Duration.ofDays(30));

  private static List<SnapshotFacts> linear(int count) {
    List<SnapshotFacts> snapshots = new ArrayList<>();
    for (long id = 1; id <= count; id++) {
      snapshots.add(snapshot(id, id == 1 ? null : id - 1));
    }
    return snapshots;
  }

  private static MaintenancePolicy policy(int minSnapshots) {
    return MaintenancePolicy.defaults()
        .withMaxSnapshotAge(Duration.ofDays(1))
        .withMinSnapshots(minSnapshots);
  }

  @Test
  void expiresOldSnapshotsBeyondTheMinimumCount() {
    ExpiryPlan plan =
        planner.plan(linear(10), List.of(new TableRef("main", 10, true)), policy(3), now);

    assertThat(plan.expiredIds()).containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L);
    assertThat(plan.retained())
        .containsEntry(10L, RetentionReason.CURRENT)
        .containsEntry(9L, RetentionReason.MIN_SNAPSHOTS)
        .containsEntry(8L, RetentionReason.MIN_SNAPSHOTS);
  }

  @Test
  void neverExpiresTheCurrentSnapshotEvenWithAMinimumOfOne() {
    ExpiryPlan plan =
        planner.plan(linear(3), List.of(new TableRef("main", 3, true)), policy(1), now);

    assertThat(plan.expiredIds()).containsExactly(1L, 2L);
    assertThat(plan.retained()).containsEntry(3L, RetentionReason.CURRENT);
  }

  @Test
  void youngSnapshotsStay() {
    Instant soon = T0.plus(Duration.ofHours(5)).plus(Duration.ofDays(1));
    ExpiryPlan plan =
        planner.plan(linear(10), List.of(new TableRef("main", 10, true)), policy(1), soon);

    assertThat(plan.expiredIds()).containsExactly(1L, 2L, 3L, 4L);
    assertThat(plan.retained()).containsEntry(5L, RetentionReason.YOUNG);
  }

  @Test
  void branchAndTagHeadsAndBranchHistoryStay() {
    // main: 1-2-3-4-5-6 ; branch "audit" forks at 2: 2-7-8 ; tag "eoy" on 3
    List<SnapshotFacts> snapshots = new ArrayList<>(linear(6));
    snapshots.add(snapshot(7, 2L));
    snapshots.add(snapshot(8, 7L));
    List<TableRef> refs =
        List.of(
            new TableRef("main", 6, true),
            new TableRef("audit", 8, true),
            new TableRef("eoy", 3, false));

    ExpiryPlan plan = planner.plan(snapshots, refs, policy(1), now);

    assertThat(plan.expiredIds()).containsExactly(1L, 2L, 4L, 5L);
    assertThat(plan.retained())
        .containsEntry(8L, RetentionReason.REFERENCED)
        .containsEntry(3L, RetentionReason.REFERENCED)
        .containsEntry(7L, RetentionReason.OFF_MAIN);
  }

  @Test
  void keepsEachFlinkJobsLatestCheckpointAndTheChainDownToIt() {
    List<SnapshotFacts> snapshots =
        List.of(
            snapshot(1, null, flink("job-a", 1)),
            snapshot(2, 1L, flink("job-b", 1)),
            snapshot(3, 2L, flink("job-a", 2)),
            snapshot(4, 3L),
            snapshot(5, 4L, flink("job-a", 3)),
            snapshot(6, 5L),
            snapshot(7, 6L));

    ExpiryPlan plan =
        planner.plan(snapshots, List.of(new TableRef("main", 7, true)), policy(1), now);

    // job-a's latest is 5, job-b's latest is 2: everything from 7 down to 2 stays.
    assertThat(plan.expiredIds()).containsExactly(1L);
    assertThat(plan.retained())
        .containsEntry(2L, RetentionReason.FLINK_CHECKPOINT)
        .containsEntry(4L, RetentionReason.FLINK_CHECKPOINT)
        .containsEntry(5L, RetentionReason.FLINK_CHECKPOINT);
  }

  @Test
  void flinkRetentionCanBeTurnedOff() {
    List<SnapshotFacts> snapshots =
        List.of(snapshot(1, null, flink("job-a", 1)), snapshot(2, 1L), snapshot(3, 2L));
    MaintenancePolicy policy =
        MaintenancePolicy.fromProperties(
                "t", java.util.Map.of(MaintenancePolicy.KEEP_FLINK_CHECKPOINTS, "false"))
            .withMinSnapshots(1);

    ExpiryPlan plan = planner.plan(snapshots, List.of(new TableRef("main", 3, true)), policy, now);

    assertThat(plan.expiredIds()).containsExactly(1L, 2L);
  }

  @Test
  void unreferencedDeadEndsExpireByAge() {
    // 1-2-3 on main; 4 was committed on 2 and then rolled back (no ref points to it)
    List<SnapshotFacts> snapshots = new ArrayList<>(linear(3));
    snapshots.add(snapshot(4, 2L));

    ExpiryPlan plan =
        planner.plan(snapshots, List.of(new TableRef("main", 3, true)), policy(2), now);

    assertThat(plan.expiredIds()).containsExactly(1L, 4L);
  }
}

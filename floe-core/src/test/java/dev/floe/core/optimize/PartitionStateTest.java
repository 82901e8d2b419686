package dev.floe.core.optimize;

import static dev.floe.core.optimize.States.MIB;
import static dev.floe.core.optimize.States.TARGET;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class PartitionStateTest {

  @Test
  void countsSizeClassesAgainstTheThreshold() {
    PartitionState state =
        States.partition("d=1")
            .addDataFile(96 * MIB - 1, 10, 5, 1)
            .addDataFile(96 * MIB, 20, 3, 7)
            .addPositionDeleteFile(100, 4)
            .addEqualityDeleteFile(200, 6)
            .build();

    assertThat(state.smallFiles()).isEqualTo(1);
    assertThat(state.largeFiles()).isEqualTo(1);
    assertThat(state.largeKeyColumnBytes()).isEqualTo(7);
    assertThat(state.dataRecords()).isEqualTo(30);
    assertThat(state.minDataSequenceNumber()).isEqualTo(3);
    assertThat(state.deleteFiles()).isEqualTo(2);
    assertThat(state.deleteRatio()).isEqualTo(10.0 / 30);
    assertThat(state.averageFileSize()).isEqualTo((192 * MIB - 1) / 2);
  }

  @Test
  void filesAtTheTargetSizeWithoutDeletesScoreHundred() {
    PartitionState state =
        States.partition("d=1").addDataFile(TARGET, 10, 1, 0).addDataFile(TARGET, 10, 1, 0).build();

    assertThat(state.fileExcess(TARGET)).isZero();
    assertThat(state.healthScore(TARGET)).isEqualTo(100);
  }

  @Test
  void thousandTinyFilesScoreAboutSixty() {
    PartitionState state = States.smallFiles("d=1", 1000, 1).build();

    assertThat(state.fileExcess(TARGET)).isEqualTo(1 - 8 / 1000.0);
    assertThat(state.healthScore(TARGET)).isEqualTo(60);
  }

  @Test
  void tinyFilesWithHalfTheRowsDeletedAndAsManyDeleteFilesScoreTwenty() {
    PartitionState.Builder builder = States.smallFiles("d=1", 1000, 1);
    for (int i = 0; i < 1000; i++) {
      builder.addEqualityDeleteFile(1000, 500);
    }
    PartitionState state = builder.build();

    assertThat(state.deleteRatio()).isEqualTo(0.5);
    assertThat(state.deleteFileLoad()).isEqualTo(1.0);
    assertThat(state.healthScore(TARGET)).isEqualTo(20);
  }

  @Test
  void tableTotalsSumThePartitions() {
    TableState table =
        new TableState(
            "db.t",
            Optional.of(new PlannedSnapshot(1, 1)),
            TARGET,
            96 * MIB,
            List.of(
                States.smallFiles("d=2", 3, 1).build(),
                States.smallFiles("d=1", 2, 1).addEqualityDeleteFile(10, 100).build()),
            Optional.empty(),
            Optional.empty());

    assertThat(table.partitions())
        .extracting(p -> p.partition().path())
        .containsExactly("d=1", "d=2");
    assertThat(table.totals().smallFiles()).isEqualTo(5);
    assertThat(table.totals().equalityDeleteRecords()).isEqualTo(100);
    // Files never merge across partitions: the ideal is one file per partition (2, not 1), so
    // the table scores better than its summed counters alone would.
    assertThat(table.totals().healthScore(TARGET)).isEqualTo(63);
    assertThat(table.healthScore()).isEqualTo(71);
  }

  @Test
  void aTableOfOneSmallFilePerPartitionIsHealthy() {
    TableState table =
        new TableState(
            "db.t",
            Optional.of(new PlannedSnapshot(1, 1)),
            TARGET,
            96 * MIB,
            List.of(
                States.smallFiles("d=1", 1, 1).build(),
                States.smallFiles("d=2", 1, 1).build(),
                States.smallFiles("d=3", 1, 1).build()),
            Optional.empty(),
            Optional.empty());

    assertThat(table.healthScore()).isEqualTo(100);
  }

  @Test
  void anEmptyTableIsHealthy() {
    TableState table =
        new TableState(
            "db.t",
            Optional.empty(),
            TARGET,
            96 * MIB,
            List.of(),
            Optional.empty(),
            Optional.empty());

    assertThat(table.healthScore()).isEqualTo(100);
  }
}

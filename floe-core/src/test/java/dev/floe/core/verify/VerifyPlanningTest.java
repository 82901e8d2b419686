package dev.floe.core.verify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigInteger;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class VerifyPlanningTest {

  static final LocalDate TODAY = LocalDate.of(2026, 11, 29);

  @Test
  void cutoffAndWindowParseInTheSourceWallClock() {
    assertThat(VerifyWindow.parse("today", "7d", TODAY))
        .isEqualTo(
            new VerifyWindow(
                LocalDateTime.of(2026, 11, 22, 0, 0), LocalDateTime.of(2026, 11, 29, 0, 0)));
    assertThat(VerifyWindow.parse("2026-11-01", "36h", TODAY).start())
        .isEqualTo(LocalDateTime.of(2026, 10, 30, 12, 0));
    assertThat(VerifyWindow.parse("2026-11-01T06:30", "90m", TODAY).start())
        .isEqualTo(LocalDateTime.of(2026, 11, 1, 5, 0));
    assertThatThrownBy(() -> VerifyWindow.parse("yesterday", "7d", TODAY))
        .hasMessage(
            "--cutoff must be today, a date (2026-11-29) or an ISO date-time (2026-11-29T06:00),"
                + " got 'yesterday'.");
    assertThatThrownBy(() -> VerifyWindow.parse("today", "7 days", TODAY))
        .hasMessage("--window must be a length like 7d, 36h or 90m, got '7 days'.");
  }

  @Test
  void timeBoundsPlaceRowsByText() {
    VerifyWindow window = VerifyWindow.parse("today", "1d", TODAY);
    TimeBounds local = TimeBounds.of(window, ColumnKind.DATETIME, ZoneOffset.ofHours(8));
    assertThat(local.cutoff()).isEqualTo("2026-11-29 00:00:00.000000");
    assertThat(local.compared(null)).isTrue();
    assertThat(local.inWindow(null)).isFalse();
    assertThat(local.compared("2026-11-28 23:59:59.999999")).isTrue();
    assertThat(local.compared("2026-11-29 00:00:00.000000")).isFalse();
    assertThat(local.inWindow("2026-11-28 00:00:00.000000")).isTrue();
    assertThat(local.inWindow("2026-11-27 23:59:59.999999")).isFalse();
    assertThat(local.compared("2026-11-29")).isFalse();
    assertThat(local.inWindow("2026-11-28")).isTrue();
    TimeBounds utc = TimeBounds.of(window, ColumnKind.TIMESTAMP, ZoneOffset.ofHours(8));
    assertThat(utc.cutoff()).isEqualTo("2026-11-28 16:00:00.000000");
  }

  @Test
  void sliceSizeMovesTowardTheTargetTimeAtMostTwofoldPerStep() {
    SliceSizer sizer = new SliceSizer(Duration.ofSeconds(1), 1_000, 100_000);
    assertThat(sizer.initial()).isEqualTo(10_000);
    assertThat(sizer.next(10_000, Duration.ofMillis(250))).isEqualTo(20_000);
    assertThat(sizer.next(10_000, Duration.ofMillis(800))).isEqualTo(12_500);
    assertThat(sizer.next(10_000, Duration.ofSeconds(10))).isEqualTo(5_000);
    assertThat(sizer.next(80_000, Duration.ofMillis(1))).isEqualTo(100_000);
    assertThat(sizer.next(1_500, Duration.ofSeconds(10))).isEqualTo(1_000);
  }

  @Test
  void bisectionSplitsLargeSlicesAndComparesSmallOnesRowByRow() {
    Bisection bisection = new Bisection(1_000);
    assertThat(bisection.compareRows(new Slice(KeyRange.all(), 1_000))).isTrue();
    assertThat(bisection.compareRows(new Slice(KeyRange.all(), 1_001))).isFalse();
    assertThat(bisection.splitOffset(new Slice(KeyRange.all(), 5_001))).isEqualTo(2_500);
  }

  @Test
  void digestSumIsExactAndOrderIndependent() {
    SliceDigest.Accumulator forward = new SliceDigest.Accumulator();
    SliceDigest.Accumulator backward = new SliceDigest.Accumulator();
    long[] hashes = {-1L, Long.MIN_VALUE, 42L, -7L};
    SliceDigest slow = SliceDigest.EMPTY;
    for (int i = 0; i < hashes.length; i++) {
      forward.add(hashes[i]);
      backward.add(hashes[hashes.length - 1 - i]);
      slow = slow.plus(hashes[i]);
    }
    assertThat(forward.digest()).isEqualTo(backward.digest()).isEqualTo(slow);
    assertThat(forward.digest().hashSum())
        .isEqualTo(
            new BigInteger("18446744073709551615")
                .add(new BigInteger("9223372036854775808"))
                .add(BigInteger.valueOf(42))
                .add(new BigInteger("18446744073709551609")));
  }

  @Test
  void snapshotIsTheFirstWhoseSyncPositionReachedTheCutoff() {
    List<SnapshotChoice.Candidate> history =
        List.of(
            new SnapshotChoice.Candidate(1, Map.of(SnapshotChoice.SOURCE_WATERMARK_MS, "100")),
            new SnapshotChoice.Candidate(2, Map.of(SnapshotChoice.SOURCE_WATERMARK_MS, "200")),
            new SnapshotChoice.Candidate(3, Map.of(SnapshotChoice.SOURCE_WATERMARK_MS, "300")));
    assertThat(SnapshotChoice.choose(history, 150).snapshotId()).contains(2L);
    SnapshotChoice notCaughtUp = SnapshotChoice.choose(history, 400);
    assertThat(notCaughtUp.snapshotId()).contains(3L);
    assertThat(notCaughtUp.caughtUp()).isFalse();
    assertThat(notCaughtUp.reason())
        .isEqualTo(
            "current snapshot: the lake has not reached the cutoff yet (latest"
                + " floe.source-watermark-ms 300)");
    SnapshotChoice plain =
        SnapshotChoice.choose(List.of(new SnapshotChoice.Candidate(9, Map.of())), 150);
    assertThat(plain.snapshotId()).contains(9L);
    assertThat(plain.reason())
        .isEqualTo("current snapshot: no snapshot records floe.source-watermark-ms");
    assertThat(SnapshotChoice.choose(List.of(), 1).snapshotId()).isEmpty();
  }

  @Test
  void rowsDifferByKeyOrByColumns() {
    TableShape shape = RowTextTest.SHAPE;
    Map<RowKey, ComparedRow> source =
        Map.of(
            RowKey.of("1"), row("1", "a", true),
            RowKey.of("2"), row("2", "b", true),
            RowKey.of("3"), row("3", "c", false));
    Map<RowKey, ComparedRow> lake =
        Map.of(
            RowKey.of("2"), row("2", "B", true),
            RowKey.of("3"), row("3", "changed but outside the window", false),
            RowKey.of("4"), row("4", "d", true));
    RowDifferences differences = RowDifferences.compare(shape, source, lake);
    assertThat(differences.missingInLake()).containsExactly(RowKey.of("1"));
    assertThat(differences.extraInLake()).containsExactly(RowKey.of("4"));
    assertThat(differences.different())
        .containsExactly(new RowDifferences.ChangedRow(RowKey.of("2"), List.of("name")));
  }

  @Test
  void reportJsonHasTheRequiredShape() {
    VerifyColumn tenant = new VerifyColumn("tenant", ColumnKind.INTEGER, "int", 0);
    VerifyColumn code = new VerifyColumn("day", ColumnKind.DATE, "date", 0);
    TableShape shape =
        TableShape.of(
            "shop",
            "t",
            List.of(tenant, code, RowTextTest.UPDATED),
            List.of("tenant", "day"),
            "updated_at");
    DifferenceCollector collector = new DifferenceCollector(1);
    collector.add(
        new RowDifferences(
            List.of(RowKey.of("7", "2026-01-01"), RowKey.of("3", "2026-01-02")),
            List.of(),
            List.of(
                new RowDifferences.ChangedRow(
                    RowKey.of("1", "2026-01-03"), List.of("updated_at")))));
    VerifyReport report =
        VerifyReport.of(
            shape,
            "shop.t",
            VerifyWindow.parse("2026-11-29", "7d", TODAY),
            new SnapshotChoice(Optional.of(5L), "current snapshot", false),
            10,
            2,
            collector,
            Duration.ofMillis(1500));
    assertThat(report.status()).isEqualTo("different");
    assertThat(report.toJson())
        .contains("\"status\": \"different\",")
        .contains(
            "\"missing_in_lake\": {\"count\": 2, \"keys\": [{\"tenant\": 7, \"day\":"
                + " \"2026-01-01\"}]},")
        .contains("\"extra_in_lake\": {\"count\": 0, \"keys\": []},")
        .contains(
            "\"different\": {\"count\": 1, \"keys\": [{\"tenant\": 1, \"day\": \"2026-01-03\"}],"
                + " \"rows\": [{\"key\": {\"tenant\": 1, \"day\": \"2026-01-03\"}, \"columns\":"
                + " [\"updated_at\"]}]},")
        .contains(
            "\"lake_snapshot\": {\"id\": 5, \"chosen\": \"current snapshot\", \"caught_up\": false},");
    assertThat(report.summary(20))
        .contains("  missing in lake:   2\n    {\"tenant\": 7, \"day\": \"2026-01-01\"}\n")
        .contains("Repair: re-sync these keys");
  }

  private static ComparedRow row(String id, String name, boolean full) {
    return new ComparedRow(List.of(id, name, "1.00", "2026-11-28 00:00:00.000000"), full);
  }
}

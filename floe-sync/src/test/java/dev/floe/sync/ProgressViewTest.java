package dev.floe.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.floe.core.error.FloeException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.UnaryOperator;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;

class ProgressViewTest {

  private static final Instant START = Instant.parse("2026-12-03T06:00:00Z");
  private static final Duration THRESHOLD = Duration.ofSeconds(25);
  private static final ProgressView LIVE = new ProgressView(ProgressView.Mode.LIVE, THRESHOLD, 200);
  private static final ProgressView LOG = new ProgressView(ProgressView.Mode.LOG, THRESHOLD, 200);

  private static SyncStatus.Table copying(String name, long rows, long estimate) {
    return new SyncStatus.Table(
        name,
        identifier(name),
        SyncStatus.Phase.SNAPSHOT,
        rows,
        estimate,
        OptionalLong.empty(),
        false,
        Optional.empty());
  }

  private static SyncStatus.Table binlog(String name, long rows, long lagMillis) {
    return new SyncStatus.Table(
        name,
        identifier(name),
        SyncStatus.Phase.BINLOG,
        rows,
        rows,
        OptionalLong.of(lagMillis),
        true,
        Optional.empty());
  }

  private static SyncStatus.Table stopped(String name, String reason) {
    return new SyncStatus.Table(
        name,
        identifier(name),
        SyncStatus.Phase.BINLOG,
        7,
        7,
        OptionalLong.of(400),
        true,
        Optional.of(reason));
  }

  private static TableIdentifier identifier(String name) {
    return TableIdentifier.parse(name.replace(" (route)", ""));
  }

  private static SyncStatus at(long seconds, OptionalLong lag, List<SyncStatus.Table> tables) {
    return new SyncStatus(START.plusSeconds(seconds), lag, tables);
  }

  /** 1,000 tables: 3 copying, 2 lagging, 1 stopped, 994 in the binlog phase at 0.4 s. */
  private static List<SyncStatus.Table> thousandTables(UnaryOperator<Long> rows) {
    List<SyncStatus.Table> tables = new ArrayList<>();
    tables.add(copying("shop.a_copy1", rows.apply(10_000L), 100_000));
    tables.add(copying("shop.a_copy2", rows.apply(20_000L), 100_000));
    tables.add(copying("shop.a_copy3", rows.apply(30_000L), 100_000));
    tables.add(binlog("shop.b_busy1", rows.apply(500L), 45_000));
    tables.add(binlog("shop.b_busy2", rows.apply(600L), 45_000));
    tables.add(stopped("shop.c_gone", "Floe stopped syncing shop.c_gone: the table was dropped"));
    for (int i = 0; i < 994; i++) {
      tables.add(binlog(String.format("shop.t%04d", i), 1_000, 400));
    }
    return tables;
  }

  @Test
  void aThousandTablesMakeABlockOfTheBusyOnesAndOneLineForTheRest() {
    SyncStatus before = at(0, OptionalLong.of(400), thousandTables(rows -> rows));
    SyncStatus now = at(10, OptionalLong.of(400), thousandTables(rows -> rows + 1_000));

    List<String> block = LIVE.render(Optional.of(before), now);

    assertThat(block)
        .containsExactly(
            "progress: 1,000 tables: 3 copying (63,000 / ~300,000 rows), 2 lagging, 1 stopped,"
                + " 994 in the binlog phase; lag 0.4 s; 500 rows/s",
            "  copying  shop.a_copy1                             11,000 / ~100,000 rows (11%)"
                + "              100 rows/s",
            "  copying  shop.a_copy2                             21,000 / ~100,000 rows (21%)"
                + "              100 rows/s",
            "  copying  shop.a_copy3                             31,000 / ~100,000 rows (31%)"
                + "              100 rows/s",
            "  lagging  shop.b_busy1                             1,500 rows, lag 45.0 s        "
                + "            100 rows/s",
            "  lagging  shop.b_busy2                             1,600 rows, lag 45.0 s        "
                + "            100 rows/s",
            "  stopped  shop.c_gone                              Floe stopped syncing"
                + " shop.c_gone: the table was dropped",
            "  994 tables in the binlog phase, lag 0.4 s, 0 rows/s");
  }

  @Test
  void theFirstBlockHasNoRatesYet() {
    List<String> block =
        LIVE.render(Optional.empty(), at(0, OptionalLong.of(400), thousandTables(rows -> rows)));

    assertThat(block).hasSize(8).noneMatch(line -> line.contains("rows/s"));
    assertThat(block.get(7)).isEqualTo("  994 tables in the binlog phase, lag 0.4 s");
  }

  @Test
  void manyTablesCopyingAtOnceAreCappedAndCounted() {
    List<SyncStatus.Table> tables = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      tables.add(copying(String.format("shop.copy%02d", i), 0, 10));
    }
    for (int i = 0; i < 5; i++) {
      tables.add(binlog(String.format("shop.lag%02d", i), 0, 60_000));
    }
    tables.add(stopped("shop.gone", "dropped"));
    tables.add(binlog("shop.quiet", 0, 60_000 - 1 - 35_000));

    List<String> block = LIVE.render(Optional.empty(), at(0, OptionalLong.of(60_000), tables));

    assertThat(block).hasSize(1 + ProgressView.MAXIMUM_LISTED_TABLES + 3 + 1).hasSizeLessThan(40);
    assertThat(block.get(0))
        .isEqualTo(
            "progress: 57 tables: 50 copying (0 / ~500 rows), 5 lagging, 1 stopped,"
                + " 1 in the binlog phase; lag 1 min 00 s");
    assertThat(block.subList(1, 21)).allMatch(line -> line.startsWith("  copying  shop.copy"));
    assertThat(block.subList(21, 25))
        .containsExactly(
            "  ... and 30 more copying",
            "  ... and 5 more lagging",
            "  ... and 1 more stopped",
            "  1 table in the binlog phase, lag 25.0 s");
  }

  @Test
  void aTableLagsOnlyAboveTheThreshold() {
    assertThat(LIVE.state(binlog("shop.a", 1, THRESHOLD.toMillis())))
        .isEqualTo(ProgressView.TableState.BINLOG);
    assertThat(LIVE.state(binlog("shop.a", 1, THRESHOLD.toMillis() + 1)))
        .isEqualTo(ProgressView.TableState.LAGGING);
    assertThat(
            LIVE.state(
                new SyncStatus.Table(
                    "shop.a",
                    identifier("shop.a"),
                    SyncStatus.Phase.BINLOG,
                    1,
                    1,
                    OptionalLong.empty(),
                    false,
                    Optional.empty())))
        .as("a lag not known yet is no lag")
        .isEqualTo(ProgressView.TableState.BINLOG);
    assertThat(LIVE.state(copying("shop.a", 1, 2))).isEqualTo(ProgressView.TableState.COPYING);
    assertThat(LIVE.state(stopped("shop.a", "why"))).isEqualTo(ProgressView.TableState.STOPPED);
  }

  @Test
  void theLaggingThresholdFollowsTheIntervalsAboveTenSeconds() {
    assertThat(ProgressView.laggingThreshold(Duration.ofSeconds(10), Duration.ofSeconds(5)))
        .isEqualTo(Duration.ofSeconds(25));
    assertThat(ProgressView.laggingThreshold(Duration.ofSeconds(1), Duration.ofSeconds(5)))
        .isEqualTo(Duration.ofSeconds(10));
    assertThat(ProgressView.laggingThreshold(Duration.ofSeconds(60), Duration.ofSeconds(30)))
        .isEqualTo(Duration.ofSeconds(150));
  }

  @Test
  void aLogPrintsEveryTableOnceThenOnlyTheSummary() {
    List<SyncStatus.Table> tables = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      tables.add(binlog("shop.t" + i, 100, 300));
    }
    List<String> first = LOG.render(Optional.empty(), at(0, OptionalLong.of(300), tables));
    List<String> second =
        LOG.render(
            Optional.of(at(0, OptionalLong.of(300), tables)), at(10, OptionalLong.of(700), tables));

    assertThat(first)
        .containsExactly(
            "  binlog   shop.t0                                  100 rows, lag 0.3 s",
            "  binlog   shop.t1                                  100 rows, lag 0.3 s",
            "  binlog   shop.t2                                  100 rows, lag 0.3 s",
            "  binlog   shop.t3                                  100 rows, lag 0.3 s",
            "progress: 4 tables: 4 in the binlog phase; lag 0.3 s");
    assertThat(second)
        .containsExactly("progress: 4 tables: 4 in the binlog phase; lag 0.7 s; 0 rows/s");
  }

  @Test
  void aLogPrintsATableWhenItsStateChanges() {
    SyncStatus before =
        at(
            0,
            OptionalLong.of(400),
            List.of(
                copying("shop.copied", 90_000, 100_000),
                copying("shop.still_copying", 10_000, 100_000),
                binlog("shop.falls_behind", 10, 400),
                binlog("shop.catches_up", 10, 40_000),
                binlog("shop.dropped", 10, 400),
                binlog("shop.quiet", 10, 400)));
    SyncStatus now =
        at(
            20,
            OptionalLong.of(400),
            List.of(
                binlog("shop.copied", 100_000, 400),
                copying("shop.still_copying", 30_000, 100_000),
                binlog("shop.falls_behind", 410, 30_000),
                binlog("shop.catches_up", 10, 400),
                stopped("shop.dropped", "Floe stopped syncing shop.dropped: the table was dropped"),
                binlog("shop.quiet", 10, 400),
                binlog("shop.created", 3, 400)));

    List<String> lines = LOG.render(Optional.of(before), now);

    assertThat(lines)
        .containsExactly(
            "  binlog   shop.copied                              100,000 rows, lag 0.4 s      "
                + "             500 rows/s",
            "  binlog   shop.catches_up                          10 rows, lag 0.4 s           "
                + "               0 rows/s",
            "  binlog   shop.created                             3 rows, lag 0.4 s",
            "  lagging  shop.falls_behind                        410 rows, lag 30.0 s         "
                + "              20 rows/s",
            "  stopped  shop.dropped                             Floe stopped syncing"
                + " shop.dropped: the table was dropped",
            "progress: 7 tables: 1 copying (30,000 / ~100,000 rows), 1 lagging, 1 stopped,"
                + " 4 in the binlog phase; lag 0.4 s; 1,520 rows/s");
  }

  @Test
  void aLogCapsTheTablesThatChangeTogether() {
    List<SyncStatus.Table> caughtUp = new ArrayList<>();
    List<SyncStatus.Table> behind = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      caughtUp.add(binlog(String.format("shop.t%03d", i), 10, 400));
      behind.add(binlog(String.format("shop.t%03d", i), 10, 90_000));
    }

    List<String> first = LOG.render(Optional.empty(), at(0, OptionalLong.of(400), caughtUp));
    List<String> lagging =
        LOG.render(
            Optional.of(at(0, OptionalLong.of(400), caughtUp)),
            at(10, OptionalLong.of(90_000), behind));

    assertThat(first)
        .hasSize(ProgressView.MAXIMUM_LISTED_TABLES + 2)
        .contains("  ... and 280 more binlog");
    assertThat(lagging)
        .hasSize(ProgressView.MAXIMUM_LISTED_TABLES + 2)
        .startsWith(
            "  lagging  shop.t000                                10 rows, lag 1 min 30 s"
                + "                     0 rows/s")
        .endsWith(
            "  ... and 280 more lagging",
            "progress: 300 tables: 300 lagging; lag 1 min 30 s; 0 rows/s");
  }

  @Test
  void liveLinesAreCutToTheWidthAndLogLinesNeverAre() {
    String reason = "Floe stopped syncing shop.gone: " + "x".repeat(300);
    SyncStatus status =
        at(0, OptionalLong.of(400), List.of(stopped("shop.gone", reason), binlog("shop.a", 1, 1)));

    List<String> live =
        new ProgressView(ProgressView.Mode.LIVE, THRESHOLD, 80).render(Optional.empty(), status);
    List<String> log =
        new ProgressView(ProgressView.Mode.LOG, THRESHOLD, 80).render(Optional.empty(), status);

    assertThat(live).allMatch(line -> line.length() <= 79);
    assertThat(live.get(1)).hasSize(79).startsWith("  stopped  shop.gone").endsWith("...");
    assertThat(log).anyMatch(line -> line.endsWith(reason));
  }

  @Test
  void aRedrawMovesUpOverThePreviousBlockAndErasesIt() {
    assertThat(ProgressView.redraw(0, List.of("a", "b"))).isEqualTo("a\nb\n");
    assertThat(ProgressView.redraw(3, List.of("a", "b"))).isEqualTo("\033[3A\r\033[Ja\nb\n");
  }

  @Test
  void lagsReadAsSecondsMinutesOrHours() {
    assertThat(ProgressView.lag(OptionalLong.of(400))).isEqualTo("lag 0.4 s");
    assertThat(ProgressView.lag(OptionalLong.of(59_949))).isEqualTo("lag 59.9 s");
    assertThat(ProgressView.lag(OptionalLong.of(754_000))).isEqualTo("lag 12 min 34 s");
    assertThat(ProgressView.lag(OptionalLong.of(3 * 3_600_000 + 120_000)))
        .isEqualTo("lag 3 h 02 min");
    assertThat(ProgressView.lag(OptionalLong.empty())).isEqualTo("lag not known yet");
  }

  @Test
  void theWidthComesFromColumnsElse120() {
    assertThat(ProgressView.terminalWidth(Map.of("COLUMNS", "80"))).isEqualTo(80);
    assertThat(ProgressView.terminalWidth(Map.of())).isEqualTo(120);
    assertThat(ProgressView.terminalWidth(Map.of("COLUMNS", "wide"))).isEqualTo(120);
    assertThat(ProgressView.terminalWidth(Map.of("COLUMNS", "5"))).isEqualTo(120);
  }

  @Test
  void autoIsLiveOnlyOnAnInteractiveTerminal() {
    assertThat(ProgressView.Mode.choose("auto", true)).isEqualTo(ProgressView.Mode.LIVE);
    assertThat(ProgressView.Mode.choose("auto", false)).isEqualTo(ProgressView.Mode.LOG);
    assertThat(ProgressView.Mode.choose("LIVE", false)).isEqualTo(ProgressView.Mode.LIVE);
    assertThat(ProgressView.Mode.choose("log", true)).isEqualTo(ProgressView.Mode.LOG);
    assertThatThrownBy(() -> ProgressView.Mode.choose("fancy", true))
        .isInstanceOf(FloeException.class)
        .hasMessage("--progress must be auto, live or log, got 'fancy'.");
  }
}

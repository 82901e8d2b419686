package dev.floe.sync;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class BinlogLagTest {

  private static Optional<BinlogPosition> at(long position) {
    return Optional.of(new BinlogPosition("mysql-bin.000003", position));
  }

  @Test
  void unknownBeforeAnythingIsSeen() {
    BinlogLag lag = new BinlogLag();
    lag.observe(Optional.empty(), at(500), 1_000, OptionalLong.empty());
    assertThat(lag.lagMillis(2_000)).isEmpty();
  }

  @Test
  void withoutAHeadTheLagIsFromTheNewestChange() {
    BinlogLag lag = new BinlogLag();
    lag.observe(at(500), Optional.empty(), 60_000, OptionalLong.of(10_000));
    assertThat(lag.lagMillis(60_000)).hasValue(50_000);
  }

  @Test
  void anIdleSyncAtTheHeadHasNoLagHoweverOldItsLastChange() {
    BinlogLag lag = new BinlogLag();
    // the last change was an hour ago; the sync has read up to the head since
    lag.observe(at(900), at(900), 3_600_000, OptionalLong.of(0));
    assertThat(lag.lagMillis(3_600_000)).hasValue(0);
    lag.observe(at(900), at(900), 3_610_000, OptionalLong.of(0));
    assertThat(lag.lagMillis(3_610_500)).hasValue(500);
  }

  @Test
  void aSyncBehindLagsFromTheNewestHeadItHasReached() {
    BinlogLag lag = new BinlogLag();
    lag.observe(at(100), at(200), 10_000, OptionalLong.empty());
    lag.observe(at(150), at(300), 15_000, OptionalLong.empty());
    assertThat(lag.lagMillis(15_000)).as("no head reached yet").isEmpty();
    // the checkpoint passes the head read at 10 s, not the one read at 15 s
    lag.observe(at(250), at(400), 20_000, OptionalLong.empty());
    assertThat(lag.lagMillis(20_000)).hasValue(10_000);
    assertThat(lag.completeUpTo()).hasValue(10_000);
    // then every head up to the one read at 20 s
    lag.observe(at(400), Optional.empty(), 25_000, OptionalLong.empty());
    assertThat(lag.lagMillis(25_000)).hasValue(5_000);
  }

  @Test
  void aChangeAfterLongQuietLagsBySecondsNotByTheQuiet() {
    BinlogLag lag = new BinlogLag();
    lag.observe(at(900), at(900), 3_600_000, OptionalLong.of(0));
    // a change is written; the next checkpoint has not read it yet
    lag.observe(at(900), at(1_200), 3_605_000, OptionalLong.of(0));
    assertThat(lag.lagMillis(3_605_000)).hasValue(5_000);
  }

  @Test
  void aNewerWatermarkCounts() {
    BinlogLag lag = new BinlogLag();
    lag.observe(at(100), at(900), 50_000, OptionalLong.of(45_000));
    assertThat(lag.lagMillis(50_000)).hasValue(5_000);
  }

  @Test
  void positionsCompareAcrossBinlogFiles() {
    BinlogLag lag = new BinlogLag();
    lag.observe(Optional.empty(), at(90_000), 1_000, OptionalLong.empty());
    lag.observe(
        Optional.of(new BinlogPosition("mysql-bin.000004", 4)),
        Optional.empty(),
        2_000,
        OptionalLong.empty());
    assertThat(lag.completeUpTo()).hasValue(1_000);
  }

  @Test
  void rememberedHeadsAreBounded() {
    BinlogLag lag = new BinlogLag();
    for (int i = 0; i <= BinlogLag.MAX_PENDING_HEADS; i++) {
      lag.observe(at(0), at(1_000 + i), i, OptionalLong.empty());
    }
    // the oldest head went: reaching it now counts from the next one
    lag.observe(at(1_000), Optional.empty(), 0, OptionalLong.empty());
    assertThat(lag.completeUpTo()).isEmpty();
    lag.observe(at(1_001), Optional.empty(), 0, OptionalLong.empty());
    assertThat(lag.completeUpTo()).hasValue(1);
  }
}

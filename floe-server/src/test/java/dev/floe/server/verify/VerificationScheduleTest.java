package dev.floe.server.verify;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class VerificationScheduleTest {

  private static final ZoneId SHANGHAI = ZoneId.of("Asia/Shanghai");
  private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");
  private static final LocalTime HALF_PAST_MIDNIGHT = LocalTime.of(0, 30);

  private static Instant at(String local, ZoneId zone) {
    return java.time.LocalDateTime.parse(local).atZone(zone).toInstant();
  }

  @Test
  void aNewJobWaitsForItsTimeInTheSourcesZone() {
    Instant known = at("2026-11-01T15:00", SHANGHAI);
    Instant next =
        VerificationSchedule.nextRun(HALF_PAST_MIDNIGHT, SHANGHAI, Optional.empty(), known);
    assertThat(next).isEqualTo(at("2026-11-02T00:30", SHANGHAI));
    assertThat(next).isEqualTo(Instant.parse("2026-11-01T16:30:00Z"));
    assertThat(
            VerificationSchedule.due(
                HALF_PAST_MIDNIGHT, SHANGHAI, Optional.empty(), known, next.minusSeconds(1)))
        .isFalse();
    assertThat(
            VerificationSchedule.due(HALF_PAST_MIDNIGHT, SHANGHAI, Optional.empty(), known, next))
        .isTrue();
  }

  @Test
  void afterARunTheNextIsTheNextDay() {
    Instant known = at("2026-10-01T12:00", SHANGHAI);
    Instant ran = at("2026-11-02T00:30", SHANGHAI);
    assertThat(VerificationSchedule.nextRun(HALF_PAST_MIDNIGHT, SHANGHAI, Optional.of(ran), known))
        .isEqualTo(at("2026-11-03T00:30", SHANGHAI));
    // a run started by hand at 10:00 moves nothing but that day's later times
    Instant byHand = at("2026-11-02T10:00", SHANGHAI);
    assertThat(
            VerificationSchedule.nextRun(HALF_PAST_MIDNIGHT, SHANGHAI, Optional.of(byHand), known))
        .isEqualTo(at("2026-11-03T00:30", SHANGHAI));
  }

  @Test
  void missedDaysRunOnceAtOnce() {
    Instant known = at("2026-10-01T12:00", SHANGHAI);
    Instant ran = at("2026-11-02T00:30", SHANGHAI);
    Instant now = at("2026-11-06T09:00", SHANGHAI); // the keeper was down for four days
    Instant next =
        VerificationSchedule.nextRun(HALF_PAST_MIDNIGHT, SHANGHAI, Optional.of(ran), known);
    assertThat(next).isEqualTo(at("2026-11-03T00:30", SHANGHAI)).isBefore(now);
    // once it ran (now), the next is tomorrow's time, not the other missed days
    assertThat(VerificationSchedule.nextRun(HALF_PAST_MIDNIGHT, SHANGHAI, Optional.of(now), known))
        .isEqualTo(at("2026-11-07T00:30", SHANGHAI));
  }

  @Test
  void aTimeInTheSpringGapRunsOnceAfterTheGap() {
    LocalTime halfPastTwo = LocalTime.of(2, 30);
    Instant known = at("2026-03-28T12:00", BERLIN);
    Instant next = VerificationSchedule.nextRun(halfPastTwo, BERLIN, Optional.empty(), known);
    // 2026-03-29 02:00 CET jumps to 03:00 CEST: 02:30 does not exist that night
    assertThat(next.atZone(BERLIN))
        .isEqualTo(ZonedDateTime.parse("2026-03-29T03:30+02:00[Europe/Berlin]"));
    assertThat(VerificationSchedule.nextRun(halfPastTwo, BERLIN, Optional.of(next), known))
        .isEqualTo(at("2026-03-30T02:30", BERLIN));
  }

  @Test
  void aTimeThatOccursTwiceInAutumnRunsOnce() {
    LocalTime halfPastTwo = LocalTime.of(2, 30);
    Instant known = at("2026-10-24T12:00", BERLIN);
    Instant first = VerificationSchedule.nextRun(halfPastTwo, BERLIN, Optional.empty(), known);
    // 2026-10-25 03:00 CEST goes back to 02:00 CET: 02:30 comes twice; the first one runs
    assertThat(first).isEqualTo(Instant.parse("2026-10-25T00:30:00Z"));
    Instant next = VerificationSchedule.nextRun(halfPastTwo, BERLIN, Optional.of(first), known);
    assertThat(next)
        .as("not again at the second 02:30 (01:30Z)")
        .isEqualTo(at("2026-10-26T02:30", BERLIN));
  }
}

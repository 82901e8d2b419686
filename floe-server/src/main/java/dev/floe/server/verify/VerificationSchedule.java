package dev.floe.server.verify;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.Optional;

/**
 * When a scheduled verification runs next: once a day at a wall-clock time in the source's time
 * zone ({@code at: "00:30"}, {@code time-zone}).
 *
 * <p>Rules: the next run is the first daily time after the last run (or after the keeper first saw
 * the job, so a new job waits for its time rather than running at start). A time the keeper missed
 * (it was down) is due at once, and only once however many days were missed. On the day the clocks
 * go forward a time in the gap runs at the same distance after the gap (02:30 in a gap from 02:00
 * to 03:00 runs at 03:30); on the day they go back a time that occurs twice runs at the first. So a
 * job runs exactly once each day.
 *
 * <p>Pure: no clock, no I/O.
 */
public final class VerificationSchedule {

  private VerificationSchedule() {}

  /**
   * @param at the daily time
   * @param zone the source's time zone
   * @param lastRun when the job last started, if ever
   * @param known when the keeper first saw the job (runs never come before it)
   * @return the next run; at or before {@code now} means due now
   */
  public static Instant nextRun(
      LocalTime at, ZoneId zone, Optional<Instant> lastRun, Instant known) {
    requireNonNull(at, "at is null");
    requireNonNull(zone, "zone is null");
    requireNonNull(lastRun, "lastRun is null");
    requireNonNull(known, "known is null");
    Instant after = lastRun.filter(last -> last.isAfter(known)).orElse(known);
    LocalDate day = after.atZone(zone).toLocalDate();
    while (true) {
      Instant candidate = ZonedDateTime.of(day, at, zone).toInstant();
      if (candidate.isAfter(after)) {
        return candidate;
      }
      day = day.plusDays(1);
    }
  }

  /** Whether the job is due: its next run is at or before now. */
  public static boolean due(
      LocalTime at, ZoneId zone, Optional<Instant> lastRun, Instant known, Instant now) {
    return !nextRun(at, zone, lastRun, known).isAfter(now);
  }
}

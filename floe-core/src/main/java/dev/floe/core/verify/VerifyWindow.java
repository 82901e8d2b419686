package dev.floe.core.verify;

import static java.util.Objects.requireNonNull;

import dev.floe.core.error.FloeException;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The content window {@code [start, cutoff)} in the source's wall clock.
 *
 * @param start the window start (cutoff minus the window length)
 * @param cutoff rows with a time at or after it are not compared
 */
public record VerifyWindow(LocalDateTime start, LocalDateTime cutoff) {

  private static final Pattern LENGTH = Pattern.compile("([0-9]{1,6})([dhm])");

  public VerifyWindow {
    requireNonNull(start, "start is null");
    requireNonNull(cutoff, "cutoff is null");
    if (start.isAfter(cutoff)) {
      throw new IllegalArgumentException("start " + start + " is after cutoff " + cutoff);
    }
  }

  /**
   * Parses {@code --cutoff} and {@code --window}.
   *
   * @param cutoffText {@code today}, {@code YYYY-MM-DD} or an ISO date-time {@code
   *     YYYY-MM-DDTHH:MM[:SS[.f]]}
   * @param windowText a length: a number and {@code d}, {@code h} or {@code m}
   * @param sourceToday the current date on the source
   * @throws FloeException BAD_INPUT naming the option and the value
   */
  public static VerifyWindow parse(String cutoffText, String windowText, LocalDate sourceToday) {
    LocalDateTime cutoff = parseCutoff(cutoffText.trim(), sourceToday);
    Duration length = parseLength(windowText.trim());
    return new VerifyWindow(cutoff.minus(length), cutoff);
  }

  static LocalDateTime parseCutoff(String text, LocalDate sourceToday) {
    if (text.equalsIgnoreCase("today")) {
      return sourceToday.atStartOfDay();
    }
    try {
      if (text.length() == 10) {
        return LocalDate.parse(text).atStartOfDay();
      }
      return LocalDateTime.parse(text.replace(' ', 'T'));
    } catch (DateTimeParseException e) {
      throw FloeException.badInput(
          "--cutoff must be today, a date (2026-11-29) or an ISO date-time (2026-11-29T06:00),"
              + " got '"
              + text
              + "'.");
    }
  }

  static Duration parseLength(String text) {
    Matcher matcher = LENGTH.matcher(text);
    if (!matcher.matches() || Long.parseLong(matcher.group(1)) == 0) {
      throw FloeException.badInput(
          "--window must be a length like 7d, 36h or 90m, got '" + text + "'.");
    }
    long amount = Long.parseLong(matcher.group(1));
    switch (matcher.group(2)) {
      case "d":
        return Duration.ofDays(amount);
      case "h":
        return Duration.ofHours(amount);
      default:
        return Duration.ofMinutes(amount);
    }
  }
}

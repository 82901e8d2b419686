package dev.floe.core.maintenance;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Durations as people write them in table properties and options: 500ms, 30s, 15m, 12h, 3d, PT1H.
 */
public final class DurationText {

  private static final Pattern SHORT = Pattern.compile("(\\d+)\\s*(ms|s|m|h|d)");

  private DurationText() {}

  /** The duration, or empty when the text is not one (negative durations are not durations). */
  public static Optional<Duration> parse(String text) {
    String value = text.trim().toLowerCase(Locale.ROOT);
    Matcher matcher = SHORT.matcher(value);
    if (matcher.matches()) {
      long amount;
      try {
        amount = Long.parseLong(matcher.group(1));
      } catch (NumberFormatException e) {
        return Optional.empty();
      }
      return Optional.of(
          switch (matcher.group(2)) {
            case "ms" -> Duration.ofMillis(amount);
            case "s" -> Duration.ofSeconds(amount);
            case "m" -> Duration.ofMinutes(amount);
            case "h" -> Duration.ofHours(amount);
            default -> Duration.ofDays(amount);
          });
    }
    if (value.startsWith("p")) {
      try {
        Duration duration = Duration.parse(value.toUpperCase(Locale.ROOT));
        return duration.isNegative() ? Optional.empty() : Optional.of(duration);
      } catch (DateTimeParseException e) {
        return Optional.empty();
      }
    }
    return Optional.empty();
  }

  /** The shortest exact spelling: 3d, 12h, 90m, 45s, 250ms. */
  public static String format(Duration duration) {
    long millis = duration.toMillis();
    if (millis != 0 && millis % Duration.ofDays(1).toMillis() == 0) {
      return duration.toDays() + "d";
    }
    if (millis != 0 && millis % Duration.ofHours(1).toMillis() == 0) {
      return duration.toHours() + "h";
    }
    if (millis != 0 && millis % Duration.ofMinutes(1).toMillis() == 0) {
      return duration.toMinutes() + "m";
    }
    if (millis % 1000 == 0) {
      return duration.toSeconds() + "s";
    }
    return millis + "ms";
  }
}

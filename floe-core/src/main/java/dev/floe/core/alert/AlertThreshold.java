package dev.floe.core.alert;

import static java.util.Objects.requireNonNull;

import dev.floe.core.maintenance.DurationText;
import java.time.Duration;
import java.util.Optional;

/**
 * One threshold of an {@link AlertRule}: its key (as written under {@code keeper.alerts.rules.RULE}
 * and in the table property {@code floe.keeper.alert.RULE.KEY}), what it takes and its default.
 * Values are held as a long: a number, or a duration in milliseconds.
 *
 * @param minimum the smallest value allowed (milliseconds for a duration)
 * @param maximum the largest value allowed
 */
public record AlertThreshold(
    String key, Type type, long defaultValue, long minimum, long maximum, String description) {

  /** What a threshold takes. */
  public enum Type {
    NUMBER,
    DURATION
  }

  public AlertThreshold {
    requireNonNull(key, "key is null");
    requireNonNull(type, "type is null");
    requireNonNull(description, "description is null");
  }

  static AlertThreshold number(
      String key, long defaultValue, long minimum, long maximum, String description) {
    return new AlertThreshold(key, Type.NUMBER, defaultValue, minimum, maximum, description);
  }

  static AlertThreshold duration(String key, Duration defaultValue, String description) {
    return new AlertThreshold(
        key, Type.DURATION, defaultValue.toMillis(), 1000, Long.MAX_VALUE, description);
  }

  /** The value written as text (a number, or a duration such as 30m), empty when not valid. */
  public Optional<Long> parse(String text) {
    Optional<Long> value;
    if (type == Type.NUMBER) {
      try {
        value = Optional.of(Long.parseLong(text.trim()));
      } catch (NumberFormatException e) {
        value = Optional.empty();
      }
    } else {
      value = DurationText.parse(text).map(Duration::toMillis);
    }
    return value.filter(number -> number >= minimum && number <= maximum);
  }

  /** What values it takes, for messages and the reference. */
  public String range() {
    if (type == Type.DURATION) {
      return "a duration of at least 1s such as 90s, 30m or 2h";
    }
    return maximum == Long.MAX_VALUE
        ? "a whole number of at least " + minimum
        : "a whole number from " + minimum + " to " + maximum;
  }

  /** The default as a user writes it. */
  public String defaultText() {
    return type == Type.DURATION
        ? DurationText.format(Duration.ofMillis(defaultValue))
        : Long.toString(defaultValue);
  }
}

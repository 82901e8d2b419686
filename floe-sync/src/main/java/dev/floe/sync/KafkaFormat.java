package dev.floe.sync;

import dev.floe.core.error.FloeException;
import java.time.ZoneId;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** The message formats {@code floe sync --source kafka://...} reads ({@code --format}). */
public enum KafkaFormat {
  CANAL_JSON("canal-json"),
  DEBEZIUM_JSON("debezium-json"),
  MAXWELL_JSON("maxwell-json"),
  /** Plain JSON objects, one row each, into one table ({@code --target}, {@code --key}). */
  JSON("json");

  private final String option;

  KafkaFormat(String option) {
    this.option = option;
  }

  /** The name {@code --format} takes. */
  public String option() {
    return option;
  }

  /**
   * The format {@code --format} names.
   *
   * @throws FloeException BAD_INPUT for an unknown name, listing the known ones
   */
  public static KafkaFormat parse(String name) {
    for (KafkaFormat format : values()) {
      if (format.option.equals(name.trim().toLowerCase(Locale.ROOT))) {
        return format;
      }
    }
    throw FloeException.badInput(
        "--format "
            + name
            + " is not a format Floe reads from Kafka. Use one of: "
            + Arrays.stream(values()).map(KafkaFormat::option).collect(Collectors.joining(", "))
            + ".");
  }

  /**
   * The decoder of this format.
   *
   * @param serverTimeZone the MySQL server's time zone, for formats that carry TIMESTAMP values as
   *     the server's wall-clock text (Canal)
   */
  KafkaMessageDecoder decoder(ZoneId serverTimeZone) {
    return switch (this) {
      case CANAL_JSON -> new CanalJsonDecoder(serverTimeZone);
      case DEBEZIUM_JSON -> new DebeziumJsonDecoder();
      case MAXWELL_JSON -> new MaxwellJsonDecoder(serverTimeZone);
      case JSON ->
          throw new IllegalStateException("plain JSON needs its target: use plainJson(...)");
    };
  }
}

package dev.floe.sync;

import java.io.Serializable;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.kafka.connect.data.Schema;

/**
 * Turns one Debezium column value (Kafka Connect representation, with Debezium's logical types)
 * into the Java value Iceberg's generic writers take for the column's Iceberg type.
 */
final class ValueConverter implements Serializable {

  private static final long serialVersionUID = 1L;
  private static final long MICROS_PER_DAY = 86_400_000_000L;

  private final String table;
  private final String column;
  private final Type type;

  ValueConverter(String table, String column, Type type) {
    this.table = table;
    this.column = column;
    this.type = type;
  }

  /** Converts; {@code schema} is the Debezium field schema (its name tells the logical type). */
  Object convert(Object value, Schema schema) {
    if (value == null) {
      return null;
    }
    String logical = schema == null || schema.name() == null ? "" : schema.name();
    return switch (type.typeId()) {
      case BOOLEAN -> value instanceof Boolean bool ? bool : ((Number) value).intValue() != 0;
      case INTEGER -> ((Number) value).intValue();
      case LONG -> ((Number) value).longValue();
      case FLOAT -> ((Number) value).floatValue();
      case DOUBLE -> ((Number) value).doubleValue();
      case DECIMAL -> decimal(value);
      case STRING ->
          value instanceof BigDecimal decimal ? decimal.toPlainString() : value.toString();
      case BINARY -> binary(value, logical);
      case DATE -> LocalDate.ofEpochDay(((Number) value).longValue());
      case TIME -> time(value, logical);
      case TIMESTAMP ->
          ((Types.TimestampType) type).shouldAdjustToUTC() ? zoned(value) : local(value, logical);
      default ->
          throw new IllegalStateException("unexpected Iceberg type " + type + " for " + where());
    };
  }

  private BigDecimal decimal(Object value) {
    BigDecimal decimal = value instanceof BigDecimal big ? big : new BigDecimal(value.toString());
    return decimal.setScale(((Types.DecimalType) type).scale(), java.math.RoundingMode.UNNECESSARY);
  }

  private static ByteBuffer binary(Object value, String logical) {
    byte[] bytes;
    if (value instanceof ByteBuffer buffer) {
      ByteBuffer copy = buffer.duplicate();
      bytes = new byte[copy.remaining()];
      copy.get(bytes);
    } else if (value instanceof byte[] array) {
      bytes = array.clone();
    } else {
      bytes = value.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }
    if (logical.equals("io.debezium.data.Bits")) {
      // Debezium hands BIT(n) over little-endian; store the big-endian bytes MySQL shows.
      for (int i = 0, j = bytes.length - 1; i < j; i++, j--) {
        byte swap = bytes[i];
        bytes[i] = bytes[j];
        bytes[j] = swap;
      }
    }
    return ByteBuffer.wrap(bytes);
  }

  private LocalTime time(Object value, String logical) {
    long micros =
        switch (logical) {
          case "io.debezium.time.Time" -> ((Number) value).longValue() * 1000;
          case "io.debezium.time.NanoTime" -> ((Number) value).longValue() / 1000;
          default -> ((Number) value).longValue();
        };
    if (micros < 0 || micros >= MICROS_PER_DAY) {
      throw new IllegalArgumentException(
          "Table "
              + table
              + " column "
              + column
              + " holds the TIME value "
              + timeText(micros)
              + ", outside 00:00:00-23:59:59, which an Iceberg time cannot hold. Exclude the"
              + " table or keep TIME values within a day.");
    }
    return LocalTime.ofNanoOfDay(micros * 1000);
  }

  /** MySQL's own rendering of a TIME value: {@code [-]H:MM:SS[.ffffff]}. */
  static String timeText(long micros) {
    long magnitude = Math.abs(micros);
    long seconds = magnitude / 1_000_000;
    long fraction = magnitude % 1_000_000;
    return String.format(
        java.util.Locale.ROOT,
        "%s%02d:%02d:%02d%s",
        micros < 0 ? "-" : "",
        seconds / 3600,
        seconds / 60 % 60,
        seconds % 60,
        fraction == 0 ? "" : String.format(java.util.Locale.ROOT, ".%06d", fraction));
  }

  private static long micros(Object value, String logical) {
    long number = ((Number) value).longValue();
    return switch (logical) {
      case "io.debezium.time.Timestamp" -> number * 1000;
      case "io.debezium.time.NanoTimestamp" -> number / 1000;
      default -> number;
    };
  }

  /** Debezium gives DATETIME as the epoch count of its wall-clock value read as UTC. */
  private static LocalDateTime local(Object value, String logical) {
    long micros = micros(value, logical);
    return LocalDateTime.ofEpochSecond(
        Math.floorDiv(micros, 1_000_000L),
        (int) Math.floorMod(micros, 1_000_000L) * 1000,
        ZoneOffset.UTC);
  }

  private static OffsetDateTime zoned(Object value) {
    if (value instanceof String text) {
      return OffsetDateTime.parse(text, DateTimeFormatter.ISO_OFFSET_DATE_TIME)
          .withOffsetSameInstant(ZoneOffset.UTC);
    }
    long millis = ((Number) value).longValue();
    return OffsetDateTime.ofInstant(Instant.ofEpochMilli(millis), ZoneOffset.UTC);
  }

  private String where() {
    return table + "." + column;
  }
}

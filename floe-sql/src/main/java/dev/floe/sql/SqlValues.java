package dev.floe.sql;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.temporal.ChronoField;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.apache.flink.types.Row;

/**
 * How one value reads as text, the same in every output format: timestamps as {@code 2026-11-03
 * 08:00:00.5} (fraction only when there is one), timestamps with a time zone in UTC with a {@code
 * Z}, decimals without exponent, bytes as {@code 0x0a0b}, arrays as {@code [1, 2]}, maps as {@code
 * {k=v}}, rows as {@code (a, b)}. SQL NULL has no text here: each format shows it its own way.
 */
final class SqlValues {

  private static final DateTimeFormatter TIME =
      new DateTimeFormatterBuilder()
          .appendPattern("HH:mm:ss")
          .appendFraction(ChronoField.NANO_OF_SECOND, 0, 9, true)
          .toFormatter();

  private static final DateTimeFormatter TIMESTAMP =
      new DateTimeFormatterBuilder()
          .append(DateTimeFormatter.ISO_LOCAL_DATE)
          .appendLiteral(' ')
          .append(TIME)
          .toFormatter();

  private SqlValues() {}

  /** The text of a non-null value. */
  static String text(Object value) {
    if (value instanceof String string) {
      return string;
    }
    if (value instanceof BigDecimal decimal) {
      return decimal.toPlainString();
    }
    if (value instanceof LocalDateTime timestamp) {
      return TIMESTAMP.format(timestamp);
    }
    if (value instanceof Instant instant) {
      return TIMESTAMP.format(instant.atOffset(ZoneOffset.UTC)) + "Z";
    }
    if (value instanceof OffsetDateTime timestamp) {
      return text(timestamp.toInstant());
    }
    if (value instanceof LocalDate date) {
      return DateTimeFormatter.ISO_LOCAL_DATE.format(date);
    }
    if (value instanceof LocalTime time) {
      return TIME.format(time);
    }
    if (value instanceof byte[] bytes) {
      return "0x" + HexFormat.of().formatHex(bytes);
    }
    if (value instanceof Object[] array) {
      List<String> elements = new ArrayList<>();
      for (Object element : array) {
        elements.add(nullable(element));
      }
      return "[" + String.join(", ", elements) + "]";
    }
    if (value instanceof Map<?, ?> map) {
      List<String> entries = new ArrayList<>();
      for (Map.Entry<?, ?> entry : map.entrySet()) {
        entries.add(nullable(entry.getKey()) + "=" + nullable(entry.getValue()));
      }
      return "{" + String.join(", ", entries) + "}";
    }
    if (value instanceof Row row) {
      List<String> fields = new ArrayList<>();
      java.util.Set<String> names = row.getFieldNames(true);
      if (names == null) {
        for (int i = 0; i < row.getArity(); i++) {
          fields.add(nullable(row.getField(i)));
        }
      } else {
        for (String name : names) {
          fields.add(nullable(row.getField(name)));
        }
      }
      return "(" + String.join(", ", fields) + ")";
    }
    return String.valueOf(value);
  }

  private static String nullable(Object value) {
    return value == null ? "NULL" : text(value);
  }
}

package dev.floe.sync;

import com.fasterxml.jackson.databind.JsonNode;
import dev.floe.core.sync.SourceColumn;
import dev.floe.core.sync.SourceTable;
import dev.floe.core.sync.TypeMapping;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoField;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * MySQL types and values as the JSON CDC formats carry them, turned into {@link SourceColumn}s and
 * the Java values Iceberg's generic writers take for the column's Iceberg type ({@link
 * TypeMapping}): the same meaning the MySQL sync gives them. Static and pure.
 *
 * <p>Every method throws {@link IllegalArgumentException} with a message naming the column and the
 * value for a value its type cannot hold; decoders turn that into a rejection.
 */
final class KafkaValues {

  private static final Pattern TYPE =
      Pattern.compile("\\s*([a-zA-Z]+)\\s*(?:\\(\\s*(\\d+)\\s*(?:,\\s*(\\d+)\\s*)?\\))?(.*)");

  /** MySQL's DATETIME/TIMESTAMP text: {@code yyyy-MM-dd HH:mm:ss[.f...]} (or with a T). */
  private static final DateTimeFormatter DATE_TIME =
      new DateTimeFormatterBuilder()
          .appendPattern("yyyy-MM-dd")
          .optionalStart()
          .appendLiteral(' ')
          .optionalEnd()
          .optionalStart()
          .appendLiteral('T')
          .optionalEnd()
          .appendPattern("HH:mm:ss")
          .optionalStart()
          .appendFraction(ChronoField.NANO_OF_SECOND, 0, 9, true)
          .optionalEnd()
          .toFormatter(Locale.ROOT);

  private KafkaValues() {}

  /**
   * A column from a MySQL column type as written in DDL ({@code bigint(20) unsigned}, {@code
   * decimal(10,2)}, {@code datetime(3)}, {@code varchar(64)}), e.g. Canal's {@code mysqlType}.
   *
   * @throws IllegalArgumentException for text that is no MySQL type
   */
  static SourceColumn column(String name, String mysqlType, boolean nullable) {
    Matcher matcher = TYPE.matcher(mysqlType);
    if (!matcher.matches()) {
      throw new IllegalArgumentException(
          "column " + name + " has the type '" + mysqlType + "', which is no MySQL type");
    }
    String dataType = matcher.group(1).trim().toLowerCase(Locale.ROOT);
    int first = matcher.group(2) == null ? 0 : Integer.parseInt(matcher.group(2));
    int second = matcher.group(3) == null ? 0 : Integer.parseInt(matcher.group(3));
    int precision;
    int scale;
    switch (dataType) {
      case "decimal", "numeric", "dec", "fixed" -> {
        precision = matcher.group(2) == null ? 10 : first;
        scale = second;
      }
      case "bit" -> {
        precision = matcher.group(2) == null ? 1 : first;
        scale = 0;
      }
      case "datetime", "timestamp", "time" -> {
        precision = 0;
        scale = first;
      }
      default -> {
        precision = 0;
        scale = 0;
      }
    }
    return new SourceColumn(
        name, dataType, mysqlType.trim().toLowerCase(Locale.ROOT), nullable, precision, scale);
  }

  /**
   * The column a JSON value suggests, for formats that carry no types: an integral number is a
   * {@code bigint}, any other number a {@code double}, a boolean a {@code bit(1)} (Iceberg
   * boolean), an object or array {@code json}, anything else {@code text}. Null for a JSON null:
   * its type is not known yet.
   */
  static SourceColumn inferred(String name, JsonNode value, boolean key) {
    if (value == null || value.isNull()) {
      return null;
    }
    String type;
    if (value.isIntegralNumber()) {
      type = "bigint";
    } else if (value.isNumber()) {
      type = "double";
    } else if (value.isBoolean()) {
      type = "bit(1)";
    } else if (value.isContainerNode()) {
      type = "json";
    } else {
      type = "text";
    }
    return column(name, type, !key);
  }

  /**
   * The Iceberg value of a JSON value of this column: text is read as MySQL writes the column's
   * values as text (Canal sends every value so; Maxwell temporal values), numbers and booleans as
   * they are. Null for a JSON null (or absent value).
   *
   * @param serverTimeZone the zone TIMESTAMP text is in
   */
  static Object value(
      SourceTable table, SourceColumn column, JsonNode value, ZoneId serverTimeZone) {
    if (value == null || value.isNull()) {
      return null;
    }
    Type type = icebergType(table, column);
    try {
      if (value.isContainerNode()) {
        if (type.typeId() != Type.TypeID.STRING) {
          throw new IllegalArgumentException("a JSON " + value.getNodeType().name().toLowerCase());
        }
        return value.toString();
      }
      if (value.isBoolean()) {
        return switch (type.typeId()) {
          case BOOLEAN -> value.booleanValue();
          case INTEGER -> value.booleanValue() ? 1 : 0;
          case LONG -> value.booleanValue() ? 1L : 0L;
          case STRING -> Boolean.toString(value.booleanValue());
          default -> throw new IllegalArgumentException("a boolean");
        };
      }
      return text(table, column, type, value.asText(), serverTimeZone);
    } catch (NumberFormatException notANumber) {
      throw new IllegalArgumentException(
          "column "
              + column.name()
              + " ("
              + column.columnType()
              + ") cannot hold the value "
              + abbreviated(value.toString())
              + ": not a number",
          notANumber);
    } catch (IllegalArgumentException | ArithmeticException | DateTimeParseException wrong) {
      throw new IllegalArgumentException(
          "column "
              + column.name()
              + " ("
              + column.columnType()
              + ") cannot hold the value "
              + abbreviated(value.toString())
              + (wrong.getMessage() == null ? "" : ": " + wrong.getMessage()),
          wrong);
    }
  }

  /**
   * The column's Iceberg type ({@link TypeMapping}).
   *
   * @throws IllegalArgumentException for a type Floe cannot sync (spatial types)
   */
  static Type icebergType(SourceTable table, SourceColumn column) {
    try {
      return TypeMapping.icebergType(table, column);
    } catch (dev.floe.core.error.FloeException cannotSync) {
      throw new IllegalArgumentException(
          "column "
              + column.name()
              + " has the type "
              + column.columnType()
              + ", which Floe cannot sync",
          cannotSync);
    }
  }

  private static Object text(
      SourceTable table, SourceColumn column, Type type, String text, ZoneId serverTimeZone) {
    return switch (type.typeId()) {
      case BOOLEAN -> bit(text);
      case INTEGER -> Math.toIntExact(integral(text));
      case LONG -> integral(text);
      case FLOAT -> Float.parseFloat(text);
      case DOUBLE -> Double.parseDouble(text);
      case DECIMAL ->
          new BigDecimal(text.trim())
              .setScale(((Types.DecimalType) type).scale(), RoundingMode.UNNECESSARY);
      case STRING -> text;
      case BINARY ->
          column.dataType().equals("bit")
              ? bits(text, column.precision())
              // Canal writes binary values as ISO-8859-1 text: one char per byte
              : ByteBuffer.wrap(text.getBytes(StandardCharsets.ISO_8859_1));
      case DATE -> zeroDate(text) ? null : LocalDate.parse(text.trim());
      case TIME -> time(text);
      case TIMESTAMP -> {
        if (zeroDate(text)) {
          yield null;
        }
        LocalDateTime local = LocalDateTime.parse(text.trim(), DATE_TIME);
        yield ((Types.TimestampType) type).shouldAdjustToUTC()
            ? local.atZone(serverTimeZone).toOffsetDateTime().withOffsetSameInstant(ZoneOffset.UTC)
            : local;
      }
      default ->
          throw new IllegalStateException(
              "unexpected Iceberg type " + type + " for " + table.qualifiedName());
    };
  }

  /** An integral value; MySQL writes BOOL and YEAR as numbers too. */
  private static long integral(String text) {
    String trimmed = text.trim();
    try {
      return Long.parseLong(trimmed);
    } catch (NumberFormatException notLong) {
      // "1.0" from a JSON number written with a fraction
      return new BigDecimal(trimmed).longValueExact();
    }
  }

  private static boolean bit(String text) {
    return switch (text.trim().toLowerCase(Locale.ROOT)) {
      case "1", "true", "b'1'" -> true;
      case "0", "false", "b'0'" -> false;
      default -> throw new IllegalArgumentException("not a BIT(1) value");
    };
  }

  /** BIT(n) written as its number: the big-endian bytes MySQL shows ((n + 7) / 8 of them). */
  private static ByteBuffer bits(String text, int length) {
    long number = Long.parseUnsignedLong(text.trim());
    byte[] bytes = new byte[(Math.max(1, length) + 7) / 8];
    for (int i = bytes.length - 1; i >= 0; i--) {
      bytes[i] = (byte) number;
      number >>>= 8;
    }
    return ByteBuffer.wrap(bytes);
  }

  private static LocalTime time(String text) {
    String trimmed = text.trim();
    if (trimmed.startsWith("-") || trimmed.indexOf(':') > 2 || trimmed.indexOf(':') < 0) {
      throw new IllegalArgumentException(
          "outside 00:00:00-23:59:59, which an Iceberg time cannot hold");
    }
    LocalTime time = LocalTime.parse(trimmed.length() == 7 ? "0" + trimmed : trimmed);
    return time;
  }

  private static boolean zeroDate(String text) {
    return text.trim().startsWith("0000-00-00");
  }

  static String abbreviated(String text) {
    return text.length() <= 100
        ? text
        : text.substring(0, 100) + "... (" + text.length() + " chars)";
  }
}

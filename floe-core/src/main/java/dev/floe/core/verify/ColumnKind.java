package dev.floe.core.verify;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Optional;

/**
 * How a MySQL column is normalized to text for comparison: the SQL expression MySQL evaluates and
 * the Java conversion of the Iceberg value produce the same text for the same value (see
 * docs/verify.md, "Normalization").
 */
public enum ColumnKind {
  /** TINYINT..BIGINT (signed or unsigned), YEAR: a decimal integer. */
  INTEGER,
  /** BIT(n): an unsigned decimal integer. */
  BIT,
  /** DECIMAL(p,s): plain text with exactly s fraction digits. */
  DECIMAL,
  /** FLOAT, DOUBLE: the value as a double in the server's text form. */
  FLOATING,
  /** DATE: YYYY-MM-DD. */
  DATE,
  /** DATETIME: YYYY-MM-DD HH:MM:SS.ffffff, wall clock. */
  DATETIME,
  /** TIMESTAMP: YYYY-MM-DD HH:MM:SS.ffffff in UTC. */
  TIMESTAMP,
  /** TIME: HH:MM:SS.ffffff. */
  TIME,
  /** CHAR, VARCHAR, TEXT, ENUM, SET, JSON: utf8mb4 text, length-prefixed. */
  STRING,
  /** BINARY, VARBINARY, BLOB: lowercase hex. */
  BINARY;

  private static final DateTimeFormatter DATE_TIME =
      DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss.SSSSSS", Locale.ROOT);
  private static final DateTimeFormatter TIME_OF_DAY =
      DateTimeFormatter.ofPattern("HH:mm:ss.SSSSSS", Locale.ROOT);

  /**
   * The kind of a MySQL column, from {@code information_schema.COLUMNS}.
   *
   * @param dataType DATA_TYPE, e.g. {@code int}
   * @param columnType COLUMN_TYPE, e.g. {@code int(10) unsigned}
   * @return empty for a type verify does not support (spatial types)
   */
  public static Optional<ColumnKind> ofMySqlType(String dataType, String columnType) {
    switch (dataType.toLowerCase(Locale.ROOT)) {
      case "tinyint":
      case "smallint":
      case "mediumint":
      case "int":
      case "integer":
      case "bigint":
      case "year":
        return Optional.of(INTEGER);
      case "bit":
        return Optional.of(BIT);
      case "decimal":
      case "numeric":
        return Optional.of(DECIMAL);
      case "float":
      case "double":
      case "real":
        return Optional.of(FLOATING);
      case "date":
        return Optional.of(DATE);
      case "datetime":
        return Optional.of(DATETIME);
      case "timestamp":
        return Optional.of(TIMESTAMP);
      case "time":
        return Optional.of(TIME);
      case "char":
      case "varchar":
      case "tinytext":
      case "text":
      case "mediumtext":
      case "longtext":
      case "enum":
      case "set":
      case "json":
        return Optional.of(STRING);
      case "binary":
      case "varbinary":
      case "tinyblob":
      case "blob":
      case "mediumblob":
      case "longblob":
        return Optional.of(BINARY);
      default:
        return Optional.empty();
    }
  }

  /** Whether a key column of this kind can be sliced (its MySQL and Iceberg orders agree). */
  public boolean sliceable() {
    return this == INTEGER || this == DECIMAL || this == DATE || this == DATETIME;
  }

  /** Whether a value of this kind is a JSON number in reports. */
  public boolean numeric() {
    return this == INTEGER || this == BIT || this == DECIMAL;
  }

  /**
   * The SQL expression MySQL evaluates to this kind's text of a column (NULL stays NULL). The
   * connection must use {@code time_zone = '+00:00'}.
   */
  public String sqlText(String quotedColumn) {
    switch (this) {
      case INTEGER:
      case DECIMAL:
        return "CAST(" + quotedColumn + " AS CHAR)";
      case BIT:
        return "CAST(CAST(" + quotedColumn + " AS UNSIGNED) AS CHAR)";
      case FLOATING:
        return "CAST(CAST(" + quotedColumn + " AS DOUBLE) AS CHAR)";
      case DATE:
        return "DATE_FORMAT(" + quotedColumn + ", '%Y-%m-%d')";
      case DATETIME:
      case TIMESTAMP:
        return "DATE_FORMAT(" + quotedColumn + ", '%Y-%m-%d %H:%i:%s.%f')";
      case TIME:
        return "TIME_FORMAT(" + quotedColumn + ", '%H:%i:%s.%f')";
      case STRING:
        return "CONVERT(" + quotedColumn + " USING utf8mb4)";
      case BINARY:
        return "LOWER(HEX(" + quotedColumn + "))";
      default:
        throw new AssertionError(this);
    }
  }

  /**
   * This kind's text of a value read from Iceberg (or JDBC): the same text {@link #sqlText} gives
   * in MySQL for the same value.
   *
   * @param value a non-null value as Iceberg's generic reader returns it
   * @param scale the MySQL column's decimal scale (used by DECIMAL only)
   * @throws IllegalArgumentException for a value this kind cannot hold
   */
  public String text(Object value, int scale) {
    switch (this) {
      case INTEGER:
      case BIT:
        return integerText(value);
      case DECIMAL:
        return decimalText(value, scale);
      case FLOATING:
        if (value instanceof Float f) {
          return DoubleText.format(f.doubleValue());
        }
        if (value instanceof Number n) {
          return DoubleText.format(n.doubleValue());
        }
        break;
      case DATE:
        if (value instanceof LocalDate date) {
          return date.toString();
        }
        if (value instanceof LocalDateTime dateTime) {
          return dateTime.toLocalDate().toString();
        }
        break;
      case DATETIME:
      case TIMESTAMP:
        if (value instanceof LocalDateTime dateTime) {
          return DATE_TIME.format(dateTime);
        }
        if (value instanceof OffsetDateTime offsetDateTime) {
          return DATE_TIME.format(
              offsetDateTime.withOffsetSameInstant(ZoneOffset.UTC).toLocalDateTime());
        }
        if (value instanceof LocalDate date) {
          return DATE_TIME.format(date.atStartOfDay());
        }
        break;
      case TIME:
        if (value instanceof LocalTime time) {
          return TIME_OF_DAY.format(time);
        }
        break;
      case STRING:
        if (value instanceof CharSequence text) {
          return text.toString();
        }
        break;
      case BINARY:
        if (value instanceof ByteBuffer buffer) {
          ByteBuffer copy = buffer.duplicate();
          byte[] bytes = new byte[copy.remaining()];
          copy.get(bytes);
          return HexFormat.of().formatHex(bytes);
        }
        if (value instanceof byte[] bytes) {
          return HexFormat.of().formatHex(bytes);
        }
        break;
      default:
        break;
    }
    throw new IllegalArgumentException(
        "a " + value.getClass().getSimpleName() + " cannot be compared as " + this);
  }

  private static String integerText(Object value) {
    if (value instanceof Boolean bool) {
      return bool ? "1" : "0";
    }
    if (value instanceof Integer || value instanceof Long || value instanceof Short) {
      return value.toString();
    }
    if (value instanceof BigInteger integer) {
      return integer.toString();
    }
    if (value instanceof BigDecimal decimal) {
      return decimal.stripTrailingZeros().toPlainString();
    }
    if (value instanceof ByteBuffer || value instanceof byte[]) {
      String hex = BINARY.text(value, 0);
      return hex.isEmpty() ? "0" : new BigInteger(hex, 16).toString();
    }
    throw new IllegalArgumentException(
        "a " + value.getClass().getSimpleName() + " cannot be compared as an integer");
  }

  private static String decimalText(Object value, int scale) {
    BigDecimal decimal;
    if (value instanceof BigDecimal d) {
      decimal = d;
    } else if (value instanceof Integer || value instanceof Long) {
      decimal = BigDecimal.valueOf(((Number) value).longValue());
    } else if (value instanceof CharSequence text) {
      // DECIMAL(p > 38, s) is a string in the lake
      try {
        decimal = new BigDecimal(text.toString());
      } catch (NumberFormatException e) {
        return text.toString();
      }
    } else {
      throw new IllegalArgumentException(
          "a " + value.getClass().getSimpleName() + " cannot be compared as a decimal");
    }
    try {
      return decimal.setScale(scale, RoundingMode.UNNECESSARY).toPlainString();
    } catch (ArithmeticException e) {
      return decimal.toPlainString();
    }
  }
}

package dev.floe.sync;

import dev.floe.core.error.FloeException;
import dev.floe.core.sync.SourceColumn;
import dev.floe.core.sync.SourceTable;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.temporal.ChronoField;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.ByteBuffers;

/**
 * How the snapshot copier reads a MySQL table through JDBC: the select list, and one reader per
 * column that yields exactly the value the binlog path ({@link ValueConverter}) produces for the
 * same MySQL value, so a row reads the same whichever phase delivered it.
 *
 * <p>Temporal columns are selected as text ({@code CAST(c AS CHAR)}) on a session in UTC: the
 * server's own rendering, with no driver time-zone conversion in between. TIMESTAMP text is then
 * UTC; DATETIME, DATE and TIME text is the stored wall-clock value.
 *
 * <p>Values come in one of two representations: Iceberg's generic one ({@code LocalDate}, {@code
 * LocalDateTime}, {@code OffsetDateTime}, {@code LocalTime}), which its generic writers and the key
 * bounds take, or its internal one ({@link #internal}: a date as {@code Integer} days, a time or
 * timestamp as {@code Long} microseconds), which its {@code InternalWriter} and {@code
 * PartitionKey} take. The internal one is parsed straight from the server's text bytes, with no
 * object per temporal value: the copy reads millions of them.
 */
final class SnapshotColumns {

  private static final long MICROS_PER_DAY = 86_400_000_000L;
  private static final DateTimeFormatter DATE_TIME =
      new DateTimeFormatterBuilder()
          .appendPattern("uuuu-MM-dd HH:mm:ss")
          .optionalStart()
          .appendFraction(ChronoField.NANO_OF_SECOND, 0, 9, true)
          .optionalEnd()
          .toFormatter();

  /** Reads one column of the current row. */
  @FunctionalInterface
  interface ColumnReader {
    Object read(ResultSet row, int index) throws SQLException;
  }

  private final SourceTable table;
  private final Schema schema;
  private final boolean internal;
  private final List<String> selectList = new ArrayList<>();
  private final ColumnReader[] readers;
  private final int[] keyPositions;

  /** Readers of Iceberg's generic values. */
  SnapshotColumns(SourceTable table, Schema schema) {
    this(table, schema, false);
  }

  /**
   * Readers of Iceberg's generic values, or of its internal ones.
   *
   * @param internal whether {@link #read} yields Iceberg's internal representation
   */
  SnapshotColumns(SourceTable table, Schema schema, boolean internal) {
    this.table = table;
    this.schema = schema;
    this.internal = internal;
    List<SourceColumn> columns = table.columns();
    this.readers = new ColumnReader[columns.size()];
    for (int i = 0; i < columns.size(); i++) {
      SourceColumn column = columns.get(i);
      Types.NestedField field = schema.caseInsensitiveFindField(column.name());
      selectList.add(selectExpression(column));
      readers[i] = reader(column, field);
    }
    this.keyPositions =
        table.primaryKey().stream()
            .mapToInt(
                name ->
                    java.util.stream.IntStream.range(0, columns.size())
                        .filter(i -> columns.get(i).name().equals(name))
                        .findFirst()
                        .orElseThrow())
            .toArray();
  }

  /** The select list, in the table's column order. */
  String selectList() {
    return String.join(", ", selectList);
  }

  /** The quoted primary-key columns, comma separated, for ORDER BY. */
  String keyList() {
    return String.join(", ", table.primaryKey().stream().map(SnapshotColumns::quote).toList());
  }

  Schema schema() {
    return schema;
  }

  /** Whether {@link #read} yields Iceberg's internal representation. */
  boolean internal() {
    return internal;
  }

  /** Reads the current row into {@code values} (the Iceberg values, in column order). */
  void read(ResultSet row, Object[] values) throws SQLException {
    for (int i = 0; i < readers.length; i++) {
      values[i] = readers[i].read(row, i + 1);
    }
  }

  /** The primary-key values of a row read by {@link #read}. */
  Object[] key(Object[] values) {
    Object[] key = new Object[keyPositions.length];
    for (int i = 0; i < key.length; i++) {
      key[i] = values[keyPositions[i]];
    }
    return key;
  }

  /**
   * A condition "key after {@code ?...}" in keyset form, index-friendly for composite keys: {@code
   * a > ? OR (a = ? AND b > ?)}. Its parameters are bound by {@link #bindAfter}.
   */
  String afterCondition() {
    return keysetCondition(" > ?)", " > ?)");
  }

  /**
   * A condition "key at or before {@code ?...}", the complement of {@link #afterCondition} with the
   * same parameters: {@code a < ? OR (a = ? AND b <= ?)}.
   */
  String atOrBeforeCondition() {
    return keysetCondition(" < ?)", " <= ?)");
  }

  /** {@code (k1 OP ?) OR (k1 = ? AND k2 OP ?) ...}, the last key column taking {@code last}. */
  private String keysetCondition(String earlier, String last) {
    List<String> key = table.primaryKey().stream().map(SnapshotColumns::quote).toList();
    List<String> alternatives = new ArrayList<>();
    for (int i = 0; i < key.size(); i++) {
      StringBuilder alternative = new StringBuilder("(");
      for (int j = 0; j < i; j++) {
        alternative.append(key.get(j)).append(" = ? AND ");
      }
      alternative.append(key.get(i)).append(i == key.size() - 1 ? last : earlier);
      alternatives.add(alternative.toString());
    }
    return "(" + String.join(" OR ", alternatives) + ")";
  }

  /** Readers of the primary-key columns only, in key order, in the generic representation. */
  SnapshotColumns keyColumns() {
    List<SourceColumn> keyColumns =
        table.primaryKey().stream()
            .map(
                name ->
                    table.columns().stream()
                        .filter(column -> column.name().equals(name))
                        .findFirst()
                        .orElseThrow())
            .toList();
    return new SnapshotColumns(
        new SourceTable(table.database(), table.table(), keyColumns, table.primaryKey()), schema);
  }

  /** Binds {@link #afterCondition}'s parameters from {@code first}; returns the next index. */
  int bindAfter(PreparedStatement statement, int first, Object[] key) throws SQLException {
    int index = first;
    for (int i = 0; i < key.length; i++) {
      for (int j = 0; j <= i; j++) {
        bind(statement, index++, key[j]);
      }
    }
    return index;
  }

  private static void bind(PreparedStatement statement, int index, Object value)
      throws SQLException {
    if (value instanceof Integer number) {
      statement.setInt(index, number);
    } else if (value instanceof Long number) {
      statement.setLong(index, number);
    } else if (value instanceof BigDecimal decimal) {
      statement.setBigDecimal(index, decimal);
    } else if (value instanceof ByteBuffer buffer) {
      statement.setBytes(index, ByteBuffers.toByteArray(buffer));
    } else if (value instanceof LocalDateTime dateTime) {
      statement.setString(index, dateTime.toString().replace('T', ' '));
    } else if (value instanceof OffsetDateTime instant) {
      // the session runs in UTC
      statement.setString(
          index, instant.withOffsetSameInstant(ZoneOffset.UTC).toLocalDateTime().toString());
    } else {
      statement.setString(index, String.valueOf(value));
    }
  }

  static String quote(String identifier) {
    return "`" + identifier.replace("`", "``") + "`";
  }

  private static String selectExpression(SourceColumn column) {
    return switch (column.dataType()) {
      case "date", "time", "datetime", "timestamp" -> "CAST(" + quote(column.name()) + " AS CHAR)";
      case "year" -> "CAST(" + quote(column.name()) + " AS UNSIGNED)";
      default -> quote(column.name());
    };
  }

  private ColumnReader reader(SourceColumn column, Types.NestedField field) {
    Type type = field.type();
    boolean required = field.isRequired();
    if (internal) {
      switch (column.dataType()) {
        case "date":
          return (row, i) -> epochDay(row.getBytes(i), required);
        case "time":
          return (row, i) -> {
            LocalTime time = time(row.getString(i), column);
            return time == null ? null : time.toNanoOfDay() / 1000;
          };
        case "datetime":
        case "timestamp":
          // TIMESTAMP text is UTC on this session: the same arithmetic gives the instant
          return (row, i) -> epochMicros(row.getBytes(i), required);
        default:
          if (type.typeId() == Type.TypeID.STRING && !column.dataType().equals("decimal")) {
            // the connection's results are UTF-8 (characterEncoding); decoding them here skips
            // the driver's charset lookup per value
            return (row, i) -> {
              byte[] bytes = row.getBytes(i);
              return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
            };
          }
          break;
      }
    }
    return switch (column.dataType()) {
      case "date" -> (row, i) -> date(row.getString(i), required);
      case "time" -> (row, i) -> time(row.getString(i), column);
      case "datetime" -> (row, i) -> dateTime(row.getString(i), required);
      case "timestamp" -> (row, i) -> timestamp(row.getString(i), required);
      case "bit" ->
          type.typeId() == Type.TypeID.BOOLEAN
              ? (row, i) -> nullable(row, row.getBoolean(i))
              : (row, i) -> binary(row.getBytes(i));
      default ->
          switch (type.typeId()) {
            case INTEGER -> (row, i) -> nullable(row, row.getInt(i));
            case LONG -> (row, i) -> nullable(row, row.getLong(i));
            case FLOAT -> (row, i) -> nullable(row, row.getFloat(i));
            case DOUBLE -> (row, i) -> nullable(row, row.getDouble(i));
            case DECIMAL -> {
              int scale = ((Types.DecimalType) type).scale();
              yield (row, i) -> {
                BigDecimal value = row.getBigDecimal(i);
                return value == null ? null : value.setScale(scale, RoundingMode.UNNECESSARY);
              };
            }
            case STRING ->
                column.dataType().equals("decimal")
                    ? (row, i) -> {
                      BigDecimal value = row.getBigDecimal(i);
                      return value == null ? null : value.toPlainString();
                    }
                    : (row, i) -> row.getString(i);
            case BINARY -> (row, i) -> binary(row.getBytes(i));
            default ->
                throw new IllegalStateException(
                    "no snapshot reader for " + column.columnType() + " as " + type);
          };
    };
  }

  private static Object nullable(ResultSet row, Object value) throws SQLException {
    return row.wasNull() ? null : value;
  }

  private static ByteBuffer binary(byte[] bytes) {
    return bytes == null ? null : ByteBuffer.wrap(bytes);
  }

  /** MySQL's zero date reads as NULL, or the epoch in a NOT NULL column (as the binlog path). */
  private static boolean zero(String text) {
    return text.startsWith("0000-00-00");
  }

  private static LocalDate date(String text, boolean required) {
    if (text == null) {
      return null;
    }
    if (zero(text)) {
      return required ? LocalDate.EPOCH : null;
    }
    return LocalDate.parse(text);
  }

  private static LocalDateTime dateTime(String text, boolean required) {
    if (text == null) {
      return null;
    }
    if (zero(text)) {
      return required ? LocalDateTime.of(1970, 1, 1, 0, 0) : null;
    }
    return parseDateTime(text);
  }

  /**
   * Parses MySQL's {@code YYYY-MM-DD hh:mm:ss[.f...]} by hand: the snapshot reads millions of them,
   * and a {@code DateTimeFormatter} costs several times more.
   */
  static LocalDateTime parseDateTime(String text) {
    if (text.length() < 19 || text.charAt(4) != '-' || text.charAt(10) != ' ') {
      return LocalDateTime.parse(text, DATE_TIME);
    }
    int nanos = 0;
    if (text.length() > 20) {
      int digits = text.length() - 20;
      nanos = digitsAt(text, 20, digits);
      for (int i = digits; i < 9; i++) {
        nanos *= 10;
      }
    }
    return LocalDateTime.of(
        digitsAt(text, 0, 4),
        digitsAt(text, 5, 2),
        digitsAt(text, 8, 2),
        digitsAt(text, 11, 2),
        digitsAt(text, 14, 2),
        digitsAt(text, 17, 2),
        nanos);
  }

  private static int digitsAt(String text, int start, int count) {
    int value = 0;
    for (int i = start; i < start + count; i++) {
      char c = text.charAt(i);
      if (c < '0' || c > '9') {
        throw new java.time.format.DateTimeParseException("not a MySQL date-time", text, i);
      }
      value = value * 10 + (c - '0');
    }
    return value;
  }

  /** A DATE's text as days since 1970-01-01 (Iceberg's internal date). */
  static Integer epochDay(byte[] text, boolean required) {
    if (text == null) {
      return null;
    }
    if (text.length == 10 && text[4] == '-' && text[7] == '-') {
      int year = digitsAt(text, 0, 4);
      int month = digitsAt(text, 5, 2);
      int day = digitsAt(text, 8, 2);
      if (valid(year, month, day)) {
        return (int) daysFromCivil(year, month, day);
      }
    }
    LocalDate date = date(new String(text, StandardCharsets.US_ASCII), required);
    return date == null ? null : (int) date.toEpochDay();
  }

  /**
   * A DATETIME's (or, on a UTC session, a TIMESTAMP's) text {@code YYYY-MM-DD hh:mm:ss[.ffffff]} as
   * microseconds since 1970-01-01 00:00:00 (Iceberg's internal timestamp), by arithmetic: no object
   * per value. Anything else (zero dates, dates out of range, more than six fraction digits) takes
   * the generic parser, which also gives its errors.
   */
  static Long epochMicros(byte[] text, boolean required) {
    if (text == null) {
      return null;
    }
    int length = text.length;
    if ((length == 19 || (length > 20 && length <= 26 && text[19] == '.'))
        && text[4] == '-'
        && text[7] == '-'
        && text[10] == ' '
        && text[13] == ':'
        && text[16] == ':') {
      int year = digitsAt(text, 0, 4);
      int month = digitsAt(text, 5, 2);
      int day = digitsAt(text, 8, 2);
      int hour = digitsAt(text, 11, 2);
      int minute = digitsAt(text, 14, 2);
      int second = digitsAt(text, 17, 2);
      long micros = length > 20 ? digitsAt(text, 20, length - 20) : 0;
      if (valid(year, month, day)
          && hour >= 0
          && hour < 24
          && minute >= 0
          && minute < 60
          && second >= 0
          && second < 60
          && micros >= 0) {
        for (int i = length - 20; i < 6; i++) {
          micros *= 10;
        }
        long seconds =
            daysFromCivil(year, month, day) * 86_400L + hour * 3600L + minute * 60L + second;
        return seconds * 1_000_000L + micros;
      }
    }
    LocalDateTime value = dateTime(new String(text, StandardCharsets.US_ASCII), required);
    return value == null
        ? null
        : ChronoUnit.MICROS.between(LocalDateTime.of(1970, 1, 1, 0, 0), value);
  }

  /** A calendar date the fast path handles (years 1-9999, a real day of the month). */
  private static boolean valid(int year, int month, int day) {
    if (year < 1 || month < 1 || month > 12 || day < 1) {
      return false;
    }
    int days =
        switch (month) {
          case 2 -> (year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)) ? 29 : 28;
          case 4, 6, 9, 11 -> 30;
          default -> 31;
        };
    return day <= days;
  }

  /** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil). */
  static long daysFromCivil(int year, int month, int day) {
    int y = month <= 2 ? year - 1 : year;
    int era = (y >= 0 ? y : y - 399) / 400;
    int yearOfEra = y - era * 400;
    int dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
    int dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear;
    return era * 146_097L + dayOfEra - 719_468;
  }

  /** Decimal digits of ASCII text; -1 (an invalid field) when one is not a digit. */
  private static int digitsAt(byte[] text, int start, int count) {
    int value = 0;
    for (int i = start; i < start + count; i++) {
      int digit = text[i] - '0';
      if (digit < 0 || digit > 9) {
        return -1;
      }
      value = value * 10 + digit;
    }
    return value;
  }

  private static OffsetDateTime timestamp(String text, boolean required) {
    LocalDateTime utc = dateTime(text, required);
    return utc == null ? null : utc.atOffset(ZoneOffset.UTC);
  }

  private LocalTime time(String text, SourceColumn column) {
    if (text == null) {
      return null;
    }
    boolean negative = text.startsWith("-");
    String[] parts = (negative ? text.substring(1) : text).split("[:.]");
    long hours = Long.parseLong(parts[0]);
    long micros =
        ((hours * 60 + Long.parseLong(parts[1])) * 60 + Long.parseLong(parts[2])) * 1_000_000L;
    if (parts.length > 3) {
      micros += Long.parseLong((parts[3] + "000000").substring(0, 6));
    }
    if (negative || micros >= MICROS_PER_DAY) {
      throw FloeException.badInput(
          "Table "
              + table.qualifiedName()
              + " column "
              + column.name()
              + " holds the TIME value "
              + text
              + ", outside 00:00:00-23:59:59, which an Iceberg time cannot hold. Exclude the"
              + " table or keep TIME values within a day.");
    }
    return LocalTime.ofNanoOfDay(micros * 1000);
  }
}

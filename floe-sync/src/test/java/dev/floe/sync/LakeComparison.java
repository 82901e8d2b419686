package dev.floe.sync;

import dev.floe.core.sync.RouteSchema;
import dev.floe.testing.MariaDbServer;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.TreeMap;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Reads a MySQL table and its Iceberg copy as normalized text rows keyed by primary key, so tests
 * compare them row for row. MySQL values are normalized in SQL, Iceberg values in Java, to the same
 * text for every type.
 */
public final class LakeComparison {

  private static final DateTimeFormatter MICROS =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSS");

  private LakeComparison() {}

  /** key -> row text, from MySQL. */
  public static TreeMap<String, String> mysqlRows(
      MariaDbServer server, String database, String table, Schema schema) throws Exception {
    java.util.Map<String, String> dataTypes = new java.util.HashMap<>();
    try (Connection connection = server.rootConnection();
        java.sql.PreparedStatement statement =
            connection.prepareStatement(
                "SELECT COLUMN_NAME, DATA_TYPE, NUMERIC_PRECISION FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?")) {
      statement.setString(1, database);
      statement.setString(2, table);
      try (ResultSet columns = statement.executeQuery()) {
        while (columns.next()) {
          dataTypes.put(columns.getString(1), columns.getString(2) + ":" + columns.getInt(3));
        }
      }
    }
    List<String> expressions = new ArrayList<>();
    // A route's table: its source columns name the MySQL table, and columns only other routed
    // tables have are null.
    boolean routed = RouteSchema.isRouted(schema);
    for (Types.NestedField column : schema.columns()) {
      String name = "`" + column.name() + "`";
      String dataType = dataTypes.getOrDefault(column.name(), "");
      if (routed && column.name().equals(RouteSchema.DATABASE_COLUMN)) {
        expressions.add("'" + database + "'");
      } else if (routed && column.name().equals(RouteSchema.TABLE_COLUMN)) {
        expressions.add("'" + table + "'");
      } else if (routed && dataType.isEmpty()) {
        expressions.add("NULL");
      } else if (dataType.startsWith("bit:") && column.type().typeId() == Type.TypeID.BINARY) {
        int bytes = (Integer.parseInt(dataType.substring(4)) + 7) / 8;
        expressions.add("LOWER(LPAD(HEX(" + name + "), " + bytes * 2 + ", '0'))");
      } else {
        expressions.add(mysqlExpression(name, column.type()));
      }
    }
    TreeMap<String, String> rows = new TreeMap<>();
    try (Connection connection = server.rootConnection();
        Statement statement = connection.createStatement();
        ResultSet result =
            statement.executeQuery(
                "SELECT "
                    + String.join(", ", expressions)
                    + " FROM `"
                    + database
                    + "`.`"
                    + table
                    + "`")) {
      while (result.next()) {
        List<String> values = new ArrayList<>();
        for (int i = 1; i <= expressions.size(); i++) {
          values.add(String.valueOf(result.getString(i)));
        }
        rows.put(key(schema, values), String.join("|", values));
      }
    }
    return rows;
  }

  /** key -> row text, from Iceberg; fails on a duplicate key. */
  public static TreeMap<String, String> lakeRows(Table table) throws Exception {
    table.refresh();
    Schema schema = table.schema();
    TreeMap<String, String> rows = new TreeMap<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      for (Record record : records) {
        List<String> values = new ArrayList<>();
        for (Types.NestedField column : schema.columns()) {
          values.add(javaText(record.getField(column.name()), column.type()));
        }
        String key = key(schema, values);
        if (rows.put(key, String.join("|", values)) != null) {
          throw new AssertionError("duplicate key " + key + " in " + table.name());
        }
      }
    }
    return rows;
  }

  /**
   * How a table's rows differ between MySQL and Iceberg (counts and the first differing MySQL row),
   * or empty when they are equal. A column Iceberg has but MySQL lacks yet (a DDL on its way) is a
   * difference too.
   */
  public static java.util.Optional<String> difference(
      MariaDbServer server, String database, String table, Table lake) throws Exception {
    return difference(server, List.of(database + "." + table), lake);
  }

  /**
   * How the rows of several MySQL tables ({@code database.table}) routed into one Iceberg table
   * differ from it, or empty when they are equal.
   */
  public static java.util.Optional<String> difference(
      MariaDbServer server, List<String> sources, Table lake) throws Exception {
    lake.refresh();
    TreeMap<String, String> expected = new TreeMap<>();
    for (String source : sources) {
      int dot = source.indexOf('.');
      try {
        expected.putAll(
            mysqlRows(server, source.substring(0, dot), source.substring(dot + 1), lake.schema()));
      } catch (java.sql.SQLException columnsNotThereYet) {
        return java.util.Optional.of(columnsNotThereYet.getMessage());
      }
    }
    TreeMap<String, String> actual = lakeRows(lake);
    if (expected.equals(actual)) {
      return java.util.Optional.empty();
    }
    return java.util.Optional.of(
        expected.size()
            + " vs "
            + actual.size()
            + " rows; first MySQL row not in the lake: "
            + expected.entrySet().stream()
                .filter(entry -> !entry.getValue().equals(actual.get(entry.getKey())))
                .findFirst()
                .map(entry -> entry.getValue() + " (lake: " + actual.get(entry.getKey()) + ")")
                .orElse("none"));
  }

  private static String key(Schema schema, List<String> values) {
    StringBuilder key = new StringBuilder();
    List<Types.NestedField> columns = schema.columns();
    for (int i = 0; i < columns.size(); i++) {
      if (schema.identifierFieldIds().contains(columns.get(i).fieldId())) {
        key.append(values.get(i)).append('/');
      }
    }
    return key.toString();
  }

  private static String mysqlExpression(String column, Type type) {
    return switch (type.typeId()) {
      case TIMESTAMP ->
          ((Types.TimestampType) type).shouldAdjustToUTC()
              ? "CAST(ROUND(UNIX_TIMESTAMP(" + column + ") * 1000000) AS CHAR)"
              : "DATE_FORMAT(" + column + ", '%Y-%m-%dT%H:%i:%s.%f')";
      case DECIMAL -> "CAST(" + column + " AS CHAR)";
      case BINARY -> "LOWER(HEX(" + column + "))";
      case DOUBLE, FLOAT -> "CAST(" + column + " AS DOUBLE)";
      case BOOLEAN -> "CAST(" + column + " + 0 AS CHAR)";
      case TIME -> "TIME_FORMAT(" + column + ", '%H:%i:%s.%f')";
      default -> "CAST(" + column + " AS CHAR)";
    };
  }

  private static String javaText(Object value, Type type) {
    if (value == null) {
      return "null";
    }
    return switch (type.typeId()) {
      case TIMESTAMP -> {
        if (value instanceof OffsetDateTime zoned) {
          yield Long.toString(zoned.toEpochSecond() * 1_000_000L + zoned.getNano() / 1000);
        }
        yield ((LocalDateTime) value).format(MICROS);
      }
      case BINARY -> {
        ByteBuffer copy = ((ByteBuffer) value).duplicate();
        byte[] bytes = new byte[copy.remaining()];
        copy.get(bytes);
        yield HexFormat.of().formatHex(bytes);
      }
      case DOUBLE, FLOAT -> Double.toString(((Number) value).doubleValue());
      case DECIMAL -> ((java.math.BigDecimal) value).toPlainString();
      case BOOLEAN -> ((Boolean) value) ? "1" : "0";
      case TIME ->
          ((java.time.LocalTime) value).format(DateTimeFormatter.ofPattern("HH:mm:ss.SSSSSS"));
      default -> value.toString();
    };
  }
}

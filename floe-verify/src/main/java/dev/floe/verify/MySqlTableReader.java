package dev.floe.verify;

import dev.floe.core.error.FloeException;
import dev.floe.core.verify.ColumnKind;
import dev.floe.core.verify.TableShape;
import dev.floe.core.verify.VerifyColumn;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/** Reads what verify needs to know about a MySQL table and the source's clock. */
final class MySqlTableReader {

  private MySqlTableReader() {}

  /** The table's columns, primary key and time column (see the next method). */
  static TableShape read(Connection connection, String database, String table, String timeColumn)
      throws SQLException {
    return read(connection, database, table, timeColumn, List.of());
  }

  /**
   * The table's columns, key and time column. The key is the primary key, or the named columns,
   * which must be exactly the columns of a unique index (in any order; the index's order is used)
   * and NOT NULL.
   *
   * @param keyColumns the user-named key, empty for the primary key
   * @throws FloeException BAD_INPUT when the table does not exist, has no such key, or has a column
   *     type verify cannot compare
   */
  static TableShape read(
      Connection connection,
      String database,
      String table,
      String timeColumn,
      List<String> keyColumns)
      throws SQLException {
    List<String> nullable = new ArrayList<>();
    List<VerifyColumn> columns = new ArrayList<>();
    List<String> unsupported = new ArrayList<>();
    try (PreparedStatement statement =
        connection.prepareStatement(
            "SELECT COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, NUMERIC_SCALE, IS_NULLABLE,"
                + " CHARACTER_SET_NAME FROM"
                + " information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY"
                + " ORDINAL_POSITION")) {
      statement.setString(1, database);
      statement.setString(2, table);
      try (ResultSet result = statement.executeQuery()) {
        while (result.next()) {
          String name = result.getString(1);
          String dataType = result.getString(2);
          String columnType = result.getString(3);
          int scale = result.getInt(4);
          boolean mayBeNull = "YES".equalsIgnoreCase(result.getString(5));
          if (mayBeNull) {
            nullable.add(name.toLowerCase(Locale.ROOT));
          }
          String characterSet = result.getString(6);
          ColumnKind kind = ColumnKind.ofMySqlType(dataType, columnType).orElse(null);
          if (kind == null) {
            unsupported.add(name + " (" + columnType + ")");
            continue;
          }
          columns.add(
              new VerifyColumn(
                  name,
                  kind,
                  columnType,
                  kind == ColumnKind.DECIMAL ? scale : 0,
                  mayBeNull,
                  characterSet == null ? "" : characterSet));
        }
      }
    }
    if (columns.isEmpty() && unsupported.isEmpty()) {
      throw FloeException.badInput(
          "Table "
              + database
              + "."
              + table
              + " does not exist on the source (or the user may not see it). Check --table"
              + " DATABASE.TABLE.");
    }
    if (!unsupported.isEmpty()) {
      throw FloeException.badInput(
          "Table "
              + database
              + "."
              + table
              + " has columns verify cannot compare: "
              + String.join(", ", unsupported)
              + ". Spatial types are not supported.");
    }
    Map<String, List<String>> uniqueIndexes = uniqueIndexes(connection, database, table);
    List<String> keys;
    if (keyColumns.isEmpty()) {
      keys = uniqueIndexes.getOrDefault("PRIMARY", List.of());
    } else {
      keys = namedKey(database + "." + table, keyColumns, uniqueIndexes, nullable);
    }
    return TableShape.of(database, table, columns, keys, timeColumn);
  }

  /** The unique indexes without prefix parts: name -> columns in index order. */
  private static Map<String, List<String>> uniqueIndexes(
      Connection connection, String database, String table) throws SQLException {
    Map<String, List<String>> indexes = new LinkedHashMap<>();
    Set<String> prefixed = new HashSet<>();
    try (PreparedStatement statement =
        connection.prepareStatement(
            "SELECT INDEX_NAME, COLUMN_NAME, SUB_PART FROM information_schema.STATISTICS WHERE"
                + " TABLE_SCHEMA = ? AND TABLE_NAME = ? AND NON_UNIQUE = 0 ORDER BY INDEX_NAME ="
                + " 'PRIMARY' DESC, INDEX_NAME, SEQ_IN_INDEX")) {
      statement.setString(1, database);
      statement.setString(2, table);
      try (ResultSet result = statement.executeQuery()) {
        while (result.next()) {
          String index = result.getString(1);
          indexes.computeIfAbsent(index, name -> new ArrayList<>()).add(result.getString(2));
          if (result.getObject(3) != null) {
            prefixed.add(index);
          }
        }
      }
    }
    prefixed.forEach(indexes::remove);
    return indexes;
  }

  private static List<String> namedKey(
      String table,
      List<String> named,
      Map<String, List<String>> uniqueIndexes,
      List<String> nullable) {
    Set<String> wanted = new HashSet<>();
    named.forEach(column -> wanted.add(column.toLowerCase(Locale.ROOT)));
    for (List<String> columns : uniqueIndexes.values()) {
      Set<String> have = new HashSet<>();
      columns.forEach(column -> have.add(column.toLowerCase(Locale.ROOT)));
      if (have.equals(wanted) && columns.size() == named.size()) {
        List<String> nullColumns =
            columns.stream()
                .filter(column -> nullable.contains(column.toLowerCase(Locale.ROOT)))
                .toList();
        if (!nullColumns.isEmpty()) {
          throw FloeException.badInput(
              "--key "
                  + String.join(",", named)
                  + " of "
                  + table
                  + " has nullable columns ("
                  + String.join(", ", nullColumns)
                  + "); a unique index allows many NULLs, so verify needs NOT NULL key columns.");
        }
        return columns;
      }
    }
    List<String> known =
        uniqueIndexes.entrySet().stream()
            .map(entry -> entry.getKey() + "(" + String.join(",", entry.getValue()) + ")")
            .toList();
    throw FloeException.badInput(
        "--key "
            + String.join(",", named)
            + " is not a unique key of "
            + table
            + ": verify needs a unique index on exactly these columns. Unique keys of the table: "
            + (known.isEmpty() ? "none" : String.join(", ", known))
            + ".");
  }

  /** The order of each string key column (its collation on this server); null for other columns. */
  static List<StringOrder> stringOrders(Connection connection, TableShape shape)
      throws SQLException {
    List<StringOrder> orders = new ArrayList<>();
    for (VerifyColumn column : shape.keyColumns()) {
      if (column.kind() != ColumnKind.STRING) {
        orders.add(null);
        continue;
      }
      try (PreparedStatement statement =
          connection.prepareStatement(
              "SELECT CHARACTER_SET_NAME, COLLATION_NAME FROM information_schema.COLUMNS WHERE"
                  + " TABLE_SCHEMA = ? AND TABLE_NAME = ? AND COLUMN_NAME = ?")) {
        statement.setString(1, shape.database());
        statement.setString(2, shape.table());
        statement.setString(3, column.name());
        try (ResultSet result = statement.executeQuery()) {
          result.next();
          orders.add(StringOrder.read(connection, result.getString(1), result.getString(2)));
        }
      }
    }
    return orders;
  }

  /** The source's date and UTC offset, in the server's default session time zone. */
  static SourceClock clock(Connection connection) throws SQLException {
    try (Statement statement = connection.createStatement();
        ResultSet result =
            statement.executeQuery(
                "SELECT CAST(CURDATE() AS CHAR), TIMESTAMPDIFF(SECOND, UTC_TIMESTAMP(), NOW())")) {
      result.next();
      long seconds = Math.round(result.getLong(2) / 60.0) * 60;
      return new SourceClock(
          LocalDate.parse(result.getString(1)), ZoneOffset.ofTotalSeconds((int) seconds));
    }
  }
}

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
import java.util.List;

/** Reads what verify needs to know about a MySQL table and the source's clock. */
final class MySqlTableReader {

  private MySqlTableReader() {}

  /**
   * The table's columns, primary key and time column.
   *
   * @throws FloeException BAD_INPUT when the table does not exist, has no primary key, or has a
   *     column type verify cannot compare
   */
  static TableShape read(Connection connection, String database, String table, String timeColumn)
      throws SQLException {
    List<VerifyColumn> columns = new ArrayList<>();
    List<String> unsupported = new ArrayList<>();
    try (PreparedStatement statement =
        connection.prepareStatement(
            "SELECT COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, NUMERIC_SCALE FROM"
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
          ColumnKind kind = ColumnKind.ofMySqlType(dataType, columnType).orElse(null);
          if (kind == null) {
            unsupported.add(name + " (" + columnType + ")");
            continue;
          }
          columns.add(
              new VerifyColumn(name, kind, columnType, kind == ColumnKind.DECIMAL ? scale : 0));
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
    List<String> keys = new ArrayList<>();
    try (PreparedStatement statement =
        connection.prepareStatement(
            "SELECT COLUMN_NAME FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = ? AND"
                + " TABLE_NAME = ? AND INDEX_NAME = 'PRIMARY' ORDER BY SEQ_IN_INDEX")) {
      statement.setString(1, database);
      statement.setString(2, table);
      try (ResultSet result = statement.executeQuery()) {
        while (result.next()) {
          keys.add(result.getString(1));
        }
      }
    }
    return TableShape.of(database, table, columns, keys, timeColumn);
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

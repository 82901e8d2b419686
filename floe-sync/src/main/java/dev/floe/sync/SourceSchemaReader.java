package dev.floe.sync;

import dev.floe.core.sync.SourceColumn;
import dev.floe.core.sync.SourceTable;
import dev.floe.core.sync.TableSelection;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Reads the tables a selection matches, with columns and primary keys, from information_schema. */
public final class SourceSchemaReader {

  private static final Set<String> SYSTEM_DATABASES =
      Set.of("mysql", "information_schema", "performance_schema", "sys");

  /** The matching base tables, ordered by database and name. Blocks on the connection. */
  public List<SourceTable> read(Connection connection, TableSelection selection)
      throws SQLException {
    List<SourceTable> tables = new ArrayList<>();
    for (String[] name : matching(connection, selection)) {
      tables.add(
          new SourceTable(
              name[0],
              name[1],
              columns(connection, name[0], name[1]),
              primaryKey(connection, name[0], name[1])));
    }
    return tables;
  }

  /**
   * The names ({@code database.table}) of the matching base tables, ordered by database and name:
   * one query, without their columns. Blocks on the connection.
   */
  public List<String> names(Connection connection, TableSelection selection) throws SQLException {
    return matching(connection, selection).stream().map(name -> name[0] + "." + name[1]).toList();
  }

  private static List<String[]> matching(Connection connection, TableSelection selection)
      throws SQLException {
    List<String[]> names = new ArrayList<>();
    try (Statement statement = connection.createStatement();
        ResultSet rows =
            statement.executeQuery(
                "SELECT TABLE_SCHEMA, TABLE_NAME FROM information_schema.TABLES WHERE TABLE_TYPE ="
                    + " 'BASE TABLE' ORDER BY TABLE_SCHEMA, TABLE_NAME")) {
      while (rows.next()) {
        String database = rows.getString(1);
        String table = rows.getString(2);
        if (!SYSTEM_DATABASES.contains(database.toLowerCase(java.util.Locale.ROOT))
            && selection.matches(database, table)) {
          names.add(new String[] {database, table});
        }
      }
    }
    return names;
  }

  private static List<SourceColumn> columns(Connection connection, String database, String table)
      throws SQLException {
    List<SourceColumn> columns = new ArrayList<>();
    try (PreparedStatement statement =
        connection.prepareStatement(
            "SELECT COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, IS_NULLABLE, NUMERIC_PRECISION,"
                + " NUMERIC_SCALE, DATETIME_PRECISION FROM information_schema.COLUMNS WHERE"
                + " TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION")) {
      statement.setString(1, database);
      statement.setString(2, table);
      try (ResultSet rows = statement.executeQuery()) {
        while (rows.next()) {
          String dataType = rows.getString(2);
          int scale = rows.getInt(6);
          if (rows.getObject(7) != null) {
            scale = rows.getInt(7);
          }
          columns.add(
              new SourceColumn(
                  rows.getString(1),
                  dataType,
                  rows.getString(3),
                  "YES".equals(rows.getString(4)),
                  rows.getInt(5),
                  scale));
        }
      }
    }
    return columns;
  }

  private static List<String> primaryKey(Connection connection, String database, String table)
      throws SQLException {
    Map<Integer, String> key = new LinkedHashMap<>();
    try (PreparedStatement statement =
        connection.prepareStatement(
            "SELECT COLUMN_NAME, ORDINAL_POSITION FROM information_schema.KEY_COLUMN_USAGE WHERE"
                + " TABLE_SCHEMA = ? AND TABLE_NAME = ? AND CONSTRAINT_NAME = 'PRIMARY' ORDER BY"
                + " ORDINAL_POSITION")) {
      statement.setString(1, database);
      statement.setString(2, table);
      try (ResultSet rows = statement.executeQuery()) {
        while (rows.next()) {
          key.put(rows.getInt(2), rows.getString(1));
        }
      }
    }
    return List.copyOf(key.values());
  }
}

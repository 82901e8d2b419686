package dev.floe.core.verify;

import static java.util.Objects.requireNonNull;

import dev.floe.core.error.FloeException;
import java.util.List;
import java.util.Locale;

/**
 * The columns of a MySQL table as verify compares them: all columns in table order, the primary key
 * columns in key order, and the time column.
 */
public record TableShape(
    String database,
    String table,
    List<VerifyColumn> columns,
    List<VerifyColumn> keyColumns,
    VerifyColumn timeColumn) {

  public TableShape {
    requireNonNull(database, "database is null");
    requireNonNull(table, "table is null");
    columns = List.copyOf(requireNonNull(columns, "columns is null"));
    keyColumns = List.copyOf(requireNonNull(keyColumns, "keyColumns is null"));
    requireNonNull(timeColumn, "timeColumn is null");
  }

  /**
   * Checks what verify needs and builds the shape.
   *
   * @throws FloeException BAD_INPUT naming the table and the column when there is no primary key, a
   *     key column cannot be sliced, or the time column is missing or not a date/time
   */
  public static TableShape of(
      String database,
      String table,
      List<VerifyColumn> columns,
      List<String> keyColumnNames,
      String timeColumnName) {
    String name = database + "." + table;
    if (keyColumnNames.isEmpty()) {
      throw FloeException.badInput(
          "Table "
              + name
              + " has no primary key. verify matches rows by a unique key and slices the table"
              + " along it; name a unique NOT NULL key with --key COLUMN[,COLUMN...] or add a"
              + " primary key to the table.");
    }
    List<VerifyColumn> keys =
        keyColumnNames.stream().map(key -> find(columns, key, name, "key column")).toList();
    for (VerifyColumn key : keys) {
      if (!sliceable(key)) {
        throw FloeException.badInput(
            "Key column "
                + key.name()
                + " of "
                + name
                + " is "
                + key.mySqlType()
                + "; verify slices only integer, decimal, date, datetime, char and varchar key"
                + " columns.");
      }
    }
    VerifyColumn time =
        columns.stream()
            .filter(column -> column.name().equalsIgnoreCase(timeColumnName))
            .findFirst()
            .orElseThrow(
                () ->
                    FloeException.badInput(
                        "--time-column "
                            + timeColumnName
                            + " is not a column of "
                            + name
                            + ". Its columns: "
                            + String.join(", ", columns.stream().map(VerifyColumn::name).toList())
                            + "."));
    if (time.kind() != ColumnKind.DATE
        && time.kind() != ColumnKind.DATETIME
        && time.kind() != ColumnKind.TIMESTAMP) {
      throw FloeException.badInput(
          "--time-column "
              + time.name()
              + " of "
              + name
              + " is "
              + time.mySqlType()
              + "; it must be a DATE, DATETIME or TIMESTAMP column.");
    }
    return new TableShape(database, table, columns, keys, time);
  }

  private static boolean sliceable(VerifyColumn key) {
    if (key.kind() == ColumnKind.STRING) {
      String type = key.mySqlType().toLowerCase(Locale.ROOT);
      return type.startsWith("char") || type.startsWith("varchar");
    }
    return key.kind().sliceable();
  }

  private static VerifyColumn find(
      List<VerifyColumn> columns, String columnName, String table, String role) {
    return columns.stream()
        .filter(
            column ->
                column.name().toLowerCase(Locale.ROOT).equals(columnName.toLowerCase(Locale.ROOT)))
        .findFirst()
        .orElseThrow(
            () -> new IllegalArgumentException(role + " " + columnName + " is not in " + table));
  }

  /** {@code `db`.`table`} */
  public String quotedName() {
    return "`" + database.replace("`", "``") + "`.`" + table.replace("`", "``") + "`";
  }

  public String qualifiedName() {
    return database + "." + table;
  }

  public List<String> columnNames() {
    return columns.stream().map(VerifyColumn::name).toList();
  }

  public List<String> keyColumnNames() {
    return keyColumns.stream().map(VerifyColumn::name).toList();
  }

  /** The position of a column in {@link #columns()}. */
  public int indexOf(VerifyColumn column) {
    int index = columns.indexOf(column);
    if (index < 0) {
      throw new IllegalArgumentException(column.name() + " is not a column of " + qualifiedName());
    }
    return index;
  }
}

package dev.floe.core.verify;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;

/**
 * SQL conditions on the primary key with {@code ?} parameters, written as expanded comparisons
 * ({@code a > ? OR (a = ? AND b >= ?)}) because MariaDB does not use row constructors for range
 * scans.
 *
 * @param sql the condition
 * @param parameters the key texts to bind, in order, with the column each belongs to
 */
public record KeySql(String sql, List<Parameter> parameters) {

  /** One parameter: a key column's text. */
  public record Parameter(VerifyColumn column, String text) {
    public Parameter {
      requireNonNull(column, "column is null");
      requireNonNull(text, "text is null");
    }
  }

  public KeySql {
    requireNonNull(sql, "sql is null");
    parameters = List.copyOf(requireNonNull(parameters, "parameters is null"));
  }

  /** The condition for a key range; {@code TRUE} for the whole key space. */
  public static KeySql range(List<VerifyColumn> keyColumns, KeyRange range) {
    List<String> parts = new ArrayList<>();
    List<Parameter> parameters = new ArrayList<>();
    range
        .lower()
        .ifPresent(lower -> parts.add(compare(keyColumns, lower, 0, ">", ">=", parameters)));
    range
        .upper()
        .ifPresent(upper -> parts.add(compare(keyColumns, upper, 0, "<", "<", parameters)));
    return new KeySql(parts.isEmpty() ? "TRUE" : String.join(" AND ", parts), parameters);
  }

  /** The condition that a key equals one of the given keys. */
  public static KeySql anyOf(List<VerifyColumn> keyColumns, List<RowKey> keys) {
    List<String> parts = new ArrayList<>();
    List<Parameter> parameters = new ArrayList<>();
    for (RowKey key : keys) {
      List<String> equals = new ArrayList<>();
      for (int i = 0; i < keyColumns.size(); i++) {
        equals.add(keyColumns.get(i).quoted() + " = ?");
        parameters.add(new Parameter(keyColumns.get(i), key.values().get(i)));
      }
      parts.add("(" + String.join(" AND ", equals) + ")");
    }
    return new KeySql(
        parts.isEmpty() ? "FALSE" : "(" + String.join(" OR ", parts) + ")", parameters);
  }

  /** {@code ORDER BY} the key. */
  public static String orderBy(List<VerifyColumn> keyColumns) {
    return String.join(", ", keyColumns.stream().map(VerifyColumn::quoted).toList());
  }

  private static String compare(
      List<VerifyColumn> columns,
      RowKey key,
      int index,
      String strict,
      String last,
      List<Parameter> parameters) {
    VerifyColumn column = columns.get(index);
    String value = key.values().get(index);
    if (index == columns.size() - 1) {
      parameters.add(new Parameter(column, value));
      return column.quoted() + " " + last + " ?";
    }
    parameters.add(new Parameter(column, value));
    parameters.add(new Parameter(column, value));
    return "("
        + column.quoted()
        + " "
        + strict
        + " ? OR ("
        + column.quoted()
        + " = ? AND "
        + compare(columns, key, index + 1, strict, last, parameters)
        + "))";
  }
}

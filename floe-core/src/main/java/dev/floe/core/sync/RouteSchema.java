package dev.floe.core.sync;

import dev.floe.core.error.FloeException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;

/**
 * The Iceberg schema of a route's table (documented in docs/schema-changes.md): the union of the
 * columns of every MySQL table routed into it, plus {@link #DATABASE_COLUMN} and {@link
 * #TABLE_COLUMN} naming the table each row comes from. Those two and the primary key are the
 * identifier fields, so equal keys in different source tables are different rows.
 *
 * <p>Union rules: columns in the order of the first table, a column only some tables have inserted
 * after its predecessor there; every column but the key optional (the tables without it leave it
 * null); a column with different types in different tables takes the wider one where Iceberg can
 * promote (int to long, float to double, a wider decimal precision), otherwise the route is
 * refused. Every table must have the same primary key.
 *
 * <p>Pure: no I/O.
 */
public final class RouteSchema {

  /** The column holding each row's MySQL database. */
  public static final String DATABASE_COLUMN = "_source_db";

  /** The column holding each row's MySQL table. */
  public static final String TABLE_COLUMN = "_source_table";

  private RouteSchema() {}

  /** Whether a synced table's schema is a route's: it has both source columns as identifiers. */
  public static boolean isRouted(Schema schema) {
    Types.NestedField database = schema.findField(DATABASE_COLUMN);
    Types.NestedField table = schema.findField(TABLE_COLUMN);
    return database != null
        && table != null
        && schema.identifierFieldIds().contains(database.fieldId())
        && schema.identifierFieldIds().contains(table.fieldId());
  }

  private static final class Column {
    final String name;
    Type type;
    final String from;

    Column(String name, Type type, String from) {
      this.name = name;
      this.type = type;
      this.from = from;
    }
  }

  /**
   * The route's schema for these source tables.
   *
   * @param route the route as written, for errors
   * @throws FloeException BAD_INPUT naming the route and the tables when their primary keys differ,
   *     a column's types cannot be reconciled, or a column is named like a source column
   */
  public static Schema union(String route, List<SourceTable> tables) {
    if (tables.isEmpty()) {
      throw new IllegalArgumentException("a route's schema needs at least one table");
    }
    SourceTable first = tables.get(0);
    List<Column> columns = new ArrayList<>();
    for (SourceTable table : tables) {
      TypeMapping.icebergSchema(table); // refuses a table without a primary key or with bad types
      if (!lower(table.primaryKey()).equals(lower(first.primaryKey()))) {
        throw FloeException.badInput(
            "Route '"
                + route
                + "' merges tables with different primary keys: "
                + first.qualifiedName()
                + " ("
                + String.join(", ", first.primaryKey())
                + ") and "
                + table.qualifiedName()
                + " ("
                + String.join(", ", table.primaryKey())
                + "). Route only tables with the same primary key into one Iceberg table.");
      }
      int previous = -1;
      for (SourceColumn source : table.columns()) {
        if (source.name().equalsIgnoreCase(DATABASE_COLUMN)
            || source.name().equalsIgnoreCase(TABLE_COLUMN)) {
          throw FloeException.badInput(
              "Route '"
                  + route
                  + "': table "
                  + table.qualifiedName()
                  + " has a column "
                  + source.name()
                  + ", the name of a column the route adds to tell tables apart. Rename the"
                  + " column or do not route that table.");
        }
        Type type = TypeMapping.icebergType(table, source);
        int index = indexOf(columns, source.name());
        if (index < 0) {
          index = previous + 1;
          columns.add(index, new Column(source.name(), type, table.qualifiedName()));
        } else {
          Column known = columns.get(index);
          known.type = wider(route, known, type, table, source);
        }
        previous = index;
      }
    }
    List<Types.NestedField> fields = new ArrayList<>();
    Set<Integer> identifiers = new HashSet<>();
    Set<String> key = new HashSet<>(lower(first.primaryKey()));
    int id = 1;
    for (Column column : columns) {
      boolean isKey = key.contains(column.name.toLowerCase(Locale.ROOT));
      fields.add(
          isKey
              ? Types.NestedField.required(id, column.name, column.type)
              : Types.NestedField.optional(id, column.name, column.type));
      if (isKey) {
        identifiers.add(id);
      }
      id++;
    }
    for (String source : List.of(DATABASE_COLUMN, TABLE_COLUMN)) {
      fields.add(Types.NestedField.required(id, source, Types.StringType.get()));
      identifiers.add(id++);
    }
    return new Schema(fields, identifiers);
  }

  private static Type wider(
      String route, Column known, Type type, SourceTable table, SourceColumn source) {
    if (known.type.equals(type)) {
      return type;
    }
    if (type.isPrimitiveType() && TypeUtil.isPromotionAllowed(known.type, type.asPrimitiveType())) {
      return type;
    }
    if (known.type.isPrimitiveType()
        && TypeUtil.isPromotionAllowed(type, known.type.asPrimitiveType())) {
      return known.type;
    }
    throw FloeException.badInput(
        "Route '"
            + route
            + "': column "
            + source.name()
            + " is Iceberg "
            + known.type
            + " in "
            + known.from
            + " but "
            + source.columnType()
            + " (Iceberg "
            + type
            + ") in "
            + table.qualifiedName()
            + ", and Iceberg can only widen int to long, float to double and a decimal's"
            + " precision. Make the column's type the same in every routed table, or route those"
            + " tables to different Iceberg tables.");
  }

  private static int indexOf(List<Column> columns, String name) {
    for (int i = 0; i < columns.size(); i++) {
      if (columns.get(i).name.equalsIgnoreCase(name)) {
        return i;
      }
    }
    return -1;
  }

  private static List<String> lower(List<String> names) {
    return names.stream().map(name -> name.toLowerCase(Locale.ROOT)).toList();
  }
}

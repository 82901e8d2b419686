package dev.floe.core.sync;

import dev.floe.core.error.FloeException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * How MySQL column types become Iceberg types. The table is documented in docs/sync.md; the rule of
 * thumb is "never lose a value": unsigned types widen, DECIMAL keeps its precision, TINYINT(1)
 * stays an integer because MySQL stores any TINYINT value in it.
 */
public final class TypeMapping {

  /** The widest DECIMAL Iceberg holds; wider MySQL decimals become strings. */
  public static final int MAX_DECIMAL_PRECISION = 38;

  private TypeMapping() {}

  /**
   * The Iceberg type for a column.
   *
   * @throws FloeException BAD_INPUT for a type Floe cannot sync (spatial types), naming the table,
   *     the column and the type
   */
  public static Type icebergType(SourceTable table, SourceColumn column) {
    return switch (column.dataType()) {
      case "tinyint", "smallint", "mediumint" -> Types.IntegerType.get();
      case "int", "integer" -> column.unsigned() ? Types.LongType.get() : Types.IntegerType.get();
      case "bigint" -> column.unsigned() ? Types.DecimalType.of(20, 0) : Types.LongType.get();
      case "decimal", "numeric", "dec", "fixed" ->
          column.precision() <= MAX_DECIMAL_PRECISION
              ? Types.DecimalType.of(column.precision(), column.scale())
              : Types.StringType.get();
      case "float" -> Types.FloatType.get();
      case "double", "real", "double precision" -> Types.DoubleType.get();
      case "bit" -> column.precision() == 1 ? Types.BooleanType.get() : Types.BinaryType.get();
      case "bool", "boolean" -> Types.IntegerType.get();
      case "char", "varchar", "tinytext", "text", "mediumtext", "longtext", "enum", "set", "json" ->
          Types.StringType.get();
      case "binary", "varbinary", "tinyblob", "blob", "mediumblob", "longblob" ->
          Types.BinaryType.get();
      case "date" -> Types.DateType.get();
      case "time" -> Types.TimeType.get();
      case "datetime" -> Types.TimestampType.withoutZone();
      case "timestamp" -> Types.TimestampType.withZone();
      case "year" -> Types.IntegerType.get();
      default ->
          throw FloeException.badInput(
              "Table "
                  + table.qualifiedName()
                  + " has column "
                  + column.name()
                  + " of type "
                  + column.columnType()
                  + ", which Floe cannot sync. Exclude the table with --exclude '"
                  + table.qualifiedName().replace(".", "\\.")
                  + "', or change the column's type.");
    };
  }

  /**
   * The Iceberg schema for a table: columns in MySQL order with ids from 1, primary-key columns
   * required and the identifier fields of the table.
   *
   * @throws FloeException BAD_INPUT when the table has no primary key or an unsupported column
   */
  public static Schema icebergSchema(SourceTable table) {
    if (table.primaryKey().isEmpty()) {
      throw FloeException.badInput(
          "Table "
              + table.qualifiedName()
              + " has no primary key, so updates and deletes cannot be matched to rows in"
              + " Iceberg. Add a primary key in MySQL, or exclude the table with --exclude '"
              + table.qualifiedName().replace(".", "\\.")
              + "'.");
    }
    List<Types.NestedField> fields = new ArrayList<>();
    Set<Integer> identifiers = new HashSet<>();
    int id = 1;
    for (SourceColumn column : table.columns()) {
      boolean key = table.primaryKey().contains(column.name());
      Type type = icebergType(table, column);
      fields.add(
          key || !column.nullable()
              ? Types.NestedField.required(id, column.name(), type)
              : Types.NestedField.optional(id, column.name(), type));
      if (key) {
        identifiers.add(id);
      }
      id++;
    }
    return new Schema(fields, identifiers);
  }
}

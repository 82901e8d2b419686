package dev.floe.core.sync;

import dev.floe.core.error.FloeException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Reads the columns a user declares for a table a sync creates ({@code --schema}, {@code
 * sync.kafka.schema}), written as in SQL's CREATE TABLE: {@code 'id BIGINT NOT NULL, ts TIMESTAMP,
 * name STRING, amount DECIMAL(10,2)'}, and compares them with an existing table. Pure: no I/O.
 *
 * <p>The types are Iceberg's, under their Iceberg and SQL names ({@link #TYPES}); {@code TIMESTAMP}
 * is Iceberg's timestamp without zone (as in Iceberg's type names, Flink and Trino SQL), {@code
 * TIMESTAMPTZ} the one with zone. Types a JSON value cannot be read as (binary, uuid, nested) are
 * not offered.
 */
public final class DeclaredSchema {

  /** The accepted type names, as the error messages list them. */
  public static final List<String> TYPES =
      List.of(
          "BOOLEAN",
          "INT (INTEGER)",
          "BIGINT (LONG)",
          "FLOAT",
          "DOUBLE",
          "DECIMAL(P,S)",
          "STRING (VARCHAR, TEXT)",
          "DATE",
          "TIME",
          "TIMESTAMP (without zone)",
          "TIMESTAMPTZ (with zone, UTC)");

  private static final Pattern COLUMN =
      Pattern.compile(
          "\\s*([A-Za-z_][A-Za-z0-9_]*)(?:\\s+(.*?))?\\s*",
          Pattern.CASE_INSENSITIVE | Pattern.DOTALL);
  private static final Pattern TYPE =
      Pattern.compile(
          "([A-Za-z_]+)\\s*(?:\\(\\s*(\\d+)\\s*(?:,\\s*(\\d+)\\s*)?\\))?(\\s+NOT\\s+NULL|\\s+NULL)?",
          Pattern.CASE_INSENSITIVE);

  private DeclaredSchema() {}

  /**
   * The Iceberg schema of the text, field ids from 1 in order; the key's columns are required and
   * the identifier fields.
   *
   * @param input where the text comes from, for messages ({@code --schema}, {@code
   *     sync.kafka.schema})
   * @param key the columns rows are upserted by; empty for none
   * @throws FloeException BAD_INPUT naming the input, the column and what to write instead
   */
  public static Schema parse(String input, String text, List<String> key) {
    if (text == null || text.isBlank()) {
      throw bad(input, text, "it declares no column");
    }
    List<Types.NestedField> fields = new ArrayList<>();
    Map<String, Types.NestedField> byName = new LinkedHashMap<>();
    Set<String> keyNames = new HashSet<>();
    key.forEach(column -> keyNames.add(lower(column)));
    int id = 1;
    for (String part : CommaList.split(text)) {
      if (part.isBlank()) {
        throw bad(input, text, "a column is empty (two commas, or one at the end)");
      }
      Matcher column = COLUMN.matcher(part);
      if (!column.matches()) {
        throw bad(
            input,
            text,
            "'"
                + part.trim()
                + "' is not a column: write NAME TYPE, the name of letters, digits and _");
      }
      String name = column.group(1);
      if (column.group(2) == null || column.group(2).isBlank()) {
        throw bad(input, text, "column " + name + " has no type: " + accepted());
      }
      Matcher type = TYPE.matcher(column.group(2));
      if (!type.matches()) {
        throw bad(
            input,
            text,
            "column " + name + " has the type '" + column.group(2).trim() + "': " + accepted());
      }
      Type icebergType = type(input, text, name, type);
      boolean required =
          keyNames.contains(lower(name))
              || (type.group(4) != null
                  && type.group(4).trim().toUpperCase(Locale.ROOT).startsWith("NOT"));
      if (byName.containsKey(lower(name))) {
        throw bad(input, text, "column " + name + " is declared twice");
      }
      Types.NestedField field =
          required
              ? Types.NestedField.required(id++, name, icebergType)
              : Types.NestedField.optional(id++, name, icebergType);
      fields.add(field);
      byName.put(lower(name), field);
    }
    Set<Integer> identifiers = new HashSet<>();
    for (String column : key) {
      Types.NestedField field = byName.get(lower(column));
      if (field == null) {
        throw bad(
            input,
            text,
            "the key column "
                + column
                + " (--key "
                + String.join(",", key)
                + ") is not in it: declare it, e.g. '"
                + column
                + " BIGINT NOT NULL, ...'");
      }
      if (field.type().typeId() == Type.TypeID.FLOAT
          || field.type().typeId() == Type.TypeID.DOUBLE) {
        throw bad(
            input,
            text,
            "the key column "
                + field.name()
                + " is "
                + typeName(field.type())
                + ", which Iceberg refuses as an identifier field: declare it BIGINT, DECIMAL(P,S)"
                + " or STRING");
      }
      identifiers.add(field.fieldId());
    }
    return new Schema(fields, identifiers);
  }

  /**
   * What differs between the declared schema and an existing table's, the first difference only: a
   * declared column the table lacks, or of another type or nullability. Columns the table has
   * beyond the declared ones are no difference (the sync adds a message's new fields as columns, so
   * a table it created grows past its declared schema).
   *
   * @return empty when the table has every declared column as declared
   */
  public static Optional<String> difference(Schema declared, Schema table) {
    for (Types.NestedField column : declared.columns()) {
      Types.NestedField existing = table.caseInsensitiveFindField(column.name());
      if (existing == null) {
        return Optional.of("the table has no column " + column.name());
      }
      if (!existing.type().equals(column.type())) {
        return Optional.of(
            "column "
                + column.name()
                + " is "
                + typeName(column.type())
                + " in the schema but "
                + typeName(existing.type())
                + " in the table");
      }
      if (existing.isRequired() != column.isRequired()) {
        return Optional.of(
            "column "
                + column.name()
                + " is "
                + (column.isRequired() ? "NOT NULL" : "nullable")
                + " in the schema but "
                + (existing.isRequired() ? "NOT NULL" : "nullable")
                + " in the table");
      }
    }
    return Optional.empty();
  }

  /** The type as this syntax writes it ({@code DECIMAL(10,2)}), else Iceberg's name for it. */
  public static String typeName(Type type) {
    return switch (type.typeId()) {
      case BOOLEAN -> "BOOLEAN";
      case INTEGER -> "INT";
      case LONG -> "BIGINT";
      case FLOAT -> "FLOAT";
      case DOUBLE -> "DOUBLE";
      case DECIMAL ->
          "DECIMAL("
              + ((Types.DecimalType) type).precision()
              + ","
              + ((Types.DecimalType) type).scale()
              + ")";
      case STRING -> "STRING";
      case DATE -> "DATE";
      case TIME -> "TIME";
      case TIMESTAMP ->
          ((Types.TimestampType) type).shouldAdjustToUTC() ? "TIMESTAMPTZ" : "TIMESTAMP";
      default -> type.toString();
    };
  }

  private static Type type(String input, String text, String column, Matcher type) {
    String name = type.group(1).toUpperCase(Locale.ROOT);
    boolean hasArguments = type.group(2) != null;
    if (name.equals("DECIMAL") || name.equals("NUMERIC")) {
      if (!hasArguments || type.group(3) == null) {
        throw bad(
            input,
            text,
            "column "
                + column
                + " is "
                + name
                + " without its precision and scale: write DECIMAL(P,S), e.g. DECIMAL(10,2)");
      }
      int precision = Integer.parseInt(type.group(2));
      int scale = Integer.parseInt(type.group(3));
      if (precision < 1 || precision > 38 || scale > precision) {
        throw bad(
            input,
            text,
            "column "
                + column
                + " is DECIMAL("
                + precision
                + ","
                + scale
                + "): the precision must be 1 to 38 and the scale at most the precision");
      }
      return Types.DecimalType.of(precision, scale);
    }
    Type plain =
        switch (name) {
          case "BOOLEAN", "BOOL" -> Types.BooleanType.get();
          case "INT", "INTEGER" -> Types.IntegerType.get();
          case "BIGINT", "LONG" -> Types.LongType.get();
          case "FLOAT", "REAL" -> Types.FloatType.get();
          case "DOUBLE" -> Types.DoubleType.get();
          case "STRING", "VARCHAR", "TEXT" -> Types.StringType.get();
          case "DATE" -> Types.DateType.get();
          case "TIME" -> Types.TimeType.get();
          case "TIMESTAMP" -> Types.TimestampType.withoutZone();
          case "TIMESTAMPTZ" -> Types.TimestampType.withZone();
          default -> null;
        };
    if (plain == null) {
      throw bad(
          input, text, "column " + column + " has the type " + type.group(1) + ": " + accepted());
    }
    if (hasArguments && !name.equals("VARCHAR")) {
      throw bad(
          input,
          text,
          "column " + column + " is " + name + " with a length or precision, which it takes none");
    }
    return plain;
  }

  private static String accepted() {
    return "use one of " + String.join(", ", TYPES) + ", optionally followed by NOT NULL";
  }

  private static FloeException bad(String input, String text, String problem) {
    return FloeException.badInput(
        input
            + " '"
            + (text == null ? "" : text.trim())
            + "': "
            + problem
            + ". Write the columns as NAME TYPE [NOT NULL], comma-separated, e.g. 'id BIGINT NOT"
            + " NULL, ts TIMESTAMP, name STRING, amount DECIMAL(10,2)'.");
  }

  private static String lower(String name) {
    return name.toLowerCase(Locale.ROOT);
  }
}

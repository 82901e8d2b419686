package dev.floe.core.sync;

import dev.floe.core.error.FloeException;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;

/**
 * Reads the partitioning a user configures for a synced table ({@code sync.partitions}): a
 * comma-separated list of {@code col} or {@code identity(col)}, {@code year(col)}, {@code
 * month(col)}, {@code day(col)}, {@code hour(col)}, {@code bucket(N, col)}, {@code truncate(N,
 * col)} — Iceberg's transforms, written as in Iceberg's SQL.
 */
public final class PartitionSpecs {

  private static final Pattern FIELD =
      Pattern.compile(
          "\\s*(?:(\\w+)\\s*\\(\\s*(?:(\\d+)\\s*,\\s*)?([^,()\\s]+)\\s*\\)|([^,()\\s]+))\\s*");

  private PartitionSpecs() {}

  /**
   * Builds the spec.
   *
   * @param table the source table ({@code database.table}), for messages
   * @param text the configured partitioning
   * @param schema the table's Iceberg schema
   * @throws FloeException BAD_INPUT naming the table, the text and what is wrong
   */
  public static PartitionSpec parse(String table, String text, Schema schema) {
    PartitionSpec.Builder builder = PartitionSpec.builderFor(schema);
    for (String field : split(table, text)) {
      Matcher matcher = FIELD.matcher(field);
      if (!matcher.matches()) {
        throw bad(table, text, "'" + field.trim() + "' is not a partition field");
      }
      String column = matcher.group(4) != null ? matcher.group(4) : matcher.group(3);
      if (schema.findField(column) == null) {
        throw bad(table, text, "the table has no column " + column);
      }
      String transform =
          matcher.group(1) == null ? "identity" : matcher.group(1).toLowerCase(Locale.ROOT);
      String number = matcher.group(2);
      requireTemporal(table, text, transform, column, schema.findField(column).type());
      try {
        switch (transform) {
          case "identity" -> builder.identity(column);
          case "year", "years" -> builder.year(column);
          case "month", "months" -> builder.month(column);
          case "day", "days" -> builder.day(column);
          case "hour", "hours" -> builder.hour(column);
          case "bucket" -> builder.bucket(column, width(table, text, transform, number));
          case "truncate" -> builder.truncate(column, width(table, text, transform, number));
          default ->
              throw bad(
                  table,
                  text,
                  "unknown transform "
                      + transform
                      + " (use identity, year, month, day, hour, bucket or truncate)");
        }
      } catch (IllegalArgumentException | org.apache.iceberg.exceptions.ValidationException e) {
        throw bad(table, text, e.getMessage());
      }
    }
    try {
      return builder.build();
    } catch (IllegalArgumentException | org.apache.iceberg.exceptions.ValidationException e) {
      throw bad(table, text, e.getMessage());
    }
  }

  /**
   * Refuses a time transform of a column that is no date or timestamp (hour: no timestamp) with a
   * message naming both, where Iceberg's own says only "Invalid source type".
   */
  private static void requireTemporal(
      String table, String text, String transform, String column, Type type) {
    boolean hour = transform.equals("hour") || transform.equals("hours");
    boolean time =
        hour
            || transform.equals("year")
            || transform.equals("years")
            || transform.equals("month")
            || transform.equals("months")
            || transform.equals("day")
            || transform.equals("days");
    if (!time) {
      return;
    }
    boolean fits =
        type.typeId() == Type.TypeID.TIMESTAMP
            || type.typeId() == Type.TypeID.TIMESTAMP_NANO
            || (!hour && type.typeId() == Type.TypeID.DATE);
    if (!fits) {
      throw bad(
          table,
          text,
          transform
              + "("
              + column
              + ") needs a "
              + (hour ? "timestamp" : "date or timestamp")
              + " column, but "
              + column
              + " is "
              + type
              + " (identity, bucket or truncate partition any column)");
    }
  }

  private static List<String> split(String table, String text) {
    List<String> fields = CommaList.split(text);
    if (fields.stream().anyMatch(field -> field.isBlank())) {
      throw bad(table, text, "a partition field is empty");
    }
    return fields;
  }

  private static int width(String table, String text, String transform, String number) {
    if (number == null) {
      throw bad(table, text, transform + " needs a width: " + transform + "(N, column)");
    }
    int width = Integer.parseInt(number);
    if (width < 1) {
      throw bad(table, text, transform + " needs a width of at least 1");
    }
    return width;
  }

  private static FloeException bad(String table, String text, String problem) {
    return FloeException.badInput(
        "sync.partitions for "
            + table
            + " is '"
            + text
            + "': "
            + problem
            + ". Write a comma-separated list such as 'day(created_at), bucket(16, id)'.");
  }
}

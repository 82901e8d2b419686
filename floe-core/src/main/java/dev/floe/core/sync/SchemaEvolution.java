package dev.floe.core.sync;

import static java.util.Objects.requireNonNull;

import dev.floe.core.error.FloeException;
import java.util.ArrayList;
import java.util.HashMap;
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
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;

/**
 * How a MySQL table's DDL changes its Iceberg table: the Iceberg schema update that makes the
 * table's columns those of MySQL after the DDL, or the reason Iceberg cannot represent the change.
 *
 * <p>Rules (documented in docs/schema-changes.md):
 *
 * <ul>
 *   <li>a column in MySQL and not in Iceberg is added (optional: rows written before it have no
 *       value), at its MySQL position;
 *   <li>a column in Iceberg and not in MySQL is dropped, unless the DDL renames it ({@code RENAME
 *       COLUMN a TO b}, {@code CHANGE a b ...}): a rename keeps the column's field id and data. A
 *       rename is only ever read from the DDL, because a column diff cannot tell it from a drop and
 *       an add;
 *   <li>a type change is applied when Iceberg allows the promotion (int to long, float to double,
 *       decimal precision up with the same scale); a change within one Iceberg type (VARCHAR
 *       length, TEXT, DATETIME precision) needs nothing;
 *   <li>NOT NULL dropped makes the column optional; NOT NULL added is ignored (Iceberg cannot
 *       require a column that has rows without it);
 *   <li>any other type change, a primary-key change, or an unmappable type is refused.
 * </ul>
 *
 * <p>Pure: no I/O.
 */
public final class SchemaEvolution {

  private static final String NAME = "(?:`((?:[^`]|``)+)`|([\\p{L}\\p{N}_$]+))";
  private static final Pattern RENAME_COLUMN =
      Pattern.compile(
          "\\bRENAME\\s+COLUMN\\s+" + NAME + "\\s+TO\\s+" + NAME, Pattern.CASE_INSENSITIVE);
  private static final Pattern CHANGE_COLUMN =
      Pattern.compile(
          "\\bCHANGE\\s+(?:COLUMN\\s+)?" + NAME + "\\s+" + NAME + "\\s", Pattern.CASE_INSENSITIVE);

  private SchemaEvolution() {}

  /** One change to an Iceberg schema; names are those of the schema before the update. */
  public sealed interface Step {}

  /** Adds an optional column at the end (a {@link MoveColumn} puts it in place). */
  public record AddColumn(String name, Type type) implements Step {}

  public record DropColumn(String name) implements Step {}

  public record RenameColumn(String from, String to) implements Step {}

  public record WidenColumn(String name, Type.PrimitiveType to) implements Step {}

  public record MakeOptional(String name) implements Step {}

  /**
   * Moves a column (named as in {@link Step}, or an added column's name) after another, or first
   * when {@code after} is empty.
   */
  public record MoveColumn(String name, Optional<String> after) implements Step {}

  /**
   * The outcome: the steps to apply (empty when the DDL changes nothing Iceberg holds), or why the
   * change cannot be applied.
   */
  public record Plan(List<Step> steps, Optional<String> refusal) {
    public Plan {
      steps = List.copyOf(steps);
      requireNonNull(refusal, "refusal is null");
    }

    static Plan refused(String reason) {
      return new Plan(List.of(), Optional.of(reason));
    }

    public boolean changes() {
      return !steps.isEmpty();
    }
  }

  /**
   * Plans the update of {@code current} (the Iceberg table's schema) to the MySQL table as it is
   * after {@code ddl}.
   */
  public static Plan plan(Schema current, SourceTable after, String ddl) {
    Map<String, String> renames = renames(ddl);
    // Iceberg column (by its current name) -> its name after the DDL
    Map<String, String> newNames = new LinkedHashMap<>();
    Map<String, SourceColumn> mysql = new LinkedHashMap<>();
    for (SourceColumn column : after.columns()) {
      mysql.put(lower(column.name()), column);
    }
    List<Step> steps = new ArrayList<>();
    for (Types.NestedField field : current.columns()) {
      String renamed = renames.get(lower(field.name()));
      if (renamed != null
          && mysql.containsKey(lower(renamed))
          && !mysql.containsKey(lower(field.name()))) {
        String to = mysql.get(lower(renamed)).name();
        newNames.put(field.name(), to);
        steps.add(new RenameColumn(field.name(), to));
      } else if (mysql.containsKey(lower(field.name()))) {
        newNames.put(field.name(), mysql.get(lower(field.name())).name());
        if (!mysql.get(lower(field.name())).name().equals(field.name())) {
          steps.add(new RenameColumn(field.name(), mysql.get(lower(field.name())).name()));
        }
      }
    }

    List<String> keyBefore = new ArrayList<>();
    for (Integer id : current.identifierFieldIds()) {
      keyBefore.add(lower(newNames.getOrDefault(current.findColumnName(id), "")));
    }
    List<String> keyAfter = after.primaryKey().stream().map(SchemaEvolution::lower).toList();
    if (!new java.util.HashSet<>(keyBefore).equals(new java.util.HashSet<>(keyAfter))) {
      return Plan.refused(
          "it changes the primary key from ("
              + String.join(", ", keyNames(current))
              + ") to ("
              + String.join(", ", after.primaryKey())
              + "), and the Iceberg table's rows are identified by the old key");
    }

    for (Types.NestedField field : current.columns()) {
      if (!newNames.containsKey(field.name())) {
        steps.add(new DropColumn(field.name()));
      }
    }

    Map<String, String> oldNameOf = new HashMap<>();
    newNames.forEach((old, renamed) -> oldNameOf.put(lower(renamed), old));
    List<String> desiredOrder = new ArrayList<>();
    for (SourceColumn column : after.columns()) {
      Type type;
      try {
        type = TypeMapping.icebergType(after, column);
      } catch (FloeException unsupported) {
        return Plan.refused(
            "column "
                + column.name()
                + " becomes "
                + column.columnType()
                + ", which Floe cannot sync");
      }
      String old = oldNameOf.get(lower(column.name()));
      if (old == null) {
        steps.add(new AddColumn(column.name(), type));
        desiredOrder.add(column.name());
      } else {
        Types.NestedField field = current.findField(old);
        if (!field.type().equals(type)) {
          if (type.isPrimitiveType()
              && TypeUtil.isPromotionAllowed(field.type(), type.asPrimitiveType())) {
            steps.add(new WidenColumn(old, type.asPrimitiveType()));
          } else {
            return Plan.refused(
                "it changes column "
                    + column.name()
                    + " to "
                    + column.columnType()
                    + ", which maps to Iceberg "
                    + type
                    + "; Iceberg cannot change "
                    + field.type()
                    + " to that (only int to long, float to double and a wider decimal precision)");
          }
        }
        if (field.isRequired()
            && column.nullable()
            && !after.primaryKey().contains(column.name())) {
          steps.add(new MakeOptional(old));
        }
        desiredOrder.add(old);
      }
    }

    // Where Iceberg would put the columns without moves: the kept ones in their order, then the
    // added ones in MySQL order.
    List<String> naturalOrder = new ArrayList<>();
    for (Types.NestedField field : current.columns()) {
      if (newNames.containsKey(field.name())) {
        naturalOrder.add(field.name());
      }
    }
    for (Step step : steps) {
      if (step instanceof AddColumn add) {
        naturalOrder.add(add.name());
      }
    }
    if (!naturalOrder.equals(desiredOrder)) {
      for (int i = 0; i < desiredOrder.size(); i++) {
        steps.add(
            new MoveColumn(
                desiredOrder.get(i),
                i == 0 ? Optional.empty() : Optional.of(desiredOrder.get(i - 1))));
      }
    }
    return new Plan(steps, Optional.empty());
  }

  /**
   * Plans the update of a route's table ({@link RouteSchema}) so that it holds one of the routed
   * tables as it is after a DDL, by the union rules: nothing another routed table may still have is
   * dropped or renamed. A column the table no longer has stays (null in the table's later rows); a
   * renamed column is added under its new name next to the old one, which keeps the other tables'
   * values; a column's type is widened when the table's is wider and kept when it is narrower; a
   * different primary key or a type Iceberg cannot promote is refused.
   */
  public static Plan planRouted(Schema current, SourceTable after) {
    Set<String> keyBefore = new HashSet<>();
    for (Integer id : current.identifierFieldIds()) {
      String name = current.findColumnName(id);
      if (!isSourceColumn(name)) {
        keyBefore.add(lower(name));
      }
    }
    Set<String> keyAfter = new HashSet<>();
    after.primaryKey().forEach(name -> keyAfter.add(lower(name)));
    if (!keyBefore.equals(keyAfter)) {
      return Plan.refused(
          "it changes the primary key of "
              + after.qualifiedName()
              + " to ("
              + String.join(", ", after.primaryKey())
              + "), and the route's rows are identified by ("
              + String.join(
                  ", ", keyNames(current).stream().filter(name -> !isSourceColumn(name)).toList())
              + ")");
    }
    List<Step> steps = new ArrayList<>();
    String previous = null;
    for (SourceColumn column : after.columns()) {
      if (isSourceColumn(column.name())) {
        return Plan.refused(
            "it adds column "
                + column.name()
                + ", the name of a column the route uses to tell its tables apart");
      }
      Type type;
      try {
        type = TypeMapping.icebergType(after, column);
      } catch (FloeException unsupported) {
        return Plan.refused(
            "column "
                + column.name()
                + " becomes "
                + column.columnType()
                + ", which Floe cannot sync");
      }
      Types.NestedField field = current.caseInsensitiveFindField(column.name());
      if (field == null) {
        steps.add(new AddColumn(column.name(), type));
        steps.add(new MoveColumn(column.name(), Optional.ofNullable(previous)));
        previous = column.name();
        continue;
      }
      if (!field.type().equals(type)) {
        if (type.isPrimitiveType()
            && TypeUtil.isPromotionAllowed(field.type(), type.asPrimitiveType())) {
          steps.add(new WidenColumn(field.name(), type.asPrimitiveType()));
        } else if (!field.type().isPrimitiveType()
            || !TypeUtil.isPromotionAllowed(type, field.type().asPrimitiveType())) {
          return Plan.refused(
              "it changes column "
                  + column.name()
                  + " of "
                  + after.qualifiedName()
                  + " to "
                  + column.columnType()
                  + ", which maps to Iceberg "
                  + type
                  + "; the route's column is "
                  + field.type()
                  + " and Iceberg can only widen int to long, float to double and a decimal's"
                  + " precision");
        }
      }
      if (field.isRequired() && !keyAfter.contains(lower(column.name()))) {
        steps.add(new MakeOptional(field.name()));
      }
      previous = field.name();
    }
    return new Plan(steps, Optional.empty());
  }

  private static boolean isSourceColumn(String name) {
    return name.equalsIgnoreCase(RouteSchema.DATABASE_COLUMN)
        || name.equalsIgnoreCase(RouteSchema.TABLE_COLUMN);
  }

  /** Old name (lower case) to new name of the columns a DDL renames. */
  static Map<String, String> renames(String ddl) {
    Map<String, String> renames = new HashMap<>();
    for (Pattern pattern : List.of(RENAME_COLUMN, CHANGE_COLUMN)) {
      Matcher matcher = pattern.matcher(ddl);
      while (matcher.find()) {
        String from = name(matcher, 1);
        String to = name(matcher, 3);
        if (!lower(from).equals(lower(to))) {
          renames.put(lower(from), to);
        }
      }
    }
    return renames;
  }

  private static String name(Matcher matcher, int group) {
    String quoted = matcher.group(group);
    return quoted != null ? quoted.replace("``", "`") : matcher.group(group + 1);
  }

  private static List<String> keyNames(Schema schema) {
    return schema.columns().stream()
        .filter(field -> schema.identifierFieldIds().contains(field.fieldId()))
        .map(Types.NestedField::name)
        .toList();
  }

  private static String lower(String name) {
    return name.toLowerCase(Locale.ROOT);
  }
}

package dev.floe.core.sync;

import static java.util.Objects.requireNonNull;

import dev.floe.core.error.FloeException;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * A route: every synced MySQL table whose {@code database.table} matches {@code pattern} lands in
 * the one Iceberg table {@code namespace.table} (sharded tables merged into one). Written {@code
 * REGEX -> NAMESPACE.TABLE}, e.g. {@code order_db_\d+\.orders_\d+ -> ods.orders}.
 */
public record TableRoute(Pattern pattern, String namespace, String table) {

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_$-]+");
  private static final String EXAMPLE = "'order_db_\\d+\\.orders_\\d+ -> ods.orders'";

  public TableRoute {
    requireNonNull(pattern, "pattern is null");
    requireNonNull(namespace, "namespace is null");
    requireNonNull(table, "table is null");
  }

  /**
   * Parses {@code REGEX -> NAMESPACE.TABLE}.
   *
   * @param option where the text comes from ({@code --route}, {@code sync.routes}), for the error
   * @throws FloeException BAD_INPUT naming the option and the text when it is not a route
   */
  public static TableRoute parse(String option, String text) {
    int arrow = text.lastIndexOf("->");
    String target = arrow < 0 ? "" : text.substring(arrow + 2).trim();
    int dot = target.lastIndexOf('.');
    if (arrow < 0
        || dot <= 0
        || !NAME.matcher(target.substring(0, dot)).matches()
        || !NAME.matcher(target.substring(dot + 1)).matches()) {
      throw FloeException.badInput(
          option
              + " '"
              + text
              + "' is not REGEX -> NAMESPACE.TABLE (a regular expression over database.table, an"
              + " arrow, and the Iceberg table of letters, digits and _), e.g. "
              + option
              + " "
              + EXAMPLE
              + ".");
    }
    String regex = text.substring(0, arrow).trim();
    try {
      return new TableRoute(
          Pattern.compile(regex), target.substring(0, dot), target.substring(dot + 1));
    } catch (PatternSyntaxException e) {
      throw FloeException.badInput(
          option
              + " '"
              + text
              + "': '"
              + regex
              + "' is not a valid regular expression ("
              + e.getDescription()
              + " at index "
              + e.getIndex()
              + "). Escape dots as \\. and quote the route in the shell, e.g. "
              + option
              + " "
              + EXAMPLE
              + ".");
    }
  }

  public boolean matches(String qualifiedName) {
    return pattern.matcher(qualifiedName).matches();
  }

  /** {@code namespace.table}. */
  public String target() {
    return namespace + "." + table;
  }

  /** The route as the user writes it. */
  public String text() {
    return pattern.pattern() + " -> " + target();
  }
}

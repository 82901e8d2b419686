package dev.floe.core.sync;

import static java.util.Objects.requireNonNull;

import dev.floe.core.error.FloeException;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Which MySQL tables a sync takes: {@code db.table} names matching any include pattern and no
 * exclude pattern (Java regular expressions over the whole name), and where each lands: the Iceberg
 * table of the first route it matches (many tables merged into one), else a table of the same name
 * in the namespace of the MySQL database name, unless a target namespace is given.
 */
public record TableSelection(
    List<Pattern> includes,
    List<Pattern> excludes,
    Optional<String> targetNamespace,
    List<TableRoute> routes) {

  public TableSelection {
    includes = List.copyOf(requireNonNull(includes, "includes is null"));
    excludes = List.copyOf(requireNonNull(excludes, "excludes is null"));
    requireNonNull(targetNamespace, "targetNamespace is null");
    routes = List.copyOf(requireNonNull(routes, "routes is null"));
  }

  public TableSelection(
      List<Pattern> includes, List<Pattern> excludes, Optional<String> targetNamespace) {
    this(includes, excludes, targetNamespace, List.of());
  }

  /**
   * Builds a selection from the user's patterns.
   *
   * @throws FloeException BAD_INPUT naming the option and the pattern when one does not compile
   */
  public static TableSelection of(
      List<String> includes, List<String> excludes, Optional<String> targetNamespace) {
    if (includes.isEmpty()) {
      throw FloeException.badInput(
          "No tables selected. Pass --tables with a regular expression over db.table, e.g."
              + " --tables 'shop\\..*' for every table of database shop, or set sync.tables in"
              + " floe.yaml.");
    }
    return new TableSelection(
        includes.stream().map(pattern -> compile("--tables", pattern)).toList(),
        excludes.stream().map(pattern -> compile("--exclude", pattern)).toList(),
        targetNamespace);
  }

  /**
   * This selection with routes, each {@code REGEX -> NAMESPACE.TABLE}.
   *
   * @param option where the routes come from, for errors
   * @throws FloeException BAD_INPUT naming the option and the route when one does not parse
   */
  public TableSelection withRoutes(String option, List<String> routes) {
    return new TableSelection(
        includes,
        excludes,
        targetNamespace,
        routes.stream().map(route -> TableRoute.parse(option, route)).toList());
  }

  /** The first route a table ({@code database.table}) matches. */
  public Optional<TableRoute> routeOf(String qualifiedName) {
    return routes.stream().filter(route -> route.matches(qualifiedName)).findFirst();
  }

  public boolean matches(String database, String table) {
    String name = database + "." + table;
    return includes.stream().anyMatch(pattern -> pattern.matcher(name).matches())
        && excludes.stream().noneMatch(pattern -> pattern.matcher(name).matches());
  }

  /** The Iceberg namespace a table of this database lands in. */
  public String namespaceFor(String database) {
    return targetNamespace.orElse(database);
  }

  private static Pattern compile(String option, String pattern) {
    try {
      return Pattern.compile(pattern);
    } catch (PatternSyntaxException e) {
      throw FloeException.badInput(
          option
              + " '"
              + pattern
              + "' is not a valid regular expression ("
              + e.getDescription()
              + " at index "
              + e.getIndex()
              + "). Escape dots as \\. and quote the pattern in the shell.");
    }
  }
}

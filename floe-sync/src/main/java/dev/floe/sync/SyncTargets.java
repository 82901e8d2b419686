package dev.floe.sync;

import static java.util.Objects.requireNonNull;

import dev.floe.core.sync.TableRoute;
import dev.floe.core.sync.TableSelection;
import java.io.Serializable;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Which MySQL tables a running sync takes and where each lands, shipped with the Flink job so that
 * a table created while it runs is recognised and named the same way as at start.
 */
record SyncTargets(
    List<String> includes, List<String> excludes, String targetNamespace, List<String> routes)
    implements Serializable {

  private static final Set<String> SYSTEM_DATABASES =
      Set.of("mysql", "information_schema", "performance_schema", "sys");

  SyncTargets {
    includes = List.copyOf(requireNonNull(includes, "includes is null"));
    excludes = List.copyOf(requireNonNull(excludes, "excludes is null"));
    requireNonNull(targetNamespace, "targetNamespace is null");
    routes = List.copyOf(requireNonNull(routes, "routes is null"));
  }

  static SyncTargets of(TableSelection selection) {
    return new SyncTargets(
        selection.includes().stream().map(Pattern::pattern).toList(),
        selection.excludes().stream().map(Pattern::pattern).toList(),
        selection.targetNamespace().orElse(""),
        selection.routes().stream().map(TableRoute::text).toList());
  }

  /** Whether the sync takes this table (same rule as {@link TableSelection#matches}). */
  boolean matches(String qualifiedName) {
    int dot = qualifiedName.indexOf('.');
    if (dot < 0
        || SYSTEM_DATABASES.contains(qualifiedName.substring(0, dot).toLowerCase(Locale.ROOT))) {
      return false;
    }
    return includes.stream().anyMatch(pattern -> qualifiedName.matches(pattern))
        && excludes.stream().noneMatch(pattern -> qualifiedName.matches(pattern));
  }

  /** The first route a source table ({@code database.table}) matches. */
  Optional<TableRoute> route(String qualifiedName) {
    return routes.stream()
        .map(route -> TableRoute.parse("sync.routes", route))
        .filter(route -> route.matches(qualifiedName))
        .findFirst();
  }

  /** The Iceberg table of a source table ({@code database.table}): its route's, or its own. */
  TableIdentifier identifier(String qualifiedName) {
    Optional<TableRoute> route = route(qualifiedName);
    if (route.isPresent()) {
      return TableIdentifier.of(Namespace.of(route.get().namespace()), route.get().table());
    }
    int dot = qualifiedName.indexOf('.');
    String database = qualifiedName.substring(0, dot);
    return TableIdentifier.of(
        Namespace.of(targetNamespace.isEmpty() ? database : targetNamespace),
        qualifiedName.substring(dot + 1));
  }

  /**
   * The Iceberg table of a writer's and committer's table key, which is {@link
   * TableIdentifier#toString()} of {@link #identifier}.
   */
  static TableIdentifier lakeTable(String key) {
    return TableIdentifier.parse(key);
  }

  /**
   * The CDC source's table filter: every table of the databases the include patterns can match
   * ({@link CaptureList}), so that a table renamed into or out of the selection arrives with its
   * definition; Floe checks each table against {@link #matches}.
   */
  String captureList() {
    return CaptureList.of(includes);
  }
}

package dev.floe.sync;

import static java.util.Objects.requireNonNull;

import dev.floe.core.sync.SyncProperties;
import dev.floe.mysql.MySqlConnections;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Finds, while a MySQL sync's binlog job runs, the tables renamed into its selection whose earlier
 * rows the binlog does not bring: the job created their Iceberg tables marked {@link
 * SyncProperties#COPY_NEEDED}. Each look is one {@code information_schema} query of the selected
 * tables' names; only a name not seen before has its Iceberg table's properties loaded, once it
 * exists (a created table's once, a renamed-in table's until its copy replaced the table).
 */
final class RenamedInTables implements RunningSync.Restarter {

  private final Catalog catalog;
  private final MySqlConnections connections;
  private final SyncOptions options;
  private final SyncTargets targets;
  private final Supplier<SyncRun> restart;

  /** Names whose Iceberg table was found without the mark, or that are not copied this way. */
  private final Set<String> seen;

  /**
   * @param known the tables the sync started with: their tables' marks were read at the start
   * @param restart starts the sync again (it copies the marked tables, then restores the job)
   */
  RenamedInTables(
      Catalog catalog,
      MySqlConnections connections,
      SyncOptions options,
      Set<String> known,
      Supplier<SyncRun> restart) {
    this.catalog = requireNonNull(catalog, "catalog is null");
    this.connections = requireNonNull(connections, "connections is null");
    this.options = requireNonNull(options, "options is null");
    this.targets = SyncTargets.of(options.selection());
    this.seen = new HashSet<>(requireNonNull(known, "known is null"));
    this.restart = requireNonNull(restart, "restart is null");
  }

  @Override
  public List<String> copyNeeded() throws Exception {
    List<String> names;
    try (Connection connection = connections.open(options.source().withoutDatabase())) {
      names = new SourceSchemaReader().names(connection, options.selection());
    }
    List<String> needed = new ArrayList<>();
    for (String name : names) {
      if (seen.contains(name)) {
        continue;
      }
      if (targets.route(name).isPresent()) {
        seen.add(name); // a route's table is not copied this way (docs/schema-changes.md)
        continue;
      }
      TableIdentifier identifier = targets.identifier(name);
      if (!catalog.tableExists(identifier)) {
        continue; // the job has not reached its CREATE or RENAME yet
      }
      if (catalog.loadTable(identifier).properties().containsKey(SyncProperties.COPY_NEEDED)) {
        needed.add(name);
      } else {
        seen.add(name);
      }
    }
    return needed;
  }

  @Override
  public SyncRun restart() {
    return restart.get();
  }
}

package dev.floe.sync;

import dev.floe.core.error.FloeException;
import dev.floe.core.sync.PartitionSpecs;
import dev.floe.core.sync.RouteSchema;
import dev.floe.core.sync.SourceTable;
import dev.floe.core.sync.SyncProperties;
import dev.floe.core.sync.TableRoute;
import dev.floe.core.sync.TableSelection;
import dev.floe.core.sync.TypeMapping;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates the Iceberg table of each source table (format v2, identifier fields = primary key), or
 * checks that an existing one still has the source's columns.
 */
public final class TableProvisioner {

  private static final Logger LOG = LoggerFactory.getLogger(TableProvisioner.class);

  /** The table property naming the MySQL table a synced table comes from. */
  public static final String SOURCE_PROPERTY = SyncProperties.SOURCE_TABLE;

  /** The Iceberg table of each source table ({@code database.table}), created if missing. */
  public Map<String, TableIdentifier> provision(
      Catalog catalog, List<SourceTable> tables, TableSelection selection) {
    return provision(catalog, tables, selection, Map.of(), false);
  }

  /**
   * The Iceberg table of each source table, created if missing with the configured partitioning.
   *
   * @param partitions partitioning per source table ({@code database.table}), see {@link
   *     PartitionSpecs}
   * @param resuming whether the sync resumes its binlog phase: existing tables may then differ from
   *     MySQL by DDL the binlog has not brought yet, so their columns are not compared
   */
  public Map<String, TableIdentifier> provision(
      Catalog catalog,
      List<SourceTable> tables,
      TableSelection selection,
      Map<String, String> partitions,
      boolean resuming) {
    return provisionTables(catalog, tables, selection, partitions, resuming).targets();
  }

  /**
   * What {@link #provision} found: the Iceberg table of each source table, and the source tables
   * ({@code database.table}, not of a route) whose Iceberg table is marked {@link
   * SyncProperties#COPY_NEEDED}: renamed into the selection, their earlier rows still to be copied.
   */
  record Provisioned(Map<String, TableIdentifier> targets, List<String> copyNeeded) {}

  /** {@link #provision}, also telling which tables wait for the copy of their earlier rows. */
  Provisioned provisionTables(
      Catalog catalog,
      List<SourceTable> tables,
      TableSelection selection,
      Map<String, String> partitions,
      boolean resuming) {
    requirePartitionedTablesExist(tables, selection, partitions);
    SyncTargets targets = SyncTargets.of(selection);
    Map<TableIdentifier, List<SourceTable>> byTarget = new LinkedHashMap<>();
    for (SourceTable source : tables) {
      byTarget
          .computeIfAbsent(targets.identifier(source.qualifiedName()), target -> new ArrayList<>())
          .add(source);
    }
    for (TableRoute route : selection.routes()) {
      if (tables.stream().noneMatch(table -> route.matches(table.qualifiedName()))) {
        LOG.warn(
            "route '{}' matches none of the synced tables yet; tables created later that match"
                + " it will land in {}",
            route.text(),
            route.target());
      }
    }
    Map<String, TableIdentifier> provisioned = new LinkedHashMap<>();
    List<String> copyNeeded = new ArrayList<>();
    for (Map.Entry<TableIdentifier, List<SourceTable>> target : byTarget.entrySet()) {
      TableIdentifier identifier = target.getKey();
      List<SourceTable> sources = target.getValue();
      Optional<TableRoute> route = selection.routeOf(sources.get(0).qualifiedName());
      requireOneKind(identifier, sources, selection);
      Schema schema = expectedSchema(selection, sources);
      String name = route.map(TableRoute::target).orElse(sources.get(0).qualifiedName());
      String label =
          route.map(r -> "the tables of route '" + r.text() + "'").orElse("MySQL table " + name);
      PartitionSpec spec =
          partitions.containsKey(name)
              ? PartitionSpecs.parse(name, partitions.get(name), schema)
              : PartitionSpec.unpartitioned();
      String sourceProperty =
          route.map(r -> r.pattern().pattern()).orElse(sources.get(0).qualifiedName());
      if (catalog.tableExists(identifier)) {
        Table existing = catalog.loadTable(identifier);
        check(existing, name, label, schema, spec, resuming);
        if (route.isEmpty() && existing.properties().containsKey(SyncProperties.COPY_NEEDED)) {
          copyNeeded.add(name);
        }
      } else {
        try {
          create(catalog, identifier, sourceProperty, schema, spec, Map.of());
        } catch (AlreadyExistsException createdConcurrently) {
          check(catalog.loadTable(identifier), name, label, schema, spec, resuming);
        }
      }
      sources.forEach(source -> provisioned.put(source.qualifiedName(), identifier));
    }
    return new Provisioned(provisioned, copyNeeded);
  }

  /**
   * The existing Iceberg tables of these source tables whose columns differ from what the tables
   * map to now (one altered while a copy of it ran): a copy that replaces their rows cannot write
   * into them.
   */
  public List<TableIdentifier> withOtherColumns(
      Catalog catalog, List<SourceTable> tables, TableSelection selection) {
    SyncTargets targets = SyncTargets.of(selection);
    Map<TableIdentifier, List<SourceTable>> byTarget = new LinkedHashMap<>();
    for (SourceTable source : tables) {
      byTarget
          .computeIfAbsent(targets.identifier(source.qualifiedName()), target -> new ArrayList<>())
          .add(source);
    }
    List<TableIdentifier> differing = new ArrayList<>();
    byTarget.forEach(
        (identifier, sources) -> {
          if (catalog.tableExists(identifier)
              && !columns(catalog.loadTable(identifier).schema())
                  .equals(columns(expectedSchema(selection, sources)))) {
            differing.add(identifier);
          }
        });
    return differing;
  }

  /** The Iceberg schema the source tables of one Iceberg table map to. */
  private static Schema expectedSchema(TableSelection selection, List<SourceTable> sources) {
    Optional<TableRoute> route = selection.routeOf(sources.get(0).qualifiedName());
    return route.isPresent()
        ? RouteSchema.union(route.get().text(), sources)
        : TypeMapping.icebergSchema(sources.get(0));
  }

  /** sync.partitions names synced tables that are not routed, or routes' Iceberg tables. */
  private static void requirePartitionedTablesExist(
      List<SourceTable> tables, TableSelection selection, Map<String, String> partitions) {
    List<String> unrouted =
        tables.stream()
            .map(SourceTable::qualifiedName)
            .filter(name -> selection.routeOf(name).isEmpty())
            .toList();
    List<String> routed = selection.routes().stream().map(TableRoute::target).toList();
    for (String configured : partitions.keySet()) {
      if (!unrouted.contains(configured) && !routed.contains(configured)) {
        throw FloeException.badInput(
            "sync.partitions names "
                + configured
                + ", which is not among the synced tables ("
                + String.join(", ", unrouted)
                + (routed.isEmpty() ? "" : "; routes' tables: " + String.join(", ", routed))
                + "). Use the MySQL name database.table of a synced table, or the Iceberg"
                + " namespace.table of a route.");
      }
    }
  }

  /**
   * Refuses tables that would share an Iceberg table without a route (same table name in several
   * databases with one target namespace), or a route's table that is also an unrouted table's.
   */
  private static void requireOneKind(
      TableIdentifier identifier, List<SourceTable> sources, TableSelection selection) {
    List<String> unrouted =
        sources.stream()
            .map(SourceTable::qualifiedName)
            .filter(name -> selection.routeOf(name).isEmpty())
            .toList();
    if (unrouted.isEmpty() || sources.size() == 1) {
      return;
    }
    throw FloeException.badInput(
        String.join(", ", sources.stream().map(SourceTable::qualifiedName).toList())
            + " would all land in Iceberg table "
            + identifier
            + (unrouted.size() == sources.size()
                ? " (--target-namespace puts every table in one namespace)"
                : " (a route's table has the name of " + String.join(", ", unrouted) + ")")
            + ", and rows with equal keys would overwrite each other. Merge them on purpose with"
            + " --route 'REGEX -> "
            + identifier
            + "' (the rows keep their source in _source_db and _source_table), or give them"
            + " different Iceberg tables.");
  }

  /** A spec as text with column names, comparable across field ids: "day(created_at), ...". */
  private static String describe(PartitionSpec spec) {
    return String.join(
        ", ",
        spec.fields().stream()
            .map(
                field ->
                    field.transform() + "(" + spec.schema().findColumnName(field.sourceId()) + ")")
            .toList());
  }

  /**
   * Creates a synced table: format v2, the source named in {@link SyncProperties#SOURCE_TABLE},
   * Floe's commit retries ({@link SyncProperties#COMMIT_RETRY_DEFAULTS}), its namespace created if
   * missing.
   *
   * @throws AlreadyExistsException when the table exists
   */
  static void create(
      Catalog catalog,
      TableIdentifier identifier,
      String source,
      Schema schema,
      PartitionSpec spec,
      Map<String, String> properties) {
    ensureNamespace(catalog, identifier.namespace());
    Map<String, String> withRetries = new HashMap<>(SyncProperties.COMMIT_RETRY_DEFAULTS);
    withRetries.putAll(properties);
    catalog
        .buildTable(identifier, schema)
        .withPartitionSpec(spec)
        .withProperties(withRetries)
        .withProperty(TableProperties.FORMAT_VERSION, "2")
        .withProperty(SyncProperties.SOURCE_TABLE, source)
        .create();
  }

  private static void ensureNamespace(Catalog catalog, Namespace namespace) {
    if (catalog instanceof SupportsNamespaces namespaces
        && !namespaces.namespaceExists(namespace)) {
      try {
        namespaces.createNamespace(namespace);
      } catch (AlreadyExistsException createdConcurrently) {
        // another process created it first
      }
    }
  }

  /** Columns as names and types, comparable across field ids and optionality. */
  private static List<String> columns(Schema schema) {
    return schema.columns().stream()
        .map(
            column ->
                column.name()
                    + " "
                    + column.type()
                    + (schema.identifierFieldIds().contains(column.fieldId()) ? " key" : ""))
        .toList();
  }

  private static void check(
      Table table,
      String source,
      String label,
      Schema expected,
      PartitionSpec expectedSpec,
      boolean resuming) {
    if (!describe(table.spec()).equals(describe(expectedSpec))) {
      throw FloeException.badInput(
          "Iceberg table "
              + table.name()
              + " exists partitioned by ["
              + describe(table.spec())
              + "] but the configuration asks for ["
              + describe(expectedSpec)
              + "] (sync.partitions for "
              + source
              + "). Change sync.partitions to match, or evolve the table's partitioning with"
              + " ALTER TABLE first.");
    }
    if (!resuming && !columns(table.schema()).equals(columns(expected))) {
      throw FloeException.badInput(
          "Iceberg table "
              + table.name()
              + " exists but its columns differ from "
              + label
              + " (Iceberg: "
              + String.join(", ", columns(table.schema()))
              + "; MySQL maps to: "
              + String.join(", ", columns(expected))
              + "). Sync into another namespace with --target-namespace, or drop the Iceberg table"
              + " to re-create it.");
    }
    String format = table.properties().getOrDefault(TableProperties.FORMAT_VERSION, "2");
    if (((org.apache.iceberg.BaseTable) table).operations().current().formatVersion() < 2) {
      throw FloeException.badInput(
          "Iceberg table "
              + table.name()
              + " is format version "
              + format
              + "; sync needs format version 2"
              + " for row-level deletes. Upgrade it with ALTER TABLE ... SET TBLPROPERTIES ('format-version'='2').");
    }
  }
}

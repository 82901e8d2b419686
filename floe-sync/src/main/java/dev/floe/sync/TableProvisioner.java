package dev.floe.sync;

import dev.floe.core.error.FloeException;
import dev.floe.core.sync.PartitionSpecs;
import dev.floe.core.sync.SourceTable;
import dev.floe.core.sync.SyncProperties;
import dev.floe.core.sync.TableSelection;
import dev.floe.core.sync.TypeMapping;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;

/**
 * Creates the Iceberg table of each source table (format v2, identifier fields = primary key), or
 * checks that an existing one still has the source's columns.
 */
public final class TableProvisioner {

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
    for (String configured : partitions.keySet()) {
      if (tables.stream().noneMatch(table -> table.qualifiedName().equals(configured))) {
        throw FloeException.badInput(
            "sync.partitions names "
                + configured
                + ", which is not among the synced tables ("
                + String.join(", ", tables.stream().map(SourceTable::qualifiedName).toList())
                + "). Use the MySQL name database.table of a synced table.");
      }
    }
    Map<String, TableIdentifier> targets = new LinkedHashMap<>();
    for (SourceTable source : tables) {
      Schema schema = TypeMapping.icebergSchema(source);
      PartitionSpec spec =
          partitions.containsKey(source.qualifiedName())
              ? PartitionSpecs.parse(
                  source.qualifiedName(), partitions.get(source.qualifiedName()), schema)
              : PartitionSpec.unpartitioned();
      TableIdentifier identifier = SyncTargets.of(selection).identifier(source.qualifiedName());
      if (catalog.tableExists(identifier)) {
        check(catalog.loadTable(identifier), source, schema, spec, resuming);
      } else {
        try {
          create(catalog, identifier, source.qualifiedName(), schema, spec, Map.of());
        } catch (AlreadyExistsException createdConcurrently) {
          check(catalog.loadTable(identifier), source, schema, spec, resuming);
        }
      }
      targets.put(source.qualifiedName(), identifier);
    }
    return targets;
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
   * Creates a synced table: format v2, the source named in {@link SyncProperties#SOURCE_TABLE}, its
   * namespace created if missing.
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
    catalog
        .buildTable(identifier, schema)
        .withPartitionSpec(spec)
        .withProperties(properties)
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
      SourceTable source,
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
              + source.qualifiedName()
              + "). Change sync.partitions to match, or evolve the table's partitioning with"
              + " ALTER TABLE first.");
    }
    if (!resuming && !columns(table.schema()).equals(columns(expected))) {
      throw FloeException.badInput(
          "Iceberg table "
              + table.name()
              + " exists but its columns differ from MySQL table "
              + source.qualifiedName()
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

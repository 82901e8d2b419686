package dev.floe.sync;

import static java.util.Objects.requireNonNull;

import dev.floe.core.sync.SyncProperties;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchTableException;

/**
 * The names synced Iceberg tables had before a MySQL {@code RENAME TABLE} ({@link
 * SyncProperties#RENAMED_FROM}), and how to find a table by one of them.
 *
 * <p>A catalog finds a table by its current name only. A table's old name is needed after a rename
 * by records and pending files made before it: rows replayed after a restore from a checkpoint
 * taken before the rename, files a writer closed under the old name. They are found by listing the
 * old name's namespace and reading each table's properties: slow for a namespace of many tables, so
 * callers do it only when a name is missing, and remember what they found.
 */
final class RenamedTables {

  private RenamedTables() {}

  /** One former name: the MySQL table and Iceberg identifier a table had until a rename. */
  record FormerName(BinlogPosition until, String source, String identifier) {
    FormerName {
      requireNonNull(until, "until is null");
      requireNonNull(source, "source is null");
      requireNonNull(identifier, "identifier is null");
    }

    String text() {
      return until.text() + ">" + source + ">" + identifier;
    }
  }

  /** The former names recorded in a table's properties, oldest first. */
  static List<FormerName> of(Map<String, String> properties) {
    List<FormerName> names = new ArrayList<>();
    for (String entry : properties.getOrDefault(SyncProperties.RENAMED_FROM, "").split(";")) {
      String[] parts = entry.split(">", 3);
      if (parts.length == 3) {
        names.add(new FormerName(BinlogPosition.parse(parts[0]), parts[1], parts[2]));
      }
    }
    return names;
  }

  /** The property's value with one more former name. */
  static String with(Map<String, String> properties, FormerName name) {
    String before = properties.getOrDefault(SyncProperties.RENAMED_FROM, "");
    return before.isEmpty() ? name.text() : before + ";" + name.text();
  }

  /** A table of the namespace with its former names, for tables that have some. */
  record Renamed(TableIdentifier identifier, String uuid, List<FormerName> formerNames) {}

  /**
   * The tables of a namespace that were renamed. Blocks on the catalog: lists the namespace and
   * loads each table.
   */
  static List<Renamed> in(Catalog catalog, Namespace namespace) {
    List<Renamed> renamed = new ArrayList<>();
    for (TableIdentifier identifier : catalog.listTables(namespace)) {
      Table table;
      try {
        table = catalog.loadTable(identifier);
      } catch (NoSuchTableException dropped) {
        continue; // dropped while listed
      }
      List<FormerName> names = of(table.properties());
      if (!names.isEmpty()) {
        renamed.add(new Renamed(identifier, table.uuid().toString(), names));
      }
    }
    return renamed;
  }

  /**
   * The table now called otherwise that was called {@code key} (a writer's and committer's table
   * key): the one of that UUID, or without one, the one renamed away from the name last.
   */
  static Optional<TableIdentifier> formerlyCalled(
      Catalog catalog, String key, Optional<String> uuid) {
    TableIdentifier old = SyncTargets.lakeTable(key);
    Optional<TableIdentifier> found = Optional.empty();
    BinlogPosition latest = BinlogPosition.NONE;
    for (Renamed table : in(catalog, old.namespace())) {
      if (uuid.isPresent()) {
        if (uuid.get().equals(table.uuid())) {
          return Optional.of(table.identifier());
        }
        continue;
      }
      for (FormerName name : table.formerNames()) {
        if (name.identifier().equals(key) && name.until().compareTo(latest) > 0) {
          latest = name.until();
          found = Optional.of(table.identifier());
        }
      }
    }
    return found;
  }
}

package dev.floe.core.state;

import static java.util.Objects.requireNonNull;

/**
 * A table as every state store keys it: the catalog's name and the table as NS.NAME.
 *
 * @param catalog the catalog's name
 * @param table the table, NAMESPACE.NAME (a namespace may have several levels)
 */
public record TableKey(String catalog, String table) {

  public TableKey {
    requireNonNull(catalog, "catalog is null");
    requireNonNull(table, "table is null");
    if (catalog.isBlank() || !table.contains(".") || table.startsWith(".") || table.endsWith(".")) {
      throw new IllegalArgumentException("not a catalog and NS.NAME: " + catalog + " " + table);
    }
  }

  @Override
  public String toString() {
    return catalog + ":" + table;
  }
}

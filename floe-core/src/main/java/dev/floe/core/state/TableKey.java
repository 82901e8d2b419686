package dev.floe.core.state;

import static java.util.Objects.requireNonNull;

import dev.floe.core.error.FloeException;

/**
 * Which table a piece of state belongs to. Every state store keys by catalog and table alike, so
 * two catalogs' tables of the same name never share state.
 *
 * @param catalog the catalog's name, e.g. {@code floe}
 * @param table the table as NS.NAME (a namespace may have several levels: {@code a.b.orders})
 */
public record TableKey(String catalog, String table) {

  /**
   * @throws IllegalArgumentException when the catalog name is blank
   * @throws FloeException BAD_INPUT when the table is not written NS.NAME
   */
  public TableKey {
    requireNonNull(catalog, "catalog is null");
    requireNonNull(table, "table is null");
    if (catalog.isBlank()) {
      throw new IllegalArgumentException("catalog is blank");
    }
    if (!isTableName(table)) {
      throw FloeException.badInput(
          "Invalid table name '" + table + "': write it as NAMESPACE.TABLE, e.g. shop.orders.");
    }
  }

  /** Whether {@code name} is NS.NAME: at least two parts, none of them empty. */
  public static boolean isTableName(String name) {
    if (name == null || !name.contains(".")) {
      return false;
    }
    for (String part : name.split("\\.", -1)) {
      if (part.isEmpty()) {
        return false;
      }
    }
    return true;
  }
}

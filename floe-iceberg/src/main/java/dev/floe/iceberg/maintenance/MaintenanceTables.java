package dev.floe.iceberg.maintenance;

import dev.floe.core.error.FloeException;
import dev.floe.core.state.TableKey;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchTableException;

/** Loads the table a maintenance command names, with an explained error when it is not there. */
public final class MaintenanceTables {

  private MaintenanceTables() {}

  /**
   * @param name NS.TABLE (a namespace may have several levels: a.b.table)
   * @throws FloeException BAD_INPUT when the name is malformed or the table does not exist
   */
  public static Table load(Catalog catalog, String name) {
    if (!TableKey.isTableName(name)) {
      throw FloeException.badInput(
          "Invalid table name '" + name + "': write it as NAMESPACE.TABLE, e.g. shop.orders.");
    }
    try {
      return catalog.loadTable(TableIdentifier.parse(name));
    } catch (NoSuchTableException e) {
      throw FloeException.badInput(
          "Table "
              + name
              + " does not exist in catalog '"
              + catalog.name()
              + "'. Nothing was changed. Check the name (NAMESPACE.TABLE) and the catalog settings.");
    }
  }
}

package dev.floe.server.discovery;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Lists a catalog through the Iceberg catalog API: every namespace (nested ones too), then its
 * tables. The listing carries no metadata locations, so each listed table is evaluated by loading
 * it; used for catalogs whose storage Floe cannot query directly (REST, Hadoop).
 */
public final class CatalogApiLister implements TableLister {

  private final Catalog catalog;

  public CatalogApiLister(Catalog catalog) {
    this.catalog = requireNonNull(catalog, "catalog is null");
  }

  @Override
  public List<ListedTable> list() {
    List<ListedTable> tables = new ArrayList<>();
    if (!(catalog instanceof SupportsNamespaces namespaces)) {
      return tables;
    }
    List<Namespace> pending = new ArrayList<>(namespaces.listNamespaces());
    while (!pending.isEmpty()) {
      Namespace namespace = pending.remove(pending.size() - 1);
      for (TableIdentifier identifier : catalog.listTables(namespace)) {
        tables.add(new ListedTable(identifier.toString(), Optional.empty()));
      }
      pending.addAll(namespaces.listNamespaces(namespace));
    }
    return tables;
  }
}

package dev.floe.core.config;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * One item of {@code keeper.catalogs}: a catalog the keeper maintains beside the top-level one.
 *
 * @param catalog how to reach it (never {@link CatalogType#EMBEDDED})
 * @param include regular expressions over {@code NAMESPACE.TABLE} of the tables to maintain; empty
 *     = all
 * @param exclude regular expressions over {@code NAMESPACE.TABLE} of tables to leave alone
 */
public record KeeperCatalog(CatalogSettings catalog, List<String> include, List<String> exclude) {

  public KeeperCatalog {
    requireNonNull(catalog, "catalog is null");
    include = List.copyOf(requireNonNull(include, "include is null"));
    exclude = List.copyOf(requireNonNull(exclude, "exclude is null"));
  }
}

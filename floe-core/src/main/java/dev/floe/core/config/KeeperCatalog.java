package dev.floe.core.config;

import static java.util.Objects.requireNonNull;

import java.util.List;

/** A catalog the keeper keeps beside the top-level one, with its table filters. */
public record KeeperCatalog(CatalogSettings catalog, List<String> include, List<String> exclude) {
  public KeeperCatalog {
    requireNonNull(catalog, "catalog is null");
    include = List.copyOf(requireNonNull(include, "include is null"));
    exclude = List.copyOf(requireNonNull(exclude, "exclude is null"));
  }
}

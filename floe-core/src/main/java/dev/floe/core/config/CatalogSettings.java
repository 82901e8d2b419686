package dev.floe.core.config;

import static java.util.Objects.requireNonNull;

import java.util.Map;
import java.util.Optional;

/**
 * How to reach the Iceberg catalog.
 *
 * @param type the kind of catalog
 * @param name the catalog's name (the first part of {@code catalog.ns.table} in SQL)
 * @param uri where the catalog service lives; absent for the embedded and Hadoop catalogs
 * @param warehouse the warehouse location; absent means the catalog's (or Floe's) default
 * @param properties further Iceberg catalog properties, passed through as they are
 */
public record CatalogSettings(
    CatalogType type,
    String name,
    Optional<String> uri,
    Optional<String> warehouse,
    Map<String, String> properties) {

  public CatalogSettings {
    requireNonNull(type, "type is null");
    requireNonNull(name, "name is null");
    requireNonNull(uri, "uri is null");
    requireNonNull(warehouse, "warehouse is null");
    properties = Map.copyOf(requireNonNull(properties, "properties is null"));
  }

  /** The embedded default: SQLite catalog {@code floe} in the data directory. */
  public static CatalogSettings embedded() {
    return new CatalogSettings(
        CatalogType.EMBEDDED, "floe", Optional.empty(), Optional.empty(), Map.of());
  }
}

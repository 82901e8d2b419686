package dev.floe.sql;

import static java.util.Objects.requireNonNull;

import dev.floe.iceberg.io.HadoopConf;
import java.util.Map;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.flink.CatalogLoader;

/**
 * Hands Iceberg's Flink catalog the catalog exactly as Floe opens it: the same name and properties
 * (type, uri, warehouse, extra properties), built by {@link CatalogUtil#buildIcebergCatalog} with a
 * default Hadoop configuration, as {@code dev.floe.iceberg.CatalogFactory} does. So {@code floe
 * sql} works for every catalog type Floe supports, and Iceberg's own {@code catalog-type} switch
 * (which knows no JDBC catalog) is not involved.
 */
final class FloeCatalogLoader implements CatalogLoader {
  private static final long serialVersionUID = 1L;

  private final String name;
  private final Map<String, String> properties;

  FloeCatalogLoader(String name, Map<String, String> properties) {
    this.name = requireNonNull(name, "name is null");
    this.properties = Map.copyOf(requireNonNull(properties, "properties is null"));
  }

  @Override
  public Catalog loadCatalog() {
    return CatalogUtil.buildIcebergCatalog(name, properties, HadoopConf.create(properties));
  }

  @Override
  public CatalogLoader clone() {
    return new FloeCatalogLoader(name, properties);
  }

  /** Never the properties: they may hold passwords. */
  @Override
  public String toString() {
    return "FloeCatalogLoader{name=" + name + "}";
  }
}

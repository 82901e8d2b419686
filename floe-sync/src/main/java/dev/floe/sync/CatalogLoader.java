package dev.floe.sync;

import java.io.Serializable;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;

/** How Flink tasks open the Iceberg catalog: its name and properties, shipped with the job. */
record CatalogLoader(String name, Map<String, String> properties) implements Serializable {

  CatalogLoader {
    properties = Map.copyOf(properties);
  }

  Catalog open() {
    return CatalogUtil.buildIcebergCatalog(name, properties, new Configuration());
  }

  @Override
  public String toString() {
    return "catalog " + name;
  }
}

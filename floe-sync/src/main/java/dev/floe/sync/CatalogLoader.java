package dev.floe.sync;

import dev.floe.iceberg.io.HadoopConf;
import java.io.Serializable;
import java.sql.Driver;
import java.util.Iterator;
import java.util.Map;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;

/** How Flink tasks open the Iceberg catalog: its name and properties, shipped with the job. */
record CatalogLoader(String name, Map<String, String> properties) implements Serializable {

  CatalogLoader {
    properties = Map.copyOf(properties);
  }

  Catalog open() {
    registerJdbcDrivers();
    return CatalogUtil.buildIcebergCatalog(name, properties, HadoopConf.create(properties));
  }

  /**
   * On a Flink cluster the JDBC drivers (SQLite for the embedded catalog) come with the job's jars,
   * which DriverManager's own lookup (on the cluster's classpath) does not see; loading them here
   * registers them for the job's class loader.
   */
  private static void registerJdbcDrivers() {
    Iterator<Driver> drivers =
        ServiceLoader.load(Driver.class, CatalogLoader.class.getClassLoader()).iterator();
    while (drivers.hasNext()) {
      try {
        drivers.next(); // instantiating a driver registers it with DriverManager
      } catch (ServiceConfigurationError unusable) {
        // a driver that cannot load here is not the catalog's; DriverManager reports what is
        // missing
      }
    }
  }

  @Override
  public String toString() {
    return "catalog " + name;
  }
}

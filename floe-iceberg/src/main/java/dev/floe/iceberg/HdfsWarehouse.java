package dev.floe.iceberg;

import dev.floe.core.error.FloeException;
import dev.floe.iceberg.io.HadoopConf;
import java.io.IOException;
import java.net.URI;
import java.util.Locale;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.iceberg.CatalogProperties;

/**
 * A warehouse on HDFS ({@code hdfs://} locations, or a scheme-less path when {@code catalog.hadoop}
 * sets {@code fs.defaultFS} to one): read and written through Iceberg's HadoopFileIO with Hadoop's
 * HDFS client and the catalog's Hadoop settings ({@link HadoopConf}). Before a command does any
 * work the warehouse is looked up once, so a NameNode that does not answer stops the command with a
 * message that names it instead of failing the first write.
 */
final class HdfsWarehouse {

  private HdfsWarehouse() {}

  /**
   * Looks the warehouse up once when it is on HDFS; other locations are left alone.
   *
   * @throws FloeException SOURCE_UNAVAILABLE when the NameNode cannot be reached or refuses the
   *     lookup; BAD_INPUT when the location is not a usable HDFS URI
   */
  static void check(String catalog, Map<String, String> properties) {
    String warehouse = properties.get(CatalogProperties.WAREHOUSE_LOCATION);
    if (warehouse == null || warehouse.isBlank()) {
      return;
    }
    Configuration configuration = HadoopConf.create(properties);
    URI location;
    try {
      location = new Path(warehouse).toUri();
    } catch (IllegalArgumentException e) {
      return; // not a Hadoop path; the catalog reports it
    }
    URI fileSystem =
        location.getScheme() == null ? FileSystem.getDefaultUri(configuration) : location;
    if (!"hdfs".equals(String.valueOf(fileSystem.getScheme()).toLowerCase(Locale.ROOT))) {
      return;
    }
    if (fileSystem.getAuthority() == null || fileSystem.getAuthority().isEmpty()) {
      if (configuration.get("fs.defaultFS", "").startsWith("hdfs://")) {
        fileSystem = FileSystem.getDefaultUri(configuration);
      } else {
        throw FloeException.badInput(
            "The warehouse "
                + warehouse
                + " of catalog '"
                + catalog
                + "' names no NameNode. Write it as hdfs://NAMENODE:PORT/PATH, or set"
                + " fs.defaultFS under catalog.hadoop in floe.yaml.");
      }
    }
    // A private client, closed after the check: the cached one that Iceberg uses later keeps the
    // catalog's settings. One connection attempt: the check must answer in seconds.
    Configuration once = new Configuration(configuration);
    once.setInt("ipc.client.connect.max.retries", 0);
    once.setInt("ipc.client.connect.max.retries.on.timeouts", 0);
    once.setInt("ipc.client.connect.timeout", 10_000);
    try (FileSystem client = FileSystem.newInstance(fileSystem, once)) {
      client.exists(new Path(warehouse));
    } catch (IOException | RuntimeException e) {
      throw FloeException.sourceUnavailable(
          "Cannot reach HDFS at "
              + fileSystem.getScheme()
              + "://"
              + fileSystem.getAuthority()
              + " for the warehouse "
              + warehouse
              + " of catalog '"
              + catalog
              + "': "
              + CatalogFactory.redact(CatalogFactory.causes(e), properties)
              + ". Check catalog.warehouse and catalog.hadoop in floe.yaml and that the NameNode"
              + " runs and is reachable from this machine.",
          e);
    }
  }
}

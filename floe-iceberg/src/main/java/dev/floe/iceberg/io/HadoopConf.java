package dev.floe.iceberg.io;

import java.util.Map;
import org.apache.hadoop.conf.Configuration;

/**
 * The Hadoop configuration Floe gives Iceberg's catalogs and Hadoop-based FileIOs: Hadoop's
 * defaults, with local files ({@code file:}) written through {@link ForklessLocalFileSystem}, and
 * the catalog's Hadoop settings (floe.yaml's {@code catalog.hadoop}, kept among the catalog
 * properties as {@code hadoop.KEY}, the prefix Iceberg's Spark catalogs use for the same purpose).
 * Other schemes keep Hadoop's own file systems: {@code hdfs:} is Hadoop's HDFS client.
 *
 * <p>Why the local file system is replaced: without Hadoop's native library (which Maven's Hadoop
 * jars do not carry), Hadoop's local file system sets the permissions of every file and directory
 * it creates by running {@code chmod} in a child process. An Iceberg commit writes four files
 * (manifests, a manifest list, a metadata file) and their four checksum files, so each commit on
 * local disk started eight processes; they were most of a commit's time (docs/sync.md, "Commit
 * cost").
 */
public final class HadoopConf {

  /** The prefix of catalog properties that are Hadoop settings. */
  public static final String PROPERTY_PREFIX = "hadoop.";

  private HadoopConf() {}

  /** A new configuration: Hadoop's defaults and resources, local files without child processes. */
  public static Configuration create() {
    Configuration configuration = new Configuration();
    configuration.set("fs.file.impl", ForklessLocalFileSystem.class.getName());
    return configuration;
  }

  /**
   * As {@link #create()}, with every {@code hadoop.KEY} catalog property set as Hadoop's {@code
   * KEY} (e.g. {@code hadoop.dfs.replication=1}, {@code hadoop.fs.defaultFS=hdfs://nn:8020}).
   */
  public static Configuration create(Map<String, String> catalogProperties) {
    Configuration configuration = create();
    catalogProperties.forEach(
        (key, value) -> {
          if (key.startsWith(PROPERTY_PREFIX) && key.length() > PROPERTY_PREFIX.length()) {
            configuration.set(key.substring(PROPERTY_PREFIX.length()), value);
          }
        });
    return configuration;
  }
}

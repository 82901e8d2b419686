package dev.floe.iceberg.io;

import org.apache.hadoop.conf.Configuration;

/**
 * The Hadoop configuration Floe gives Iceberg's catalogs and Hadoop-based FileIOs: Hadoop's
 * defaults, with local files ({@code file:}) written through {@link ForklessLocalFileSystem}.
 *
 * <p>Why: without Hadoop's native library (which Maven's Hadoop jars do not carry), Hadoop's local
 * file system sets the permissions of every file and directory it creates by running {@code chmod}
 * in a child process. An Iceberg commit writes four files (manifests, a manifest list, a metadata
 * file) and their four checksum files, so each commit on local disk started eight processes; they
 * were most of a commit's time (docs/sync.md, "Commit cost").
 */
public final class HadoopConf {

  private HadoopConf() {}

  /** A new configuration: Hadoop's defaults and resources, local files without child processes. */
  public static Configuration create() {
    Configuration configuration = new Configuration();
    configuration.set("fs.file.impl", ForklessLocalFileSystem.class.getName());
    return configuration;
  }
}

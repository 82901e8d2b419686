package dev.floe.core.config;

import java.util.Locale;

/** Which Iceberg catalog Floe talks to. */
public enum CatalogType {
  /** Floe's default: an Iceberg JDBC catalog in a SQLite file under the data directory. */
  EMBEDDED,
  /** An Iceberg JDBC catalog on a database server (PostgreSQL, MySQL) at {@code catalog.uri}. */
  JDBC,
  /** An Iceberg REST catalog at {@code catalog.uri}. */
  REST,
  /** A Hadoop (file-system) catalog in {@code catalog.warehouse}. */
  HADOOP;

  public String configName() {
    return name().toLowerCase(Locale.ROOT);
  }
}

package dev.floe.iceberg;

import static java.util.Objects.requireNonNull;

import dev.floe.core.Secret;
import dev.floe.core.config.CatalogSettings;
import dev.floe.core.config.CatalogType;
import dev.floe.core.error.FloeException;
import dev.floe.iceberg.io.HadoopConf;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;

/**
 * Opens the configured Iceberg catalog. The embedded default is Iceberg's own {@code JdbcCatalog}
 * on a SQLite file, so any Iceberg client given {@link #embeddedProperties(Path)} reads the same
 * tables.
 *
 * <p>SQLite runs in WAL mode with a long busy timeout: several processes (a sync job, the keeper, a
 * verification) may create tables and commit at once; a writer waits for another instead of failing
 * with "database is locked". Creating the catalog's own tables is serialised by a file lock,
 * because Iceberg's "create if missing" is not atomic across processes.
 */
public final class CatalogFactory {

  /** The embedded catalog's database file under the data directory. */
  public static final String CATALOG_FILE = "catalog.db";

  /** The embedded warehouse directory under the data directory. */
  public static final String WAREHOUSE_DIRECTORY = "warehouse";

  private static final Object IN_PROCESS_LOCK = new Object();

  /**
   * Opens the catalog. Blocks while another process initialises the embedded catalog.
   *
   * @throws FloeException BAD_INPUT when the settings cannot make a catalog, SOURCE_UNAVAILABLE
   *     when the catalog cannot be reached
   */
  public FloeCatalog open(CatalogSettings settings, Path dataDirectory) {
    requireNonNull(settings, "settings is null");
    requireNonNull(dataDirectory, "dataDirectory is null");
    Map<String, String> properties = new LinkedHashMap<>();
    if (settings.type() == CatalogType.EMBEDDED) {
      properties.putAll(embeddedProperties(dataDirectory));
      properties.putAll(settings.properties());
      return openEmbedded(settings.name(), properties, dataDirectory);
    }
    properties.put(CatalogUtil.ICEBERG_CATALOG_TYPE, settings.type().configName());
    settings.uri().ifPresent(uri -> properties.put(CatalogProperties.URI, uri));
    settings
        .warehouse()
        .ifPresent(warehouse -> properties.put(CatalogProperties.WAREHOUSE_LOCATION, warehouse));
    properties.putAll(settings.properties());
    S3Warehouse.useS3FileIo(properties);
    S3Warehouse.check(settings.name(), properties);
    HdfsWarehouse.check(settings.name(), properties);
    return new FloeCatalog(build(settings.name(), properties), properties);
  }

  /**
   * The Iceberg catalog properties of the embedded catalog (without {@code type}, which is {@code
   * jdbc}): what any Iceberg client needs to read Floe's tables.
   */
  public static Map<String, String> embeddedProperties(Path dataDirectory) {
    Path root = dataDirectory.toAbsolutePath().normalize();
    Map<String, String> properties = new LinkedHashMap<>();
    properties.put(CatalogUtil.ICEBERG_CATALOG_TYPE, CatalogUtil.ICEBERG_CATALOG_TYPE_JDBC);
    properties.put(CatalogProperties.URI, "jdbc:sqlite:" + root.resolve(CATALOG_FILE));
    properties.put(
        CatalogProperties.WAREHOUSE_LOCATION, root.resolve(WAREHOUSE_DIRECTORY).toUri().toString());
    properties.put("jdbc.schema-version", "V1");
    properties.put("jdbc.journal_mode", "WAL");
    properties.put("jdbc.busy_timeout", "60000");
    return properties;
  }

  private FloeCatalog openEmbedded(
      String name, Map<String, String> properties, Path dataDirectory) {
    try {
      Files.createDirectories(dataDirectory.resolve(WAREHOUSE_DIRECTORY));
    } catch (IOException e) {
      throw FloeException.badInput(
          "Cannot create the data directory "
              + dataDirectory
              + ": "
              + e.getMessage()
              + ". Choose a writable directory with --data-dir or data-dir in floe.yaml.");
    }
    Path lockFile = dataDirectory.resolve(CATALOG_FILE + ".init-lock");
    synchronized (IN_PROCESS_LOCK) {
      try (FileChannel channel =
              FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
          FileLock lock = channel.lock()) {
        return new FloeCatalog(build(name, properties), properties);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot lock " + lockFile, e);
      }
    }
  }

  private static Catalog build(String name, Map<String, String> properties) {
    try {
      return CatalogUtil.buildIcebergCatalog(name, properties, HadoopConf.create(properties));
    } catch (IllegalArgumentException e) {
      throw FloeException.badInput(
          "The catalog settings are not usable: "
              + e.getMessage()
              + ". Check the catalog section of floe.yaml.");
    } catch (RuntimeException e) {
      String why = causes(e);
      if (why.contains("No suitable driver")) {
        why +=
            " (Floe has the drivers for jdbc:postgresql:, jdbc:mysql: (MySQL and MariaDB) and"
                + " jdbc:sqlite: URLs)";
      }
      throw FloeException.sourceUnavailable(
          "Cannot open catalog '"
              + name
              + "' at "
              + withoutQuery(
                  properties.getOrDefault(
                      CatalogProperties.URI, properties.get(CatalogProperties.WAREHOUSE_LOCATION)))
              + ": "
              + redact(why, properties)
              + ". Check that it is reachable and the catalog settings in floe.yaml.",
          e);
    }
  }

  /**
   * The exception's message and those of its causes that add to it: Iceberg's own ("Failed to
   * connect", "Error occurred while processing GET request") do not say why, the driver's or the
   * HTTP client's do (refused, unknown database, wrong password, no driver for the URL).
   */
  static String causes(Throwable failure) {
    StringBuilder text = new StringBuilder(String.valueOf(failure.getMessage()));
    Throwable cause = failure.getCause();
    for (int depth = 0; cause != null && depth < 6; depth++, cause = cause.getCause()) {
      String message = cause.getMessage();
      if (message != null && !message.isBlank() && text.indexOf(message) < 0) {
        text.append(": ").append(message.strip());
      }
      if (cause.getCause() == cause) {
        break;
      }
    }
    return text.toString();
  }

  /** A JDBC URL's query may carry a password; messages show what comes before it. */
  private static String withoutQuery(String location) {
    if (location == null) {
      return "(no uri or warehouse)";
    }
    int query = location.indexOf('?');
    return query < 0 ? location : location.substring(0, query);
  }

  /** Drivers repeat URLs and settings in their errors; keep passwords out of Floe's messages. */
  static String redact(String message, Map<String, String> properties) {
    String redacted = message;
    String uri = properties.get(CatalogProperties.URI);
    if (uri != null) {
      redacted = redacted.replace(uri, withoutQuery(uri));
    }
    for (Map.Entry<String, String> property : properties.entrySet()) {
      boolean secret = Secret.isSecretName(property.getKey());
      if (secret && !property.getValue().isEmpty()) {
        redacted = redacted.replace(property.getValue(), Secret.MASK);
      }
    }
    return redacted;
  }
}

package dev.floe.core.config;

import static java.util.Objects.requireNonNull;

import dev.floe.core.Secret;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * Everything {@code floe.yaml} can say, validated and with defaults applied. Built by the config
 * loader; handed by the composition root to whatever needs a part of it.
 *
 * @param dataDirectory where Floe keeps its warehouse, catalog and state (absolute)
 * @param catalog the Iceberg catalog
 * @param sourceUrl the default MySQL source URL, as written (it may hold a password: never print)
 * @param sourcePassword the source password, if given apart from the URL
 * @param minimumBinlogRetention the binlog retention {@code floe doctor} requires
 * @param sync defaults for {@code floe sync}
 * @param keeper the keeper service ({@code floe serve})
 */
public record FloeSettings(
    Path dataDirectory,
    CatalogSettings catalog,
    Optional<String> sourceUrl,
    Optional<Secret> sourcePassword,
    Duration minimumBinlogRetention,
    SyncSettings sync,
    KeeperSettings keeper) {

  public static final String DEFAULT_DATA_DIRECTORY = "floe-data";
  public static final Duration DEFAULT_MINIMUM_BINLOG_RETENTION = Duration.ofHours(24);

  public FloeSettings {
    requireNonNull(dataDirectory, "dataDirectory is null");
    requireNonNull(catalog, "catalog is null");
    requireNonNull(sourceUrl, "sourceUrl is null");
    requireNonNull(sourcePassword, "sourcePassword is null");
    requireNonNull(minimumBinlogRetention, "minimumBinlogRetention is null");
    requireNonNull(sync, "sync is null");
    requireNonNull(keeper, "keeper is null");
  }

  /** The settings with no config file: everything embedded under {@code dataDirectory}. */
  public static FloeSettings defaults(Path dataDirectory) {
    return new FloeSettings(
        dataDirectory.toAbsolutePath().normalize(),
        CatalogSettings.embedded(),
        Optional.empty(),
        Optional.empty(),
        DEFAULT_MINIMUM_BINLOG_RETENTION,
        SyncSettings.defaults(),
        KeeperSettings.defaults());
  }

  public FloeSettings withDataDirectory(Path directory) {
    return new FloeSettings(
        directory.toAbsolutePath().normalize(),
        catalog,
        sourceUrl,
        sourcePassword,
        minimumBinlogRetention,
        sync,
        keeper);
  }
}

package dev.floe.core.config;

import static java.util.Objects.requireNonNull;

import dev.floe.core.Secret;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** The keeper service's settings ({@code keeper:} in floe.yaml), defaults applied. */
public record KeeperSettings(
    ListenAddress listen,
    Optional<Secret> apiToken,
    Duration refreshInterval,
    int quarantineAfterFailures,
    Duration taskTimeout,
    Duration historyRetention,
    List<String> include,
    List<String> exclude,
    StoreSettings store,
    OptimizerSettings optimizer,
    MaintenanceIntervals maintenance,
    List<KeeperCatalog> catalogs) {

  public KeeperSettings {
    requireNonNull(listen, "listen is null");
    requireNonNull(apiToken, "apiToken is null");
    requireNonNull(refreshInterval, "refreshInterval is null");
    requireNonNull(taskTimeout, "taskTimeout is null");
    requireNonNull(historyRetention, "historyRetention is null");
    include = List.copyOf(requireNonNull(include, "include is null"));
    exclude = List.copyOf(requireNonNull(exclude, "exclude is null"));
    requireNonNull(store, "store is null");
    requireNonNull(optimizer, "optimizer is null");
    requireNonNull(maintenance, "maintenance is null");
    catalogs = List.copyOf(requireNonNull(catalogs, "catalogs is null"));
  }

  public static KeeperSettings defaults() {
    return new KeeperSettings(
        new ListenAddress("127.0.0.1", 8420),
        Optional.empty(),
        Duration.ofSeconds(30),
        5,
        Duration.ofMinutes(30),
        Duration.ofDays(30),
        List.of(),
        List.of(),
        new StoreSettings(Optional.empty(), Optional.empty(), Optional.empty()),
        OptimizerSettings.defaults(),
        new MaintenanceIntervals(Duration.ofHours(1), Duration.ofHours(1), Duration.ofDays(1)),
        List.of());
  }
}

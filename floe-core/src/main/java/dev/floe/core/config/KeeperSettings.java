package dev.floe.core.config;

import static java.util.Objects.requireNonNull;

import dev.floe.core.Secret;
import dev.floe.core.alert.AlertSettings;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The {@code keeper:} section of floe.yaml: the keeper service ({@code floe serve}) that watches
 * and maintains the tables of the top-level catalog and of {@link #catalogs()}.
 *
 * @param listen where its HTTP API listens
 * @param apiToken the bearer token its API requires; the service refuses a non-loopback {@link
 *     #listen()} without one
 * @param refreshInterval how often it reads the catalogs for new, changed and dropped tables
 * @param quarantineAfterFailures failed runs in a row after which a table is quarantined (left
 *     alone by maintenance)
 * @param taskTimeout how long one maintenance task may run
 * @param historyRetention how long runs and events are kept
 * @param include regular expressions over {@code NAMESPACE.TABLE} of the top-level catalog's tables
 *     to maintain; empty = all
 * @param exclude regular expressions over {@code NAMESPACE.TABLE} of its tables to leave alone
 * @param store where the keeper keeps its state
 * @param optimizer how much of the machine optimizing uses
 * @param maintenance how often each kind of maintenance is planned
 * @param catalogs more catalogs to maintain, beside the top-level one
 * @param alerts alert rules and the channels notifications go to
 * @param url where other processes reach this keeper ({@code http(s)://HOST:PORT}): {@code floe
 *     sync} reports its status there; empty = no report
 * @param verifications the verifications it runs once a day ({@code keeper.verifications})
 */
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
    List<KeeperCatalog> catalogs,
    AlertSettings alerts,
    Optional<String> url,
    List<VerificationSettings> verifications) {

  public static final ListenAddress DEFAULT_LISTEN = new ListenAddress("127.0.0.1", 8420);
  public static final Duration DEFAULT_REFRESH_INTERVAL = Duration.ofSeconds(30);
  public static final int DEFAULT_QUARANTINE_AFTER_FAILURES = 5;
  public static final Duration DEFAULT_TASK_TIMEOUT = Duration.ofMinutes(30);
  public static final Duration DEFAULT_HISTORY_RETENTION = Duration.ofDays(30);

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
    requireNonNull(alerts, "alerts is null");
    requireNonNull(url, "url is null");
    verifications = List.copyOf(requireNonNull(verifications, "verifications is null"));
  }

  /** Loopback only, no token, SQLite in the data directory, the top-level catalog only. */
  public static KeeperSettings defaults() {
    return new KeeperSettings(
        DEFAULT_LISTEN,
        Optional.empty(),
        DEFAULT_REFRESH_INTERVAL,
        DEFAULT_QUARANTINE_AFTER_FAILURES,
        DEFAULT_TASK_TIMEOUT,
        DEFAULT_HISTORY_RETENTION,
        List.of(),
        List.of(),
        StoreSettings.defaults(),
        OptimizerSettings.defaults(),
        MaintenanceIntervals.defaults(),
        List.of(),
        AlertSettings.defaults(),
        Optional.empty(),
        List.of());
  }

  /** A builder that starts from {@link #defaults()}. */
  public static Builder builder() {
    return defaults().toBuilder();
  }

  /** A builder that starts from these settings, to change some of them. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /** Changes some settings of a {@link KeeperSettings}; every other one keeps its value. */
  public static final class Builder {
    private ListenAddress listen;
    private Optional<Secret> apiToken;
    private Duration refreshInterval;
    private int quarantineAfterFailures;
    private Duration taskTimeout;
    private Duration historyRetention;
    private List<String> include;
    private List<String> exclude;
    private StoreSettings store;
    private OptimizerSettings optimizer;
    private MaintenanceIntervals maintenance;
    private List<KeeperCatalog> catalogs;
    private AlertSettings alerts;
    private Optional<String> url;
    private List<VerificationSettings> verifications;

    private Builder(KeeperSettings from) {
      listen = from.listen;
      apiToken = from.apiToken;
      refreshInterval = from.refreshInterval;
      quarantineAfterFailures = from.quarantineAfterFailures;
      taskTimeout = from.taskTimeout;
      historyRetention = from.historyRetention;
      include = from.include;
      exclude = from.exclude;
      store = from.store;
      optimizer = from.optimizer;
      maintenance = from.maintenance;
      catalogs = from.catalogs;
      alerts = from.alerts;
      url = from.url;
      verifications = from.verifications;
    }

    public Builder listen(ListenAddress value) {
      listen = value;
      return this;
    }

    public Builder apiToken(Optional<Secret> value) {
      apiToken = value;
      return this;
    }

    public Builder refreshInterval(Duration value) {
      refreshInterval = value;
      return this;
    }

    public Builder quarantineAfterFailures(int value) {
      quarantineAfterFailures = value;
      return this;
    }

    public Builder taskTimeout(Duration value) {
      taskTimeout = value;
      return this;
    }

    public Builder historyRetention(Duration value) {
      historyRetention = value;
      return this;
    }

    public Builder include(List<String> value) {
      include = value;
      return this;
    }

    public Builder exclude(List<String> value) {
      exclude = value;
      return this;
    }

    public Builder store(StoreSettings value) {
      store = value;
      return this;
    }

    public Builder optimizer(OptimizerSettings value) {
      optimizer = value;
      return this;
    }

    public Builder maintenance(MaintenanceIntervals value) {
      maintenance = value;
      return this;
    }

    public Builder catalogs(List<KeeperCatalog> value) {
      catalogs = value;
      return this;
    }

    public Builder alerts(AlertSettings value) {
      alerts = value;
      return this;
    }

    public Builder url(Optional<String> value) {
      url = value;
      return this;
    }

    public Builder verifications(List<VerificationSettings> value) {
      verifications = value;
      return this;
    }

    public KeeperSettings build() {
      return new KeeperSettings(
          listen,
          apiToken,
          refreshInterval,
          quarantineAfterFailures,
          taskTimeout,
          historyRetention,
          include,
          exclude,
          store,
          optimizer,
          maintenance,
          catalogs,
          alerts,
          url,
          verifications);
    }
  }
}

package dev.floe.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.floe.core.Secret;
import dev.floe.core.config.CatalogSettings;
import dev.floe.core.config.CatalogType;
import dev.floe.core.config.FloeSettings;
import dev.floe.core.config.KeeperCatalog;
import dev.floe.core.config.KeeperSettings;
import dev.floe.core.config.ListenAddress;
import dev.floe.core.config.MaintenanceIntervals;
import dev.floe.core.config.OptimizerSettings;
import dev.floe.core.config.StoreSettings;
import dev.floe.core.error.ErrorCategory;
import dev.floe.core.error.FloeException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code keeper:} section of floe.yaml, read by {@link ConfigLoader}. */
class ConfigLoaderKeeperTest {

  private static final String TOKEN = "tok-3141";
  private static final String STORE_PASSWORD = "pw-2718";
  private static final String S3_SECRET = "s3-1618";

  @TempDir Path directory;

  private final ConfigLoader loader =
      new ConfigLoader(
          Map.of(
              "FLOE_KEEPER_TOKEN", TOKEN, "KEEPER_DB_PW", STORE_PASSWORD, "S3_SECRET", S3_SECRET));

  @Test
  void withoutAKeeperSectionEveryKeyHasItsDefault() throws Exception {
    KeeperSettings keeper = load("").keeper();

    assertThat(keeper).isEqualTo(KeeperSettings.defaults());
    assertThat(keeper.listen()).isEqualTo(new ListenAddress("127.0.0.1", 8420));
    assertThat(keeper.listen().isLoopback()).isTrue();
    assertThat(keeper.apiToken()).isEmpty();
    assertThat(keeper.refreshInterval()).isEqualTo(Duration.ofSeconds(30));
    assertThat(keeper.quarantineAfterFailures()).isEqualTo(5);
    assertThat(keeper.taskTimeout()).isEqualTo(Duration.ofMinutes(30));
    assertThat(keeper.historyRetention()).isEqualTo(Duration.ofDays(30));
    assertThat(keeper.include()).isEmpty();
    assertThat(keeper.exclude()).isEmpty();
    assertThat(keeper.store())
        .isEqualTo(new StoreSettings(Optional.empty(), Optional.empty(), Optional.empty()));
    assertThat(keeper.store().jdbcUrl(directory.resolve("floe-data")))
        .isEqualTo("jdbc:sqlite:" + directory.resolve("floe-data/keeper.db"));
    assertThat(keeper.optimizer())
        .isEqualTo(
            new OptimizerSettings(
                Math.max(1, Runtime.getRuntime().availableProcessors() / 2),
                0.5,
                Duration.ofSeconds(30)));
    assertThat(keeper.maintenance())
        .isEqualTo(
            new MaintenanceIntervals(Duration.ofHours(1), Duration.ofHours(1), Duration.ofDays(1)));
    assertThat(keeper.catalogs()).isEmpty();
  }

  @Test
  void documentedDefaultsReadBackAsTheDefaults() throws Exception {
    KeeperSettings keeper =
        load("keeper:\n"
                + entry(ConfigSchema.KEEPER_LISTEN)
                + entry(ConfigSchema.KEEPER_REFRESH_INTERVAL_SECONDS)
                + entry(ConfigSchema.KEEPER_QUARANTINE_AFTER_FAILURES)
                + entry(ConfigSchema.KEEPER_TASK_TIMEOUT)
                + entry(ConfigSchema.KEEPER_HISTORY_RETENTION)
                + "  optimizer:\n  "
                + entry(ConfigSchema.KEEPER_OPTIMIZER_TABLE_SHARE)
                + "  "
                + entry(ConfigSchema.KEEPER_OPTIMIZER_LEASE_TIMEOUT)
                + "  maintenance:\n  "
                + entry(ConfigSchema.KEEPER_MAINTENANCE_EXPIRE_INTERVAL)
                + "  "
                + entry(ConfigSchema.KEEPER_MAINTENANCE_METADATA_INTERVAL)
                + "  "
                + entry(ConfigSchema.KEEPER_MAINTENANCE_ORPHAN_INTERVAL))
            .keeper();

    assertThat(keeper).isEqualTo(KeeperSettings.defaults());
    assertThat(ConfigSchema.KEEPER_STORE_URL.defaultValue())
        .contains("jdbc:sqlite:<data-dir>/keeper.db");
    assertThat(ConfigSchema.KEEPER_OPTIMIZER_THREADS.defaultValue())
        .contains("half the machine's cores, at least 1");
  }

  @Test
  void everyKeeperKeyIsRead() throws Exception {
    KeeperSettings keeper =
        load("""
                catalog:
                  name: lake
                keeper:
                  listen: 0.0.0.0:9000
                  api-token: ${env:FLOE_KEEPER_TOKEN}
                  refresh-interval-seconds: 60
                  quarantine-after-failures: 3
                  task-timeout: 2h
                  history-retention: 7d
                  include: ['ods\\..*', 'dw\\..*']
                  exclude: tmp\\..*
                  store: { url: jdbc:postgresql://db:5432/keeper, user: keeper, password: '${env:KEEPER_DB_PW}' }
                  optimizer: { threads: 3, table-share: 0.25, lease-timeout: 45s }
                  maintenance:
                    expire-interval: 30m
                    metadata-interval: 2h
                    orphan-interval: 7d
                  catalogs:
                    - { name: prod, type: rest, uri: http://rest:8181, include: ['ods\\..*'], exclude: ['tmp\\..*'] }
                    - name: archive
                      type: HADOOP
                      warehouse: s3://archive/warehouse
                      properties:
                        s3.secret-access-key: ${env:S3_SECRET}
                """)
            .keeper();

    assertThat(keeper.listen()).isEqualTo(new ListenAddress("0.0.0.0", 9000));
    assertThat(keeper.listen().isLoopback()).isFalse();
    assertThat(keeper.apiToken()).contains(Secret.of(TOKEN));
    assertThat(keeper.refreshInterval()).isEqualTo(Duration.ofSeconds(60));
    assertThat(keeper.quarantineAfterFailures()).isEqualTo(3);
    assertThat(keeper.taskTimeout()).isEqualTo(Duration.ofHours(2));
    assertThat(keeper.historyRetention()).isEqualTo(Duration.ofDays(7));
    assertThat(keeper.include()).containsExactly("ods\\..*", "dw\\..*");
    assertThat(keeper.exclude()).containsExactly("tmp\\..*");
    assertThat(keeper.store())
        .isEqualTo(
            new StoreSettings(
                Optional.of("jdbc:postgresql://db:5432/keeper"),
                Optional.of("keeper"),
                Optional.of(Secret.of(STORE_PASSWORD))));
    assertThat(keeper.optimizer())
        .isEqualTo(new OptimizerSettings(3, 0.25, Duration.ofSeconds(45)));
    assertThat(keeper.maintenance())
        .isEqualTo(
            new MaintenanceIntervals(
                Duration.ofMinutes(30), Duration.ofHours(2), Duration.ofDays(7)));
    assertThat(keeper.catalogs())
        .containsExactly(
            new KeeperCatalog(
                new CatalogSettings(
                    CatalogType.REST,
                    "prod",
                    Optional.of("http://rest:8181"),
                    Optional.empty(),
                    Map.of()),
                List.of("ods\\..*"),
                List.of("tmp\\..*")),
            new KeeperCatalog(
                new CatalogSettings(
                    CatalogType.HADOOP,
                    "archive",
                    Optional.empty(),
                    Optional.of("s3://archive/warehouse"),
                    Map.of("s3.secret-access-key", S3_SECRET)),
                List.of(),
                List.of()));
  }

  @Test
  void ipv6ListenAddressInBrackets() throws Exception {
    KeeperSettings keeper = load("keeper:\n  listen: '[::1]:8420'\n").keeper();

    assertThat(keeper.listen()).isEqualTo(new ListenAddress("::1", 8420));
    assertThat(keeper.listen().isLoopback()).isTrue();
  }

  @Test
  void badListenAddress() throws Exception {
    for (String listen : List.of("127.0.0.1:0", "127.0.0.1:70000", ":8420", "::1:8420", "8420")) {
      assertRefused(
          "keeper:\n  listen: '" + listen + "'\n",
          ", line 2: keeper.listen must be HOST:PORT with a port from 1 to 65535 (e.g."
              + " 127.0.0.1:8420, or [::1]:8420 for IPv6), got '"
              + listen
              + "'. See docs/config.md for what it takes.");
    }
  }

  @Test
  void badDuration() throws Exception {
    assertRefused(
        "keeper:\n  task-timeout: soon\n",
        ", line 2: keeper.task-timeout must be a duration above zero such as 30s, 15m, 12h or 3d,"
            + " got 'soon'. See docs/config.md for what it takes.");
    assertRefused(
        "keeper:\n  maintenance:\n    orphan-interval: 0d\n",
        ", line 3: keeper.maintenance.orphan-interval must be a duration above zero such as 30s,"
            + " 15m, 12h or 3d, got '0d'. See docs/config.md for what it takes.");
  }

  @Test
  void badTableShare() throws Exception {
    for (String share : List.of("0", "1.5", "-0.5", "half", "NaN", "1e-1")) {
      assertRefused(
          "keeper:\n  optimizer:\n    table-share: " + share + "\n",
          ", line 3: keeper.optimizer.table-share must be a decimal above 0 and at most 1, got '"
              + share
              + "'. See docs/config.md for what it takes.");
    }
    assertThat(
            load("keeper:\n  optimizer:\n    table-share: 1\n").keeper().optimizer().tableShare())
        .isEqualTo(1.0);
  }

  @Test
  void integersBelowTheirMinimum() throws Exception {
    assertRefused(
        "keeper:\n  quarantine-after-failures: 0\n",
        ", line 2: keeper.quarantine-after-failures must be an integer >= 1, got '0'. See"
            + " docs/config.md for what it takes.");
    assertRefused(
        "keeper:\n  optimizer:\n    threads: 0\n",
        ", line 3: keeper.optimizer.threads must be an integer >= 1, got '0'. See docs/config.md"
            + " for what it takes.");
  }

  @Test
  void badStoreUrlIsNamedWithItsPasswordMasked() throws Exception {
    Path file =
        write("keeper:\n  store:\n    url: mysql://keeper:" + STORE_PASSWORD + "@db/keeper\n");

    assertThatThrownBy(() -> loader.load(file, Optional.empty(), directory))
        .hasMessage(
            "Config file "
                + file
                + ", line 3: keeper.store.url must be a jdbc:sqlite: or jdbc:postgresql: URL, got"
                + " 'mysql://keeper:******@db/keeper'. Write e.g. jdbc:postgresql://host:5432/floe,"
                + " or leave it out to keep the keeper's state in <data-dir>/keeper.db.")
        .message()
        .doesNotContain(STORE_PASSWORD);
  }

  @Test
  void sqliteStoreUrl() throws Exception {
    assertThat(
            load("keeper:\n  store:\n    url: jdbc:sqlite:/srv/keeper.db\n").keeper().store().url())
        .contains("jdbc:sqlite:/srv/keeper.db");
  }

  @Test
  void unknownKeyInACatalogsItem() throws Exception {
    assertRefused(
        """
        keeper:
          catalogs:
            - name: prod
              type: rest
              uri: http://rest:8181
            - name: staging
              tpye: rest
        """,
        ", line 7: unknown key 'keeper.catalogs[1].tpye'. Did you mean 'keeper.catalogs[1].type'?"
            + " The keys under 'keeper.catalogs[1]' are: type, name, uri, warehouse, properties,"
            + " include, exclude. Every key is listed in docs/config.md and by 'floe config"
            + " --reference'.");
  }

  @Test
  void unknownKeyUnderKeeper() throws Exception {
    assertRefused(
        "keeper:\n  store:\n    uri: jdbc:sqlite:x.db\n",
        ", line 3: unknown key 'keeper.store.uri'. Did you mean 'keeper.store.url'? The keys under"
            + " 'keeper.store' are: url, user, password. Every key is listed in docs/config.md and"
            + " by 'floe config --reference'.");
  }

  @Test
  void duplicateCatalogNameIgnoringCase() throws Exception {
    assertRefused(
        """
        keeper:
          catalogs:
            - { name: prod, type: rest, uri: http://a:8181 }
            - { name: Prod, type: rest, uri: http://b:8181 }
        """,
        ", line 4: keeper.catalogs[1].name 'Prod' is the name of keeper.catalogs[0] too. Give each"
            + " catalog a name of its own.");
  }

  @Test
  void catalogNamedLikeTheTopLevelCatalog() throws Exception {
    assertRefused(
        "keeper:\n  catalogs:\n    - { name: floe, type: rest, uri: http://a:8181 }\n",
        ", line 3: keeper.catalogs[0].name 'floe' is the name of the top-level catalog"
            + " (catalog.name). Give each catalog a name of its own.");
  }

  @Test
  void catalogsItemIsValidatedLikeTheTopLevelCatalog() throws Exception {
    assertRefused(
        "keeper:\n  catalogs:\n    - name: prod\n      type: rest\n",
        ", line 4: keeper.catalogs[0].uri is required when keeper.catalogs[0].type is rest. Add it"
            + " under keeper.catalogs[0], e.g. uri: http://host:8181.");
    assertRefused(
        "keeper:\n  catalogs:\n    - { name: prod, type: jdbc, uri: 'jdbc:postgresql://db/iceberg' }\n",
        ", line 3: keeper.catalogs[0].warehouse is required when keeper.catalogs[0].type is jdbc."
            + " Add it under keeper.catalogs[0], e.g. warehouse: s3://bucket/warehouse or"
            + " hdfs://namenode:8020/warehouse.");
    assertRefused(
        "keeper:\n  catalogs:\n    - { name: prod, type: glue }\n",
        ", line 3: keeper.catalogs[0].type must be one of embedded, jdbc, rest, hadoop, got 'glue'."
            + " See docs/config.md for what it takes.");
  }

  @Test
  void catalogsItemNeedsANameAndAType() throws Exception {
    assertRefused(
        "keeper:\n  catalogs:\n    - { type: rest, uri: http://a:8181 }\n",
        ", line 3: keeper.catalogs[0].name is required: each catalog the keeper maintains needs a"
            + " name of its own. Add it, e.g. name: prod.");
    assertRefused(
        "keeper:\n  catalogs:\n    - name: prod\n      uri: http://a:8181\n",
        ", line 3: keeper.catalogs[0].type is required. Add it: jdbc, rest or hadoop.");
  }

  @Test
  void embeddedCatalogIsOnlyTheTopLevelOne() throws Exception {
    assertRefused(
        "keeper:\n  catalogs:\n    - name: second\n      type: embedded\n",
        ", line 4: keeper.catalogs[0].type cannot be embedded: the embedded catalog can only be the"
            + " top-level catalog section. Use jdbc, rest or hadoop.");
  }

  @Test
  void catalogsMustBeAListOfSections() throws Exception {
    assertRefused(
        "keeper:\n  catalogs:\n    name: prod\n",
        ", line 3: keeper.catalogs must be a list of catalog sections, got a section of keys. See"
            + " docs/config.md for what it takes.");
    assertRefused(
        "keeper:\n  catalogs:\n    - prod\n",
        ", line 3: 'keeper.catalogs[0]' must be a section with the keys type, name, uri,"
            + " warehouse, properties, include, exclude, not 'prod'.");
  }

  @Test
  void badRegularExpression() throws Exception {
    assertRefused(
        "keeper:\n  include:\n    - ods\\..*\n    - 'ods\\.(orders'\n",
        ", line 4: keeper.include has 'ods\\.(orders', which is not a regular expression: Unclosed"
            + " group at index 12. Fix it (Java regular expression syntax; a literal dot is \\.).");
    assertRefused(
        "keeper:\n  catalogs:\n    - { name: prod, type: rest, uri: http://a:8181, exclude: '*' }\n",
        ", line 3: keeper.catalogs[0].exclude has '*', which is not a regular expression: Dangling"
            + " meta character '*' at index 0. Fix it (Java regular expression syntax; a literal dot"
            + " is \\.).");
  }

  @Test
  void secretsNeverAppearInMessages() throws Exception {
    assertThatThrownBy(() -> load("keeper:\n  api-token:\n    - " + TOKEN + "\n"))
        .hasMessageContaining("keeper.api-token must be a single value (string), got a list.")
        .message()
        .doesNotContain(TOKEN);
    assertThatThrownBy(
            () -> load("keeper:\n  store:\n    password: { value: " + STORE_PASSWORD + " }\n"))
        .hasMessageContaining(
            "keeper.store.password must be a single value (string), got a section of keys.")
        .message()
        .doesNotContain(STORE_PASSWORD);
    assertThatThrownBy(() -> load("keeper:\n  api-token: ${env:NO_SUCH_TOKEN}\n"))
        .hasMessageContaining(
            "keeper.api-token refers to the environment variable NO_SUCH_TOKEN, which is not set.");
  }

  private void assertRefused(String yaml, String messageAfterFile) throws Exception {
    Path file = write(yaml);

    assertThatThrownBy(() -> loader.load(file, Optional.empty(), directory))
        .isInstanceOf(FloeException.class)
        .hasMessage("Config file " + file + messageAfterFile)
        .extracting(error -> ((FloeException) error).category())
        .isEqualTo(ErrorCategory.BAD_INPUT);
  }

  /** {@code name: default} for a key directly under its section. */
  private static String entry(ConfigKey key) {
    return "  " + key.name() + ": '" + key.defaultValue().orElseThrow() + "'\n";
  }

  private FloeSettings load(String yaml) throws Exception {
    return loader.load(write(yaml), Optional.empty(), directory);
  }

  private Path write(String yaml) throws Exception {
    Path file = directory.resolve("floe.yaml");
    Files.writeString(file, yaml);
    return file;
  }
}

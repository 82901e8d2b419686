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
import dev.floe.core.config.WorkerGroupSettings;
import dev.floe.core.error.ErrorCategory;
import dev.floe.core.error.FloeException;
import java.net.URI;
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
    assertThat(keeper.optimizer().groups()).isEmpty();
    assertThat(keeper.optimizer().defaultGroup()).isEmpty();
    assertThat(keeper.optimizer().capacityGrace()).isEqualTo(Duration.ofMinutes(2));
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
                + "  "
                + entry(ConfigSchema.KEEPER_OPTIMIZER_CAPACITY_GRACE)
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
  void workerGroups() throws Exception {
    OptimizerSettings optimizer =
        load("""
                keeper:
                  optimizer:
                    default-group: local
                    groups:
                      - { name: local, kind: processes, target: 2, threads-per-worker: 1, heap: 512m }
                      - { name: cluster, kind: flink, target: 4, flink: flink-jm:8081 }
                      - { name: elsewhere, kind: external, target: 3 }
                    capacity-grace: 2m
                """)
            .keeper()
            .optimizer();

    List<WorkerGroupSettings> groups =
        List.of(
            WorkerGroupSettings.processes("local", 2, 1, 512L << 20),
            WorkerGroupSettings.flink("cluster", 4, 1, URI.create("http://flink-jm:8081")),
            WorkerGroupSettings.external("elsewhere", 3));
    assertThat(optimizer)
        .isEqualTo(
            new OptimizerSettings(
                OptimizerSettings.defaultThreads(),
                0.5,
                Duration.ofSeconds(30),
                groups,
                Optional.of("local"),
                Duration.ofMinutes(2)));
    assertThat(optimizer.effectiveGroups()).isEqualTo(groups);
    assertThat(optimizer.defaultGroupName()).isEqualTo("local");
    assertThat(optimizer.group("CLUSTER")).contains(groups.get(1));
  }

  @Test
  void withoutGroupsTheOneGroupIsThreadsOfKeeperOptimizerThreads() throws Exception {
    OptimizerSettings optimizer =
        load("keeper:\n  optimizer:\n    threads: 3\n").keeper().optimizer();

    assertThat(optimizer.groups()).isEmpty();
    assertThat(optimizer.effectiveGroups())
        .containsExactly(WorkerGroupSettings.threads("default", 3));
    assertThat(optimizer.defaultGroupName()).isEqualTo("default");
    assertThat(load("").keeper().optimizer().effectiveGroups())
        .containsExactly(
            WorkerGroupSettings.threads("default", OptimizerSettings.defaultThreads()));
    assertThat(
            load("keeper:\n  optimizer:\n    default-group: Default\n")
                .keeper()
                .optimizer()
                .defaultGroupName())
        .isEqualTo("default");
  }

  @Test
  void groupDefaults() throws Exception {
    OptimizerSettings optimizer =
        load("""
                keeper:
                  optimizer:
                    groups:
                      - { name: serve, kind: THREADS, target: 2 }
                      - { name: big, kind: processes, target: 1, threads-per-worker: 3 }
                      - { name: small, kind: processes, target: 4, java: /opt/jdk-17/bin/java }
                      - name: secure
                        kind: flink
                        target: 8
                        threads-per-worker: 2
                        flink: https://flink.example.com:8443/
                      - { name: v6, kind: flink, target: 1, flink: '[::1]:8081' }
                """)
            .keeper()
            .optimizer();

    assertThat(optimizer.groups())
        .containsExactly(
            WorkerGroupSettings.threads("serve", 2),
            WorkerGroupSettings.processes("big", 1, 3, 1536L << 20),
            WorkerGroupSettings.processes("small", 4, 1, 512L << 20)
                .withJava("/opt/jdk-17/bin/java"),
            WorkerGroupSettings.flink("secure", 8, 2, URI.create("https://flink.example.com:8443")),
            WorkerGroupSettings.flink("v6", 1, 1, URI.create("http://[::1]:8081")));
    assertThat(optimizer.defaultGroup()).isEmpty();
    assertThat(optimizer.defaultGroupName()).isEqualTo("serve");
    assertThat(optimizer.capacityGrace()).isEqualTo(Duration.ofMinutes(2));
  }

  @Test
  void groupNeedsANameAKindAndATarget() throws Exception {
    assertRefused(
        "keeper:\n  optimizer:\n    groups:\n      - { kind: external, target: 1 }\n",
        ", line 4: keeper.optimizer.groups[0].name is required: tables pick their group by its"
            + " name (floe.keeper.group). Add it, e.g. name: local.");
    assertRefused(
        "keeper:\n  optimizer:\n    groups:\n      - { name: local, target: 1 }\n",
        ", line 4: keeper.optimizer.groups[0].kind is required. Add it: threads, processes, flink,"
            + " external.");
    assertRefused(
        "keeper:\n  optimizer:\n    groups:\n      - { name: local, kind: processes }\n",
        ", line 4: keeper.optimizer.groups[0].target is required: the workers the keeper keeps"
            + " group 'local' at. Add it, e.g. target: 2.");
  }

  @Test
  void unknownGroupKind() throws Exception {
    assertRefused(
        "keeper:\n  optimizer:\n    groups:\n      - { name: local, kind: docker, target: 1 }\n",
        ", line 4: keeper.optimizer.groups[0].kind must be one of threads, processes, flink,"
            + " external, got 'docker'. See docs/config.md for what it takes.");
  }

  @Test
  void duplicateGroupNameIgnoringCase() throws Exception {
    assertRefused(
        """
        keeper:
          optimizer:
            groups:
              - { name: local, kind: processes, target: 1 }
              - { name: Local, kind: external, target: 1 }
        """,
        ", line 5: keeper.optimizer.groups[1].name 'Local' is the name of"
            + " keeper.optimizer.groups[0] too (names are compared ignoring case). Give each group"
            + " a name of its own.");
  }

  @Test
  void badGroupName() throws Exception {
    for (String name : List.of("'my group'", "-local", "local.1", "'x/y'", "a".repeat(65))) {
      String written = name.startsWith("'") ? name.substring(1, name.length() - 1) : name;
      assertRefused(
          "keeper:\n  optimizer:\n    groups:\n      - { name: "
              + name
              + ", kind: external, target: 1 }\n",
          ", line 4: keeper.optimizer.groups[0].name must be 1 to 64 letters, digits, '-' or '_',"
              + " starting with a letter or digit, got '"
              + written
              + "'. Rename the group, e.g. name: local.");
    }
  }

  @Test
  void targetBelowOne() throws Exception {
    assertRefused(
        "keeper:\n  optimizer:\n    groups:\n      - { name: local, kind: threads, target: 0 }\n",
        ", line 4: keeper.optimizer.groups[0].target must be an integer >= 1, got '0'. See"
            + " docs/config.md for what it takes.");
    assertRefused(
        "keeper:\n  optimizer:\n    groups:\n      - { name: local, kind: processes, target: 1,"
            + " threads-per-worker: 0 }\n",
        ", line 4: keeper.optimizer.groups[0].threads-per-worker must be an integer >= 1, got"
            + " '0'. See docs/config.md for what it takes.");
  }

  @Test
  void flinkGroupNeedsItsAddress() throws Exception {
    assertRefused(
        "keeper:\n  optimizer:\n    groups:\n      - { name: cluster, kind: flink, target: 4 }\n",
        ", line 4: keeper.optimizer.groups[0].flink is required when"
            + " keeper.optimizer.groups[0].kind is flink. Add the REST address of the Flink"
            + " cluster's JobManager (its rest.port, 8081 by default) under"
            + " keeper.optimizer.groups[0], e.g. flink: flink-jm:8081.");
  }

  @Test
  void badFlinkAddress() throws Exception {
    for (String address :
        List.of(
            "flink-jm",
            "flink-jm:0",
            "ftp://flink-jm:8081",
            "http://flink-jm",
            "'::1:8081'",
            "http://flink-jm:8081/jobs",
            "'http:// flink-jm:8081'")) {
      String written =
          address.startsWith("'") ? address.substring(1, address.length() - 1) : address;
      assertRefused(
          "keeper:\n  optimizer:\n    groups:\n      - { name: cluster, kind: flink, target: 4,"
              + " flink: "
              + address
              + " }\n",
          ", line 4: keeper.optimizer.groups[0].flink must be HOST:PORT or http(s)://HOST:PORT"
              + " with a port from 1 to 65535 (e.g. flink-jm:8081, or"
              + " https://flink.example.com:8443), got '"
              + written
              + "'. See docs/config.md for what it takes.");
    }
  }

  @Test
  void keysOfOtherKindsAreRefused() throws Exception {
    assertRefused(
        "keeper:\n  optimizer:\n    groups:\n      - { name: local, kind: processes, target: 2,"
            + " flink: flink-jm:8081 }\n",
        ", line 4: keeper.optimizer.groups[0].flink is only for groups of kind flink, and group"
            + " 'local' is of kind processes. Remove it.");
    assertRefused(
        "keeper:\n  optimizer:\n    groups:\n      - { name: cluster, kind: flink, target: 2,"
            + " flink: flink-jm:8081, heap: 1g }\n",
        ", line 4: keeper.optimizer.groups[0].heap is only for groups of kind processes, and group"
            + " 'cluster' is of kind flink. Remove it.");
    assertRefused(
        "keeper:\n  optimizer:\n    groups:\n      - name: serve\n        kind: threads\n"
            + "        target: 2\n        threads-per-worker: 2\n",
        ", line 7: keeper.optimizer.groups[0].threads-per-worker is only for groups of kind"
            + " processes or flink, and group 'serve' is of kind threads. Remove it.");
    assertRefused(
        "keeper:\n  optimizer:\n    groups:\n      - { name: elsewhere, kind: external, target:"
            + " 3, heap: 2g }\n",
        ", line 4: keeper.optimizer.groups[0].heap is only for groups of kind processes, and group"
            + " 'elsewhere' is of kind external. Remove it.");
    assertRefused(
        "keeper:\n  optimizer:\n    groups:\n      - { name: elsewhere, kind: external, target:"
            + " 3, java: /usr/bin/java }\n",
        ", line 4: keeper.optimizer.groups[0].java is only for groups of kind processes, and group"
            + " 'elsewhere' is of kind external. Remove it.");
  }

  @Test
  void atMostOneThreadsGroup() throws Exception {
    assertRefused(
        """
        keeper:
          optimizer:
            groups:
              - { name: serve, kind: threads, target: 2 }
              - { name: local, kind: processes, target: 1 }
              - { name: more, kind: threads, target: 2 }
        """,
        ", line 6: keeper.optimizer.groups[2] is a second group of kind threads, beside"
            + " keeper.optimizer.groups[0]: threads groups all run in floe serve's one JVM, so"
            + " there is at most one. Make them one group whose target is the sum of theirs.");
  }

  @Test
  void defaultGroupMustNameAGroup() throws Exception {
    assertRefused(
        """
        keeper:
          optimizer:
            groups:
              - { name: local, kind: processes, target: 2 }
              - { name: cluster, kind: flink, target: 4, flink: flink-jm:8081 }
            default-group: remote
        """,
        ", line 6: keeper.optimizer.default-group 'remote' names no group of"
            + " keeper.optimizer.groups, which lists local, cluster. Name one of them, or leave"
            + " keeper.optimizer.default-group out for the first (local).");
    assertRefused(
        "keeper:\n  optimizer:\n    default-group: remote\n",
        ", line 3: keeper.optimizer.default-group 'remote' names no group:"
            + " keeper.optimizer.groups lists none, so the one group is 'default'"
            + " (keeper.optimizer.threads threads). List the group under keeper.optimizer.groups,"
            + " or leave keeper.optimizer.default-group out.");
    assertThat(
            load("""
                    keeper:
                      optimizer:
                        default-group: CLUSTER
                        groups:
                          - { name: local, kind: processes, target: 2 }
                          - { name: cluster, kind: external, target: 4 }
                    """)
                .keeper()
                .optimizer()
                .defaultGroupName())
        .isEqualTo("cluster");
  }

  @Test
  void threadsBesideGroupsIsRefused() throws Exception {
    assertRefused(
        """
        keeper:
          optimizer:
            threads: 4
            groups:
              - { name: local, kind: processes, target: 2 }
        """,
        ", line 3: keeper.optimizer.threads is not used when keeper.optimizer.groups lists groups:"
            + " threads inside floe serve are then a group of kind threads, sized by its target."
            + " Remove it, or replace it with such a group, e.g. - { name: serve, kind: threads,"
            + " target: 4 }.");
  }

  @Test
  void badHeap() throws Exception {
    for (String heap : List.of("512x", "-1g", "1.5g", "32m", "512", "2gb", "99999999999g")) {
      assertRefused(
          "keeper:\n  optimizer:\n    groups:\n      - { name: local, kind: processes, target: 2,"
              + " heap: "
              + heap
              + " }\n",
          ", line 4: keeper.optimizer.groups[0].heap must be a size of at least 64m such as 512m"
              + " or 2g (bytes, or a number with k, m or g), got '"
              + heap
              + "'. See docs/config.md for what it takes.");
    }
    assertThat(
            load("keeper:\n  optimizer:\n    groups:\n      - { name: local, kind: processes,"
                    + " target: 2, heap: 2G }\n")
                .keeper()
                .optimizer()
                .groups()
                .get(0)
                .heapBytes())
        .contains(2L << 30);
  }

  @Test
  void badCapacityGrace() throws Exception {
    for (String grace : List.of("soon", "0s", "-2m")) {
      assertRefused(
          "keeper:\n  optimizer:\n    capacity-grace: " + grace + "\n",
          ", line 3: keeper.optimizer.capacity-grace must be a duration above zero such as 30s,"
              + " 15m, 12h or 3d, got '"
              + grace
              + "'. See docs/config.md for what it takes.");
    }
  }

  @Test
  void groupItemsAreSectionsOfKnownKeys() throws Exception {
    assertRefused(
        "keeper:\n  optimizer:\n    groups:\n      - { name: local, kind: processes, target: 2,"
            + " heap-size: 1g }\n",
        ", line 4: unknown key 'keeper.optimizer.groups[0].heap-size'. The keys under"
            + " 'keeper.optimizer.groups[0]' are: name, kind, target, threads-per-worker, heap,"
            + " java, flink. Every key is listed in docs/config.md and by 'floe config --reference'.");
    assertRefused(
        "keeper:\n  optimizer:\n    groups: local\n",
        ", line 3: keeper.optimizer.groups must be a list of worker group sections, got 'local'."
            + " See docs/config.md for what it takes.");
    assertRefused(
        "keeper:\n  optimizer:\n    groups:\n      - local\n",
        ", line 4: 'keeper.optimizer.groups[0]' must be a section with the keys name, kind,"
            + " target, threads-per-worker, heap, java, flink, not 'local'.");
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
            + " The keys under 'keeper.catalogs[1]' are: type, name, uri, warehouse, properties, hadoop,"
            + " s3-endpoint, s3-region, s3-path-style-access, s3-access-key-id,"
            + " s3-secret-access-key, include, exclude. Every key is listed in docs/config.md and by 'floe config"
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
            + " warehouse, properties, hadoop, s3-endpoint, s3-region, s3-path-style-access,"
            + " s3-access-key-id, s3-secret-access-key, include, exclude, not 'prod'.");
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

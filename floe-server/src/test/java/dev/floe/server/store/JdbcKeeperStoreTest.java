package dev.floe.server.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.floe.core.Secret;
import dev.floe.core.error.ErrorCategory;
import dev.floe.core.error.FloeException;
import dev.floe.core.maintenance.HistoryObservation;
import dev.floe.core.maintenance.SnapshotFacts;
import dev.floe.core.optimize.OptimizeFailures;
import dev.floe.core.optimize.PartitionKey;
import dev.floe.core.state.TableKey;
import dev.floe.testing.PostgresServer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The keeper store's contract, run on SQLite (the default file in the data directory) and on a real
 * PostgreSQL from the test harness.
 */
class JdbcKeeperStoreTest {

  // Whole milliseconds: the store keeps instants as epoch milliseconds.
  private static final Instant T0 = Instant.parse("2026-11-01T00:00:00.123Z");
  private static final TableKey ORDERS = new TableKey("floe", "shop.orders");
  private static final TableKey USERS = new TableKey("floe", "shop.users");
  private static final TableKey OTHER_ORDERS = new TableKey("other", "shop.orders");

  @TempDir Path unusedDirectory;

  @Test
  void refusesAnUrlOfAnotherDatabase() {
    assertThatThrownBy(
            () ->
                JdbcKeeperStore.open(
                    Optional.of("jdbc:mysql://x/y"),
                    Optional.empty(),
                    Optional.empty(),
                    unusedDirectory))
        .isInstanceOfSatisfying(
            FloeException.class, e -> assertThat(e.category()).isEqualTo(ErrorCategory.BAD_INPUT))
        .hasMessage(
            "keeper.store.url must be a jdbc:sqlite:FILE or jdbc:postgresql://HOST:PORT/DB URL,"
                + " got 'jdbc:mysql://x/y'. Leave it out to keep the store in"
                + " <data-dir>/keeper.db.");
  }

  /** Every case, for one database. */
  abstract static class Contract {

    private final List<JdbcKeeperStore> opened = new ArrayList<>();

    /** Opens a store on this test's database; every call opens the same database. */
    abstract JdbcKeeperStore openStore();

    /** The JDBC URL the store is at. */
    abstract String url();

    /** A connection of the test's own to the store's database. */
    abstract Connection connect() throws SQLException;

    JdbcKeeperStore open() {
      JdbcKeeperStore store = openStore();
      opened.add(store);
      return store;
    }

    @AfterEach
    void closeStores() {
      opened.forEach(JdbcKeeperStore::close);
    }

    @Test
    void tablesRoundTripEveryField() {
      JdbcKeeperStore store = open();
      TableRecord full = fullRecord(ORDERS);
      TableRecord bare = TableRecord.discovered(USERS);
      TableRecord sameNameOtherCatalog = TableRecord.discovered(OTHER_ORDERS);

      store.saveTable(full);
      store.saveTables(List.of(bare, sameNameOtherCatalog));

      assertThat(store.tables()).containsExactlyInAnyOrder(full, bare, sameNameOtherCatalog);
    }

    @Test
    void savingATableAgainReplacesIt() {
      JdbcKeeperStore store = open();
      store.saveTable(fullRecord(ORDERS));
      store.saveTable(TableRecord.discovered(USERS));

      TableRecord emptied =
          TableRecord.discovered(ORDERS)
              .withStatus(TableStatus.QUARANTINED)
              .withFailures(0, Optional.empty(), Optional.empty());
      TableRecord scanned =
          TableRecord.discovered(USERS)
              .withScan("s3://w/users/metadata/00002.metadata.json", 40, 9, 8, 7, 6);
      store.saveTables(List.of(emptied, scanned));

      assertThat(store.tables()).containsExactlyInAnyOrder(emptied, scanned);
    }

    @Test
    void savingNoTablesChangesNothing() {
      JdbcKeeperStore store = open();
      store.saveTable(TableRecord.discovered(ORDERS));

      store.saveTables(List.of());

      assertThat(store.tables()).containsExactly(TableRecord.discovered(ORDERS));
    }

    @Test
    void forgettingATableKeepsItsRunsAndEvents() {
      JdbcKeeperStore store = open();
      for (TableKey key : List.of(ORDERS, OTHER_ORDERS)) {
        store.saveTable(fullRecord(key));
        store.saveOptimizeFailures(key, failures());
        store.saveHistory(key, observation());
        store.recordRun(run(key, "optimize", T0, "done"));
        store.recordEvent(KeeperEvent.ofTable(T0, KeeperEvent.TABLE_DROPPED, key, "dropped"));
      }

      store.forgetTable(ORDERS);

      assertThat(store.tables()).containsExactly(fullRecord(OTHER_ORDERS));
      assertThat(store.optimizeFailures(ORDERS)).isEqualTo(OptimizeFailures.none());
      assertThat(store.history(ORDERS)).isEmpty();
      assertThat(store.runs(ORDERS, 10)).containsExactly(run(ORDERS, "optimize", T0, "done"));
      assertThat(store.events(Optional.of(ORDERS), 10))
          .containsExactly(KeeperEvent.ofTable(T0, KeeperEvent.TABLE_DROPPED, ORDERS, "dropped"));
      // the other catalog's table of the same name is untouched
      assertThat(store.optimizeFailures(OTHER_ORDERS)).isEqualTo(failures());
      assertThat(store.history(OTHER_ORDERS)).contains(observation());
    }

    @Test
    void runsAreNewestFirstPerTableAndLimited() {
      JdbcKeeperStore store = open();
      RunRecord first = run(ORDERS, "optimize", T0, "first");
      RunRecord second = run(ORDERS, "expire_snapshots", T0.plusSeconds(60), "second");
      RunRecord third = run(ORDERS, "clean_orphans", T0.plusSeconds(120), "third");
      store.recordRun(first);
      store.recordRun(run(USERS, "optimize", T0.plusSeconds(30), "users"));
      store.recordRun(run(OTHER_ORDERS, "optimize", T0.plusSeconds(90), "other catalog"));
      store.recordRun(second);
      store.recordRun(third);

      assertThat(store.runs(ORDERS, 10)).containsExactly(third, second, first);
      assertThat(store.runs(ORDERS, 2)).containsExactly(third, second);
      assertThat(store.runs(USERS, 10))
          .containsExactly(run(USERS, "optimize", T0.plusSeconds(30), "users"));
      assertThat(store.runs(new TableKey("floe", "shop.none"), 10)).isEmpty();
    }

    @Test
    void eventsAreNewestFirstFilteredByTableAndLimited() {
      JdbcKeeperStore store = open();
      KeeperEvent found = KeeperEvent.ofTable(T0, KeeperEvent.TABLE_DISCOVERED, ORDERS, "found");
      KeeperEvent unreachable =
          new KeeperEvent(
              T0.plusSeconds(1),
              KeeperEvent.CATALOG_UNREACHABLE,
              "floe",
              Optional.empty(),
              "catalog floe is unreachable");
      KeeperEvent users =
          KeeperEvent.ofTable(T0.plusSeconds(2), KeeperEvent.TABLE_PAUSED, USERS, "paused");
      KeeperEvent other =
          KeeperEvent.ofTable(
              T0.plusSeconds(3), KeeperEvent.TABLE_FAILED, OTHER_ORDERS, "other catalog");
      KeeperEvent failed =
          KeeperEvent.ofTable(T0.plusSeconds(4), KeeperEvent.OPTIMIZE_FAILED, ORDERS, "failed");
      for (KeeperEvent event : List.of(found, unreachable, users, other, failed)) {
        store.recordEvent(event);
      }

      assertThat(store.events(Optional.empty(), 10))
          .containsExactly(failed, other, users, unreachable, found);
      assertThat(store.events(Optional.empty(), 2)).containsExactly(failed, other);
      assertThat(store.events(Optional.of(ORDERS), 10)).containsExactly(failed, found);
      assertThat(store.events(Optional.of(ORDERS), 1)).containsExactly(failed);
      assertThat(store.events(Optional.of(OTHER_ORDERS), 10)).containsExactly(other);
    }

    @Test
    void optimizeFailuresRoundTripAndAreReplaced() {
      JdbcKeeperStore store = open();
      assertThat(store.optimizeFailures(ORDERS)).isEqualTo(OptimizeFailures.none());

      store.saveOptimizeFailures(ORDERS, failures());
      store.saveOptimizeFailures(USERS, failures());
      assertThat(store.optimizeFailures(ORDERS)).isEqualTo(failures());

      OptimizeFailures fewer =
          new OptimizeFailures(
              Map.of(
                  new PartitionKey(1, "day=2026-11-02"),
                  new OptimizeFailures.Failure(4, T0.plusSeconds(500))));
      store.saveOptimizeFailures(ORDERS, fewer);
      assertThat(store.optimizeFailures(ORDERS)).isEqualTo(fewer);

      store.saveOptimizeFailures(ORDERS, OptimizeFailures.none());
      assertThat(store.optimizeFailures(ORDERS)).isEqualTo(OptimizeFailures.none());
      assertThat(store.optimizeFailures(USERS)).isEqualTo(failures());
    }

    @Test
    void historyRoundTripsAndIsReplaced() {
      JdbcKeeperStore store = open();
      assertThat(store.history(ORDERS)).isEmpty();

      store.saveHistory(ORDERS, observation());
      assertThat(store.history(ORDERS)).contains(observation());
      assertThat(store.history(OTHER_ORDERS)).isEmpty();

      HistoryObservation truncated =
          HistoryObservation.of(
              ORDERS.table(),
              T0.plus(Duration.ofDays(2)),
              "file:/w/orders/metadata/00009-y.metadata.json",
              OptionalLong.of(9),
              List.of(snapshot(8, 7L), snapshot(9, 8L)));
      assertThat(truncated.ancestryTruncated()).isTrue();
      store.saveHistory(ORDERS, truncated);
      assertThat(store.history(ORDERS)).contains(truncated);

      HistoryObservation noSnapshot =
          HistoryObservation.of(
              ORDERS.table(),
              T0.plus(Duration.ofDays(3)),
              "file:/w/orders/metadata/00000-z.metadata.json",
              OptionalLong.empty(),
              List.of());
      store.saveHistory(ORDERS, noSnapshot);
      assertThat(store.history(ORDERS)).contains(noSnapshot);
      assertThat(store.historyLocation(ORDERS))
          .isEqualTo("the keeper store at " + url() + " (keeper_history)");
    }

    @Test
    void pruneRemovesOlderRunsAndEventsOnly() {
      JdbcKeeperStore store = open();
      Instant cutoff = T0.plus(Duration.ofDays(7));
      RunRecord old = run(ORDERS, "optimize", cutoff.minusMillis(1), "old");
      RunRecord atCutoff = run(ORDERS, "optimize", cutoff, "at the cutoff");
      RunRecord recent = run(ORDERS, "optimize", cutoff.plusSeconds(1), "recent");
      KeeperEvent oldEvent =
          KeeperEvent.ofTable(cutoff.minusMillis(1), KeeperEvent.TABLE_FAILED, ORDERS, "old");
      KeeperEvent eventAtCutoff =
          KeeperEvent.ofTable(cutoff, KeeperEvent.TABLE_RELEASED, ORDERS, "at the cutoff");
      KeeperEvent recentEvent =
          new KeeperEvent(
              cutoff.plusSeconds(1),
              KeeperEvent.CATALOG_UNREACHABLE,
              "floe",
              Optional.empty(),
              "recent");
      List.of(old, atCutoff, recent).forEach(store::recordRun);
      List.of(oldEvent, eventAtCutoff, recentEvent).forEach(store::recordEvent);
      store.saveTable(fullRecord(ORDERS));
      store.saveOptimizeFailures(ORDERS, failures());
      store.saveHistory(ORDERS, observation());

      store.prune(cutoff);

      assertThat(store.runs(ORDERS, 10)).containsExactly(recent, atCutoff);
      assertThat(store.events(Optional.empty(), 10)).containsExactly(recentEvent, eventAtCutoff);
      assertThat(store.tables()).containsExactly(fullRecord(ORDERS));
      assertThat(store.optimizeFailures(ORDERS)).isEqualTo(failures());
      assertThat(store.history(ORDERS)).contains(observation());
    }

    @Test
    void reopeningKeepsEverythingWithoutMigratingAgain() throws SQLException {
      JdbcKeeperStore first = open();
      assertThat(first.schemaVersion()).isEqualTo(StoreMigrations.LATEST);
      assertThat(first.description()).isEqualTo("at " + url());
      first.saveTable(fullRecord(ORDERS));
      first.saveOptimizeFailures(ORDERS, failures());
      first.saveHistory(ORDERS, observation());
      first.recordRun(run(ORDERS, "optimize", T0, "kept"));
      first.recordEvent(KeeperEvent.ofTable(T0, KeeperEvent.TABLE_DISCOVERED, ORDERS, "kept"));
      first.close();

      JdbcKeeperStore second = open();

      assertThat(second.schemaVersion()).isEqualTo(StoreMigrations.LATEST);
      assertThat(schemaRows()).containsExactly(StoreMigrations.LATEST);
      assertThat(second.tables()).containsExactly(fullRecord(ORDERS));
      assertThat(second.optimizeFailures(ORDERS)).isEqualTo(failures());
      assertThat(second.history(ORDERS)).contains(observation());
      assertThat(second.runs(ORDERS, 10)).containsExactly(run(ORDERS, "optimize", T0, "kept"));
      assertThat(second.events(Optional.empty(), 10))
          .containsExactly(KeeperEvent.ofTable(T0, KeeperEvent.TABLE_DISCOVERED, ORDERS, "kept"));
    }

    @Test
    void healthSamplesRoundTripOnePerBucketOldestFirst() {
      JdbcKeeperStore store = open();
      HealthSample first = sample(ORDERS, T0, 40, Optional.of(T0.minusSeconds(30)));
      HealthSample replaced = sample(ORDERS, T0.plusSeconds(60), 50, Optional.empty());
      HealthSample replacing = sample(ORDERS, T0.plusSeconds(90), 55, Optional.of(T0));
      HealthSample users = sample(USERS, T0.plusSeconds(10), 90, Optional.empty());

      store.saveHealthSample(first, 1);
      store.saveHealthSample(replaced, 2);
      store.saveHealthSample(replacing, 2);
      store.saveHealthSample(users, 1);

      assertThat(store.healthSamples(ORDERS, Instant.EPOCH)).containsExactly(first, replacing);
      assertThat(store.healthSamples(ORDERS, T0.plusSeconds(1))).containsExactly(replacing);
      assertThat(store.latestHealthSamples()).containsExactlyInAnyOrder(replacing, users);

      store.prune(T0.plusSeconds(10));
      assertThat(store.healthSamples(ORDERS, Instant.EPOCH)).containsExactly(replacing);
      assertThat(store.healthSamples(USERS, Instant.EPOCH)).containsExactly(users);

      store.saveTable(TableRecord.discovered(ORDERS));
      store.forgetTable(ORDERS);
      assertThat(store.healthSamples(ORDERS, Instant.EPOCH)).isEmpty();
    }

    @Test
    void aStoreWrittenAtVersion1IsMigratedAndRead() throws SQLException {
      try (Connection connection = connect()) {
        StoreMigrations.migrate(
            connection,
            url().startsWith("jdbc:sqlite:")
                ? StoreMigrations.Dialect.SQLITE
                : StoreMigrations.Dialect.POSTGRESQL,
            "for the test",
            1);
        try (Statement statement = connection.createStatement()) {
          statement.executeUpdate(
              "INSERT INTO keeper_tables (catalog_name, table_name, status, health, data_files,"
                  + " small_files, delete_files, backlog_bytes, consecutive_failures)"
                  + " VALUES ('floe', 'shop.orders', 'idle', 77, 5, 4, 3, 2, 0)");
        }
      }
      assertThat(schemaRows()).containsExactly(1);

      JdbcKeeperStore store = open();

      assertThat(store.schemaVersion()).isEqualTo(StoreMigrations.LATEST);
      assertThat(store.tables())
          .containsExactly(
              TableRecord.discovered(ORDERS)
                  .withScan("unused", 77, 5, 4, 3, 2)
                  .withoutMetadataLocation()
                  .withStatus(TableStatus.IDLE));
      assertThat(store.latestHealthSamples()).isEmpty();
      HealthSample sample = sample(ORDERS, T0, 77, Optional.of(T0));
      store.saveHealthSample(sample, 0);
      assertThat(store.healthSamples(ORDERS, Instant.EPOCH)).containsExactly(sample);
    }

    @Test
    void syncReportsRoundTripTheLatestPerName() {
      JdbcKeeperStore store = open();
      SyncReportRow first = new SyncReportRow("orders", T0, "{\"state\":\"running\"}");
      SyncReportRow later =
          new SyncReportRow("orders", T0.plusSeconds(5), "{\"state\":\"stopped\"}");
      SyncReportRow other = new SyncReportRow("billing", T0, "{}");

      store.saveSyncReport(first);
      store.saveSyncReport(other);
      store.saveSyncReport(later);

      assertThat(store.syncReports()).containsExactly(other, later);
      store.close();
      assertThat(open().syncReports()).containsExactly(other, later);
    }

    @Test
    void aStoreWrittenAtVersion3IsMigratedAndRead() throws SQLException {
      try (Connection connection = connect()) {
        StoreMigrations.migrate(
            connection,
            url().startsWith("jdbc:sqlite:")
                ? StoreMigrations.Dialect.SQLITE
                : StoreMigrations.Dialect.POSTGRESQL,
            "for the test",
            3);
        try (Statement statement = connection.createStatement()) {
          statement.executeUpdate(
              "INSERT INTO keeper_tables (catalog_name, table_name, status, health, data_files,"
                  + " small_files, delete_files, backlog_bytes, consecutive_failures)"
                  + " VALUES ('floe', 'shop.orders', 'idle', 77, 5, 4, 3, 2, 0)");
          statement.executeUpdate(
              "INSERT INTO keeper_health_samples (catalog_name, table_name, bucket, at, health,"
                  + " data_files, small_files, delete_files, backlog_bytes)"
                  + " VALUES ('floe', 'shop.orders', 0, "
                  + T0.toEpochMilli()
                  + ", 77, 770, 77, 3, 77000)");
        }
      }
      assertThat(schemaRows()).containsExactly(3);

      JdbcKeeperStore store = open();

      assertThat(store.schemaVersion()).isEqualTo(StoreMigrations.LATEST);
      assertThat(store.tables()).extracting(TableRecord::key).containsExactly(ORDERS);
      assertThat(store.latestHealthSamples())
          .containsExactly(sample(ORDERS, T0, 77, Optional.empty()));
      assertThat(store.syncReports()).isEmpty();
      SyncReportRow report = new SyncReportRow("orders", T0, "{}");
      store.saveSyncReport(report);
      assertThat(store.syncReports()).containsExactly(report);
    }

    @Test
    void verificationRunsRoundTripNewestFirstAndTheKnownTimeIsKept() {
      JdbcKeeperStore store = open();
      assertThat(store.verificationKnownSince("orders", T0)).isEqualTo(T0);
      assertThat(store.verificationKnownSince("orders", T0.plusSeconds(60))).isEqualTo(T0);
      VerificationRun different =
          store.recordVerificationRun(
              new VerificationRun(
                  0,
                  "orders",
                  T0,
                  T0.plusSeconds(3),
                  VerificationRun.DIFFERENT,
                  1,
                  2,
                  3,
                  Optional.empty(),
                  Optional.of("{\"status\": \"different\"}")));
      VerificationRun failed =
          store.recordVerificationRun(
              new VerificationRun(
                  0,
                  "orders",
                  T0.plusSeconds(10),
                  T0.plusSeconds(11),
                  VerificationRun.FAILED,
                  0,
                  0,
                  0,
                  Optional.of("source down"),
                  Optional.empty()));
      store.recordVerificationRun(
          new VerificationRun(
              0,
              "billing",
              T0,
              T0,
              VerificationRun.EQUAL,
              0,
              0,
              0,
              Optional.empty(),
              Optional.of("{}")));

      assertThat(failed.id()).isGreaterThan(different.id());
      store.close();
      JdbcKeeperStore reopened = open();
      assertThat(reopened.verificationRuns("orders", 10)).containsExactly(failed, different);
      assertThat(reopened.verificationRuns("orders", 1)).containsExactly(failed);
      assertThat(reopened.verificationKnownSince("orders", T0.plusSeconds(99))).isEqualTo(T0);
      reopened.prune(T0.plusSeconds(5));
      assertThat(reopened.verificationRuns("orders", 10)).containsExactly(failed);
    }

    @Test
    void aStoreWrittenAtVersion4IsMigratedAndRead() throws SQLException {
      try (Connection connection = connect()) {
        StoreMigrations.migrate(
            connection,
            url().startsWith("jdbc:sqlite:")
                ? StoreMigrations.Dialect.SQLITE
                : StoreMigrations.Dialect.POSTGRESQL,
            "for the test",
            4);
        try (Statement statement = connection.createStatement()) {
          statement.executeUpdate(
              "INSERT INTO keeper_syncs (name, reported_at, report) VALUES ('orders', "
                  + T0.toEpochMilli()
                  + ", '{}')");
        }
      }
      assertThat(schemaRows()).containsExactly(4);

      JdbcKeeperStore store = open();

      assertThat(store.schemaVersion()).isEqualTo(StoreMigrations.LATEST);
      assertThat(store.syncReports()).containsExactly(new SyncReportRow("orders", T0, "{}"));
      assertThat(store.verificationRuns("orders", 10)).isEmpty();
      assertThat(store.verificationKnownSince("orders", T0)).isEqualTo(T0);
    }

    @Test
    void refusesAStoreWrittenByANewerFloe() throws SQLException {
      open().close();
      try (Connection connection = connect();
          Statement statement = connection.createStatement()) {
        statement.executeUpdate("UPDATE keeper_schema SET version = 99");
      }

      assertThatThrownBy(this::open)
          .isInstanceOfSatisfying(
              FloeException.class, e -> assertThat(e.category()).isEqualTo(ErrorCategory.BAD_INPUT))
          .hasMessage(
              "The keeper store at "
                  + url()
                  + " has schema version 99, written by a newer Floe; this one knows versions up"
                  + " to "
                  + StoreMigrations.LATEST
                  + ". Run the newer Floe, or point keeper.store.url at another database.");
      assertThat(schemaRows()).containsExactly(99);
    }

    @Test
    void twoThreadsSavingDifferentTablesAllLand() throws Exception {
      JdbcKeeperStore store = open();
      int perThread = 200;
      CountDownLatch start = new CountDownLatch(1);
      ExecutorService threads = Executors.newFixedThreadPool(2);
      try {
        List<Future<?>> writers = new ArrayList<>();
        for (String namespace : List.of("left", "right")) {
          writers.add(
              threads.submit(
                  () -> {
                    start.await();
                    for (int i = 0; i < perThread; i++) {
                      store.saveTable(fullRecord(new TableKey("floe", namespace + ".t" + i)));
                    }
                    return null;
                  }));
        }
        start.countDown();
        for (Future<?> writer : writers) {
          writer.get(120, TimeUnit.SECONDS);
        }
      } finally {
        threads.shutdownNow();
      }

      List<TableRecord> tables = store.tables();
      assertThat(tables).hasSize(2 * perThread);
      assertThat(tables)
          .contains(
              fullRecord(new TableKey("floe", "left.t0")),
              fullRecord(new TableKey("floe", "left.t199")),
              fullRecord(new TableKey("floe", "right.t0")),
              fullRecord(new TableKey("floe", "right.t199")));
    }

    private List<Integer> schemaRows() throws SQLException {
      List<Integer> versions = new ArrayList<>();
      try (Connection connection = connect();
          Statement statement = connection.createStatement();
          ResultSet rows = statement.executeQuery("SELECT version FROM keeper_schema")) {
        while (rows.next()) {
          versions.add(rows.getInt(1));
        }
      }
      return versions;
    }
  }

  @Nested
  class OnSqlite extends Contract {

    @TempDir Path dataDirectory;

    @Override
    JdbcKeeperStore openStore() {
      return JdbcKeeperStore.open(
          Optional.empty(), Optional.empty(), Optional.empty(), dataDirectory);
    }

    @Override
    String url() {
      return "jdbc:sqlite:" + dataDirectory.resolve(JdbcKeeperStore.DEFAULT_FILE).toAbsolutePath();
    }

    @Override
    Connection connect() throws SQLException {
      return DriverManager.getConnection(url());
    }

    @Test
    void createsTheDataDirectoryAndKeepsTheFileThere() {
      Path nested = dataDirectory.resolve("a/b");

      try (JdbcKeeperStore store =
          JdbcKeeperStore.open(Optional.empty(), Optional.empty(), Optional.empty(), nested)) {
        store.saveTable(TableRecord.discovered(ORDERS));
      }

      assertThat(nested.resolve(JdbcKeeperStore.DEFAULT_FILE)).isRegularFile();
    }
  }

  @Nested
  class OnPostgresql extends Contract {

    private static final String WRONG_PASSWORD = "wr0ng-Pa55-7f3e9c";

    private final PostgresServer server = PostgresServer.shared();
    private String database;

    private String database() {
      if (database == null) {
        database = server.createDatabase("keeper_store");
      }
      return database;
    }

    @Override
    JdbcKeeperStore openStore() {
      return JdbcKeeperStore.open(
          Optional.of(url()),
          Optional.of(server.user()),
          Optional.of(Secret.of(server.password())),
          Path.of("unused-for-postgresql"));
    }

    @Override
    String url() {
      return server.jdbcUrl(database());
    }

    @Override
    Connection connect() throws SQLException {
      return DriverManager.getConnection(url(), server.user(), server.password());
    }

    @Test
    void aWrongPasswordIsReportedWithoutRevealingIt() {
      assertThatThrownBy(
              () ->
                  JdbcKeeperStore.open(
                      Optional.of(url()),
                      Optional.of(server.user()),
                      Optional.of(Secret.of(WRONG_PASSWORD)),
                      Path.of("unused-for-postgresql")))
          .isInstanceOfSatisfying(
              FloeException.class,
              e -> assertThat(e.category()).isEqualTo(ErrorCategory.SOURCE_UNAVAILABLE))
          .hasMessageStartingWith("The keeper store at " + url() + " cannot prepare its schema: ")
          .hasMessageContaining("keeper.store.password")
          .message()
          .doesNotContain(WRONG_PASSWORD);
    }

    @Test
    void aRefusedStoreLeavesNoSessionOpen() throws SQLException {
      open().close();
      try (Connection connection = connect();
          Statement statement = connection.createStatement()) {
        statement.executeUpdate("UPDATE keeper_schema SET version = 99");
      }
      assertThatThrownBy(this::open).isInstanceOf(FloeException.class);

      // PostgreSQL refuses to drop a database that a session still uses.
      server.execute("DROP DATABASE \"" + database() + "\"");
    }
  }

  private static TableRecord fullRecord(TableKey key) {
    return new TableRecord(
        key,
        TableStatus.BACKOFF,
        Optional.of("s3://warehouse/" + key.table() + "/metadata/00007-abc.metadata.json"),
        63,
        1_234,
        567,
        89,
        9_876_543_210L,
        Optional.of(T0.plusSeconds(1)),
        3,
        Optional.of("commit failed: conflict on 'snapshot' (retry 3)"),
        Optional.of(T0.plusSeconds(2)),
        Optional.of(T0.plusSeconds(3)),
        Optional.of(T0.plusSeconds(4)),
        Optional.of(T0.plusSeconds(5)));
  }

  private static HealthSample sample(
      TableKey key, Instant at, int health, Optional<Instant> watermark) {
    return new HealthSample(key, at, health, health * 10L, health, 3, health * 1_000L, watermark);
  }

  private static RunRecord run(TableKey key, String kind, Instant finishedAt, String detail) {
    return new RunRecord(
        key,
        kind,
        finishedAt.minusMillis(1_500),
        finishedAt,
        "succeeded",
        10_000_000_000L,
        9_000_000_000L,
        40,
        4,
        detail);
  }

  private static OptimizeFailures failures() {
    return new OptimizeFailures(
        Map.of(
            PartitionKey.unpartitioned(0),
            new OptimizeFailures.Failure(1, T0),
            new PartitionKey(1, "day=2026-11-01"),
            new OptimizeFailures.Failure(2, T0.plusSeconds(10)),
            new PartitionKey(1, "day=2026-11-02"),
            new OptimizeFailures.Failure(7, T0.plusSeconds(20)),
            new PartitionKey(2, "day=2026-11-01/bucket=3"),
            new OptimizeFailures.Failure(3, T0.plusSeconds(30))));
  }

  private static HistoryObservation observation() {
    return HistoryObservation.of(
        ORDERS.table(),
        T0.plus(Duration.ofDays(1)),
        "file:/w/orders/metadata/00004-x.metadata.json",
        OptionalLong.of(3),
        List.of(snapshot(1, null), snapshot(2, 1L), snapshot(3, 2L)));
  }

  private static SnapshotFacts snapshot(long id, Long parent) {
    return new SnapshotFacts(
        id,
        parent == null ? OptionalLong.empty() : OptionalLong.of(parent),
        id,
        T0.plus(Duration.ofHours(id)),
        Map.of("added-records", Long.toString(id * 10), "total-records", Long.toString(id * 100)));
  }
}

package dev.floe.server.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.core.state.TableKey;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The alert store (added by schema version 3) on SQLite, and a store of version 2 migrated. */
class JdbcAlertStoreTest {

  private static final Instant T0 = Instant.parse("2026-12-02T08:00:00.250Z");

  @TempDir Path directory;

  @Test
  void aStoreWrittenAtVersion2IsMigratedAndItsAlertsKept() throws Exception {
    String url = "jdbc:sqlite:" + directory.resolve(JdbcKeeperStore.DEFAULT_FILE);
    try (Connection connection = DriverManager.getConnection(url)) {
      StoreMigrations.migrate(connection, StoreMigrations.Dialect.SQLITE, "for the test", 2);
      try (Statement statement = connection.createStatement()) {
        statement.executeUpdate(
            "INSERT INTO keeper_tables (catalog_name, table_name, status, health, data_files,"
                + " small_files, delete_files, backlog_bytes, consecutive_failures)"
                + " VALUES ('floe', 'shop.orders', 'idle', 77, 5, 4, 3, 2, 0)");
      }
    }

    try (JdbcKeeperStore store = open()) {
      assertThat(store.schemaVersion()).isEqualTo(StoreMigrations.LATEST);
      assertThat(store.tables())
          .extracting(TableRecord::key, TableRecord::health)
          .containsExactly(
              org.assertj.core.groups.Tuple.tuple(new TableKey("floe", "shop.orders"), 77));
      assertThat(store.alerts().firing()).isEmpty();
      store.alerts().insert(AlertRecord.fired("sync-lag", "orders", "lags", "/", T0));
    }
    try (JdbcKeeperStore reopened = open()) {
      assertThat(reopened.schemaVersion()).isEqualTo(StoreMigrations.LATEST);
      assertThat(reopened.alerts().firing())
          .extracting(AlertRecord::rule, AlertRecord::subject, AlertRecord::firedAt)
          .containsExactly(org.assertj.core.groups.Tuple.tuple("sync-lag", "orders", T0));
    }
  }

  @Test
  void alertsDeliveriesAndSilencesRoundTripAndArePruned() throws Exception {
    try (JdbcKeeperStore store = open()) {
      AlertStore alerts = store.alerts();
      AlertRecord first =
          alerts.insert(
              AlertRecord.fired(
                  "table-rewound", "floe/shop.orders", "rewound", "/tables/shop.orders", T0));
      AlertRecord second =
          alerts.insert(AlertRecord.fired("sync-lag", "orders", "lags", "/", T0.plusSeconds(1)));
      assertThat(second.id()).isGreaterThan(first.id());

      AlertRecord resolved =
          first
              .notified(T0.plusSeconds(2))
              .acknowledged(T0.plusSeconds(3))
              .resolved(T0.plusSeconds(4))
              .withMessage("rewound: snapshots 1, 2");
      alerts.update(resolved);

      assertThat(alerts.alert(first.id())).contains(resolved);
      assertThat(alerts.firing()).containsExactly(second);
      assertThat(alerts.alerts(Optional.empty(), 10)).containsExactly(second, resolved);
      assertThat(alerts.alerts(Optional.of(AlertRecord.RESOLVED), 10)).containsExactly(resolved);
      assertThat(alerts.acknowledged("table-rewound"))
          .isEqualTo(Map.of("floe/shop.orders", T0.plusSeconds(3)));

      DeliveryRecord pending =
          alerts.insert(DeliveryRecord.pending(Optional.of(first.id()), "ops", 1, T0));
      DeliveryRecord failed =
          pending.finished(
              T0.plusSeconds(1), DeliveryRecord.FAILED, Optional.of(500), Optional.of("HTTP 500"));
      alerts.update(failed);
      DeliveryRecord test =
          alerts.insert(DeliveryRecord.pending(Optional.empty(), "ops", 1, T0.plusSeconds(2)));
      assertThat(alerts.deliveries(first.id())).containsExactly(failed);
      assertThat(alerts.channelDeliveries("ops", 10)).containsExactly(test, failed);

      SilenceRecord silence =
          alerts.insert(
              new SilenceRecord(0, "sync-lag", "*", T0, T0.plus(Duration.ofHours(1)), "deploy"));
      assertThat(alerts.silences(T0.plusSeconds(1))).containsExactly(silence);
      assertThat(alerts.silences(T0.plus(Duration.ofHours(1)))).isEmpty();

      alerts.prune(T0.plusSeconds(5));
      assertThat(alerts.alerts(Optional.empty(), 10)).containsExactly(second);
      assertThat(alerts.channelDeliveries("ops", 10)).isEmpty();
      assertThat(alerts.silences(T0)).containsExactly(silence);
      assertThat(alerts.deleteSilence(silence.id())).isTrue();
      assertThat(alerts.deleteSilence(silence.id())).isFalse();
      assertThat(alerts.silences(T0)).isEmpty();
      assertThat(List.of(second.withId(second.id()))).containsExactly(second);
    }
  }

  private JdbcKeeperStore open() {
    return JdbcKeeperStore.open(Optional.empty(), Optional.empty(), Optional.empty(), directory);
  }
}

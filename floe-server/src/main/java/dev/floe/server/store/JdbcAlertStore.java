package dev.floe.server.store;

import static java.util.Objects.requireNonNull;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@link AlertStore} on the keeper store's database and connection; every method holds the {@link
 * JdbcKeeperStore}'s lock, as its own methods do.
 */
final class JdbcAlertStore implements AlertStore {

  private static final String ALERT_COLUMNS =
      "id, rule, subject, state, message, link, fired_at, resolved_at, last_notified_at,"
          + " acknowledged_at";
  private static final String DELIVERY_COLUMNS =
      "id, alert_id, channel, attempt, at, status, http_status, error";

  private final JdbcKeeperStore store;

  JdbcAlertStore(JdbcKeeperStore store) {
    this.store = requireNonNull(store, "store is null");
  }

  @Override
  public AlertRecord insert(AlertRecord alert) {
    synchronized (store) {
      long id =
          store
              .query(
                  "record an alert",
                  "INSERT INTO keeper_alerts (rule, subject, state, message, link, fired_at,"
                      + " resolved_at, last_notified_at, acknowledged_at)"
                      + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                  statement -> {
                    statement.setString(1, alert.rule());
                    statement.setString(2, alert.subject());
                    statement.setString(3, alert.state());
                    statement.setString(4, alert.message());
                    statement.setString(5, alert.link());
                    statement.setLong(6, alert.firedAt().toEpochMilli());
                    JdbcColumns.setInstant(statement, 7, alert.resolvedAt());
                    JdbcColumns.setInstant(statement, 8, alert.lastNotifiedAt());
                    JdbcColumns.setInstant(statement, 9, alert.acknowledgedAt());
                  },
                  rows -> rows.getLong(1))
              .get(0);
      return alert.withId(id);
    }
  }

  @Override
  public void update(AlertRecord alert) {
    synchronized (store) {
      store.update(
          "update alert " + alert.id(),
          "UPDATE keeper_alerts SET state = ?, message = ?, resolved_at = ?,"
              + " last_notified_at = ?, acknowledged_at = ? WHERE id = ?",
          statement -> {
            statement.setString(1, alert.state());
            statement.setString(2, alert.message());
            JdbcColumns.setInstant(statement, 3, alert.resolvedAt());
            JdbcColumns.setInstant(statement, 4, alert.lastNotifiedAt());
            JdbcColumns.setInstant(statement, 5, alert.acknowledgedAt());
            statement.setLong(6, alert.id());
          });
    }
  }

  @Override
  public Optional<AlertRecord> alert(long id) {
    synchronized (store) {
      return store
          .query(
              "read alert " + id,
              "SELECT " + ALERT_COLUMNS + " FROM keeper_alerts WHERE id = ?",
              statement -> statement.setLong(1, id),
              JdbcAlertStore::alertRow)
          .stream()
          .findFirst();
    }
  }

  @Override
  public List<AlertRecord> firing() {
    synchronized (store) {
      return store.query(
          "read the firing alerts",
          "SELECT " + ALERT_COLUMNS + " FROM keeper_alerts WHERE state = ? ORDER BY id",
          statement -> statement.setString(1, AlertRecord.FIRING),
          JdbcAlertStore::alertRow);
    }
  }

  @Override
  public List<AlertRecord> alerts(Optional<String> state, int limit) {
    synchronized (store) {
      return store.query(
          "read the alerts",
          "SELECT "
              + ALERT_COLUMNS
              + " FROM keeper_alerts"
              + (state.isPresent() ? " WHERE state = ?" : "")
              + " ORDER BY id DESC LIMIT ?",
          statement -> {
            int index = 1;
            if (state.isPresent()) {
              statement.setString(index++, state.get());
            }
            statement.setInt(index, limit);
          },
          JdbcAlertStore::alertRow);
    }
  }

  @Override
  public Map<String, Instant> acknowledged(String rule) {
    synchronized (store) {
      Map<String, Instant> latest = new HashMap<>();
      store
          .query(
              "read the acknowledged alerts",
              "SELECT subject, MAX(acknowledged_at) FROM keeper_alerts"
                  + " WHERE rule = ? AND acknowledged_at IS NOT NULL GROUP BY subject",
              statement -> statement.setString(1, rule),
              rows -> Map.entry(rows.getString(1), Instant.ofEpochMilli(rows.getLong(2))))
          .forEach(entry -> latest.put(entry.getKey(), entry.getValue()));
      return Map.copyOf(latest);
    }
  }

  @Override
  public DeliveryRecord insert(DeliveryRecord delivery) {
    synchronized (store) {
      long id =
          store
              .query(
                  "record a delivery",
                  "INSERT INTO keeper_alert_deliveries (alert_id, channel, attempt, at, status,"
                      + " http_status, error) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id",
                  statement -> {
                    if (delivery.alertId().isPresent()) {
                      statement.setLong(1, delivery.alertId().get());
                    } else {
                      statement.setNull(1, Types.BIGINT);
                    }
                    statement.setString(2, delivery.channel());
                    statement.setInt(3, delivery.attempt());
                    statement.setLong(4, delivery.at().toEpochMilli());
                    statement.setString(5, delivery.status());
                    JdbcColumns.setInteger(statement, 6, delivery.httpStatus());
                    statement.setString(7, delivery.error().orElse(null));
                  },
                  rows -> rows.getLong(1))
              .get(0);
      return delivery.withId(id);
    }
  }

  @Override
  public void update(DeliveryRecord delivery) {
    synchronized (store) {
      store.update(
          "update delivery " + delivery.id(),
          "UPDATE keeper_alert_deliveries SET at = ?, status = ?, http_status = ?, error = ?"
              + " WHERE id = ?",
          statement -> {
            statement.setLong(1, delivery.at().toEpochMilli());
            statement.setString(2, delivery.status());
            JdbcColumns.setInteger(statement, 3, delivery.httpStatus());
            statement.setString(4, delivery.error().orElse(null));
            statement.setLong(5, delivery.id());
          });
    }
  }

  @Override
  public List<DeliveryRecord> deliveries(long alertId) {
    synchronized (store) {
      return store.query(
          "read the deliveries of alert " + alertId,
          "SELECT "
              + DELIVERY_COLUMNS
              + " FROM keeper_alert_deliveries WHERE alert_id = ?"
              + " ORDER BY id",
          statement -> statement.setLong(1, alertId),
          JdbcAlertStore::deliveryRow);
    }
  }

  @Override
  public List<DeliveryRecord> channelDeliveries(String channel, int limit) {
    synchronized (store) {
      return store.query(
          "read the deliveries of channel " + channel,
          "SELECT "
              + DELIVERY_COLUMNS
              + " FROM keeper_alert_deliveries WHERE channel = ?"
              + " ORDER BY id DESC LIMIT ?",
          statement -> {
            statement.setString(1, channel);
            statement.setInt(2, limit);
          },
          JdbcAlertStore::deliveryRow);
    }
  }

  @Override
  public SilenceRecord insert(SilenceRecord silence) {
    synchronized (store) {
      long id =
          store
              .query(
                  "record a silence",
                  "INSERT INTO keeper_silences (rule, subject, created_at, until_at, reason)"
                      + " VALUES (?, ?, ?, ?, ?) RETURNING id",
                  statement -> {
                    statement.setString(1, silence.rule());
                    statement.setString(2, silence.subject());
                    statement.setLong(3, silence.createdAt().toEpochMilli());
                    statement.setLong(4, silence.until().toEpochMilli());
                    statement.setString(5, silence.reason());
                  },
                  rows -> rows.getLong(1))
              .get(0);
      return silence.withId(id);
    }
  }

  @Override
  public boolean deleteSilence(long id) {
    synchronized (store) {
      boolean present =
          !store
              .query(
                  "read silence " + id,
                  "SELECT id FROM keeper_silences WHERE id = ?",
                  statement -> statement.setLong(1, id),
                  rows -> rows.getLong(1))
              .isEmpty();
      store.update(
          "delete silence " + id,
          "DELETE FROM keeper_silences WHERE id = ?",
          statement -> statement.setLong(1, id));
      return present;
    }
  }

  @Override
  public List<SilenceRecord> silences(Instant now) {
    synchronized (store) {
      return store.query(
          "read the silences",
          "SELECT id, rule, subject, created_at, until_at, reason FROM keeper_silences"
              + " WHERE until_at > ? ORDER BY id DESC",
          statement -> statement.setLong(1, now.toEpochMilli()),
          rows ->
              new SilenceRecord(
                  rows.getLong(1),
                  rows.getString(2),
                  rows.getString(3),
                  Instant.ofEpochMilli(rows.getLong(4)),
                  Instant.ofEpochMilli(rows.getLong(5)),
                  rows.getString(6)));
    }
  }

  @Override
  public void prune(Instant before) {
    synchronized (store) {
      for (String sql :
          List.of(
              "DELETE FROM keeper_alerts WHERE state = 'resolved' AND resolved_at < ?",
              "DELETE FROM keeper_alert_deliveries WHERE at < ?",
              "DELETE FROM keeper_silences WHERE until_at < ?")) {
        store.update(
            "prune old alerts, deliveries and silences",
            sql,
            statement -> statement.setLong(1, before.toEpochMilli()));
      }
    }
  }

  private static AlertRecord alertRow(ResultSet rows) throws SQLException {
    return new AlertRecord(
        rows.getLong(1),
        rows.getString(2),
        rows.getString(3),
        rows.getString(4),
        rows.getString(5),
        rows.getString(6),
        Instant.ofEpochMilli(rows.getLong(7)),
        JdbcColumns.instant(rows, 8),
        JdbcColumns.instant(rows, 9),
        JdbcColumns.instant(rows, 10));
  }

  private static DeliveryRecord deliveryRow(ResultSet rows) throws SQLException {
    long alertId = rows.getLong(2);
    Optional<Long> alert = rows.wasNull() ? Optional.empty() : Optional.of(alertId);
    int status = rows.getInt(7);
    Optional<Integer> httpStatus = rows.wasNull() ? Optional.empty() : Optional.of(status);
    return new DeliveryRecord(
        rows.getLong(1),
        alert,
        rows.getString(3),
        rows.getInt(4),
        Instant.ofEpochMilli(rows.getLong(5)),
        rows.getString(6),
        httpStatus,
        Optional.ofNullable(rows.getString(8)));
  }
}

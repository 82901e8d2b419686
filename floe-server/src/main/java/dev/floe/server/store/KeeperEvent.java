package dev.floe.server.store;

import static java.util.Objects.requireNonNull;

import dev.floe.core.state.TableKey;
import java.time.Instant;
import java.util.Optional;

/**
 * Something the keeper reports: a table found or dropped, quarantined or released, rewound, a run
 * that failed, a catalog that cannot be reached, a worker started or lost, capacity below or back
 * at target. Messages never hold a secret.
 *
 * @param kind one of the constants below, a contract of the API
 * @param catalog the catalog concerned; empty for events of the service (workers, capacity)
 * @param table the table concerned, empty for events of a catalog or of the service
 */
public record KeeperEvent(
    Instant at, String kind, String catalog, Optional<String> table, String message) {

  public static final String TABLE_DISCOVERED = "table_discovered";
  public static final String TABLE_DROPPED = "table_dropped";
  public static final String TABLE_QUARANTINED = "table_quarantined";
  public static final String TABLE_RELEASED = "table_released";
  public static final String TABLE_PAUSED = "table_paused";
  public static final String TABLE_FAILED = "table_failed";
  public static final String TABLE_REWOUND = "table_rewound";
  public static final String OPTIMIZE_FAILED = "optimize_failed";
  public static final String MAINTENANCE_FAILED = "maintenance_failed";
  public static final String CATALOG_UNREACHABLE = "catalog_unreachable";
  public static final String WORKER_STARTED = "worker_started";
  public static final String WORKER_LOST = "worker_lost";
  public static final String CAPACITY_BELOW_TARGET = "capacity_below_target";
  public static final String CAPACITY_RESTORED = "capacity_restored";
  public static final String ALERT_FIRED = "alert_fired";
  public static final String ALERT_RESOLVED = "alert_resolved";
  public static final String VERIFICATION_EQUAL = "verification_equal";
  public static final String VERIFICATION_DIFFERENT = "verification_different";
  public static final String VERIFICATION_FAILED = "verification_failed";

  /** A table property meant for the alert rules that cannot be used (named in the message). */
  public static final String ALERT_PROPERTY_INVALID = "alert_property_invalid";

  public KeeperEvent {
    requireNonNull(at, "at is null");
    requireNonNull(kind, "kind is null");
    requireNonNull(catalog, "catalog is null");
    requireNonNull(table, "table is null");
    requireNonNull(message, "message is null");
  }

  public static KeeperEvent ofTable(Instant at, String kind, TableKey key, String message) {
    return new KeeperEvent(at, kind, key.catalog(), Optional.of(key.table()), message);
  }
}

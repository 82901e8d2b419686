package dev.floe.server.alerts;

import static java.util.Objects.requireNonNull;

import dev.floe.core.state.TableKey;
import dev.floe.server.store.TableStatus;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The facts the alert rules look at, gathered at one moment.
 *
 * @param tables every kept table
 * @param groupsBelowTarget worker groups the capacity check reports below their target
 * @param oldestQueuedTask per worker group, when its oldest queued task was queued
 * @param syncs the sync jobs' latest reports
 * @param verifications the scheduled verifications' last runs
 * @param rewound tables whose history was seen rewound, with when
 * @param unreachableCatalogs catalogs whose last listing failed, with the error
 */
public record AlertObservations(
    List<TableObservation> tables,
    Set<String> groupsBelowTarget,
    Map<String, Instant> oldestQueuedTask,
    List<SyncObservation> syncs,
    List<VerificationObservation> verifications,
    List<Rewound> rewound,
    Map<String, String> unreachableCatalogs) {

  public AlertObservations {
    tables = List.copyOf(requireNonNull(tables, "tables is null"));
    groupsBelowTarget = Set.copyOf(requireNonNull(groupsBelowTarget, "groupsBelowTarget is null"));
    oldestQueuedTask = Map.copyOf(requireNonNull(oldestQueuedTask, "oldestQueuedTask is null"));
    syncs = List.copyOf(requireNonNull(syncs, "syncs is null"));
    verifications = List.copyOf(requireNonNull(verifications, "verifications is null"));
    rewound = List.copyOf(requireNonNull(rewound, "rewound is null"));
    unreachableCatalogs =
        Map.copyOf(requireNonNull(unreachableCatalogs, "unreachableCatalogs is null"));
  }

  public static AlertObservations none() {
    return new AlertObservations(
        List.of(), Set.of(), Map.of(), List.of(), List.of(), List.of(), Map.of());
  }

  /**
   * A kept table as the registry has it.
   *
   * @param properties its Iceberg properties at its last evaluation (alert overrides), empty before
   *     one
   */
  public record TableObservation(
      TableKey key,
      TableStatus status,
      int health,
      int consecutiveFailures,
      java.util.Optional<String> lastError,
      Map<String, String> properties) {
    public TableObservation {
      requireNonNull(key, "key is null");
      requireNonNull(status, "status is null");
      requireNonNull(lastError, "lastError is null");
      properties = Map.copyOf(requireNonNull(properties, "properties is null"));
    }
  }

  /** A table whose history was rewound: the {@code table_rewound} event. */
  public record Rewound(TableKey key, Instant at, String message) {
    public Rewound {
      requireNonNull(key, "key is null");
      requireNonNull(at, "at is null");
      requireNonNull(message, "message is null");
    }
  }
}

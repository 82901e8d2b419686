package dev.floe.server.alerts;

import static java.util.Objects.requireNonNull;

import dev.floe.core.state.TableKey;
import dev.floe.server.TableRegistry;
import dev.floe.server.discovery.DiscoveryLoop;
import dev.floe.server.optimize.TableEvaluator;
import dev.floe.server.optimize.TaskQueue;
import dev.floe.server.store.AlertRecord;
import dev.floe.server.store.KeeperEvent;
import dev.floe.server.store.TableRecord;
import dev.floe.server.workers.CapacityLoop;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Gathers {@link AlertObservations} from the keeper's parts: the table registry (with each table's
 * properties from its last evaluation), the capacity check, the task queue, the discovery loop,
 * {@code table_rewound} events (heard as they are raised; the rewound tables of firing alerts are
 * remembered across restarts through those alerts), and the sync and verification reports.
 */
public final class KeeperObservations implements Supplier<AlertObservations> {

  private final TableRegistry registry;
  private final TableEvaluator evaluator;
  private final CapacityLoop capacity;
  private final TaskQueue queue;
  private final DiscoveryLoop discovery;
  private final Supplier<List<SyncObservation>> syncs;
  private final Supplier<List<VerificationObservation>> verifications;
  private final Map<TableKey, AlertObservations.Rewound> rewound = new ConcurrentHashMap<>();

  public KeeperObservations(
      TableRegistry registry,
      TableEvaluator evaluator,
      CapacityLoop capacity,
      TaskQueue queue,
      DiscoveryLoop discovery,
      Supplier<List<SyncObservation>> syncs,
      Supplier<List<VerificationObservation>> verifications) {
    this.registry = requireNonNull(registry, "registry is null");
    this.evaluator = requireNonNull(evaluator, "evaluator is null");
    this.capacity = requireNonNull(capacity, "capacity is null");
    this.queue = requireNonNull(queue, "queue is null");
    this.discovery = requireNonNull(discovery, "discovery is null");
    this.syncs = requireNonNull(syncs, "syncs is null");
    this.verifications = requireNonNull(verifications, "verifications is null");
  }

  /** Hears an event: a {@code table_rewound} is remembered (the latest per table). */
  public void heard(KeeperEvent event) {
    if (event.kind().equals(KeeperEvent.TABLE_REWOUND) && event.table().isPresent()) {
      TableKey key = new TableKey(event.catalog(), event.table().get());
      rewound.put(key, new AlertObservations.Rewound(key, event.at(), event.message()));
    }
  }

  /** Remembers the rewound tables of alerts that were firing when the keeper last stopped. */
  public void restore(List<AlertRecord> firing) {
    for (AlertRecord alert : firing) {
      int slash = alert.subject().indexOf('/');
      if (alert.rule().equals(dev.floe.core.alert.AlertRule.TABLE_REWOUND.ruleName())
          && slash > 0) {
        TableKey key =
            new TableKey(alert.subject().substring(0, slash), alert.subject().substring(slash + 1));
        String message = alert.message();
        int colon = message.indexOf(": ");
        rewound.putIfAbsent(
            key,
            new AlertObservations.Rewound(
                key, alert.firedAt(), colon < 0 ? message : message.substring(colon + 2)));
      }
    }
  }

  @Override
  public AlertObservations get() {
    List<AlertObservations.TableObservation> tables = new ArrayList<>();
    for (TableRecord table : registry.all()) {
      Map<String, String> properties =
          evaluator
              .evaluated(table.key())
              .map(evaluated -> evaluated.table().properties())
              .orElse(Map.of());
      tables.add(
          new AlertObservations.TableObservation(
              table.key(),
              table.status(),
              table.health(),
              table.consecutiveFailures(),
              table.lastError(),
              properties));
    }
    return new AlertObservations(
        tables,
        capacity.belowTarget(),
        queue.oldestQueuedAtByGroup(),
        syncs.get(),
        verifications.get(),
        List.copyOf(rewound.values()),
        discovery.unreachable());
  }
}

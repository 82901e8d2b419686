package dev.floe.server.optimize;

import static java.util.Objects.requireNonNull;

import dev.floe.core.maintenance.HistoryVerdict;
import dev.floe.core.maintenance.ObservedSnapshot;
import dev.floe.core.state.TableKey;
import dev.floe.iceberg.maintenance.HistoryChecker;
import dev.floe.server.KeeperEvents;
import dev.floe.server.store.KeeperEvent;
import dev.floe.server.store.KeeperStore;
import java.time.Instant;
import java.util.stream.Collectors;
import org.apache.iceberg.Table;

/**
 * The history watch on every change of a table: the {@code floe check-history} check against the
 * observation in the keeper's store. A table whose history was rewound raises {@code table_rewound}
 * naming the lost snapshots (the case study's metastore race, R18).
 */
public final class HistoryGuard implements TableEvaluator.HistoryCheck {

  private final HistoryChecker checker;
  private final KeeperEvents events;

  public HistoryGuard(KeeperStore store, KeeperEvents events) {
    this.checker = new HistoryChecker(requireNonNull(store, "store is null"));
    this.events = requireNonNull(events, "events is null");
  }

  @Override
  public void check(TableKey key, Table table, Instant now) {
    HistoryChecker.Check check = checker.check(key, table, now);
    if (check.verdict().isEmpty()) {
      return;
    }
    HistoryVerdict verdict = check.verdict().get();
    if (verdict.status() == HistoryVerdict.Status.REWOUND) {
      events.table(
          KeeperEvent.TABLE_REWOUND,
          key,
          "history rewound: "
              + verdict.explanation()
              + "; lost snapshots (newest first): "
              + verdict.lost().stream()
                  .map(HistoryGuard::describe)
                  .collect(Collectors.joining(", ")));
    }
  }

  private static String describe(ObservedSnapshot snapshot) {
    return snapshot.id()
        + " committed "
        + snapshot.committedAt()
        + " ("
        + (snapshot.addedRecords() < 0 ? "unknown" : snapshot.addedRecords())
        + " records added)";
  }
}

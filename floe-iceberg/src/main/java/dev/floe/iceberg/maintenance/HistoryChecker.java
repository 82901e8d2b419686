package dev.floe.iceberg.maintenance;

import static java.util.Objects.requireNonNull;

import dev.floe.core.maintenance.HistoryObservation;
import dev.floe.core.maintenance.HistoryVerdict;
import dev.floe.core.maintenance.HistoryWatch;
import dev.floe.core.maintenance.SnapshotFacts;
import dev.floe.core.state.TableKey;
import dev.floe.core.state.TableStateStore;
import java.time.Instant;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.Table;

/**
 * Observes a table's history, compares it with the previous observation in the {@link
 * TableStateStore}, and stores the new one. As thread-safe as its store; one table should be
 * checked by one caller at a time (the store keeps the last observation saved).
 */
public final class HistoryChecker {

  /**
   * The result of one check.
   *
   * @param previous the stored observation compared with, empty on the first check
   * @param current the observation made now (and stored)
   * @param verdict the comparison, empty on the first check
   */
  public record Check(
      Optional<HistoryObservation> previous,
      HistoryObservation current,
      Optional<HistoryVerdict> verdict) {}

  private final TableStateStore store;
  private final HistoryWatch watch = new HistoryWatch();

  public HistoryChecker(TableStateStore store) {
    this.store = requireNonNull(store, "store is null");
  }

  /**
   * @param key the catalog and the table, as the store keys it
   * @param table the loaded table; refreshed first
   * @throws dev.floe.core.error.FloeException from the store: when it cannot be read or written, or
   *     the stored observation is damaged
   */
  public Check check(TableKey key, Table table, Instant now) {
    TableSnapshot snapshot = TableSnapshot.refresh(key.table(), table);
    HistoryObservation observation =
        HistoryObservation.of(
            key.table(),
            now,
            snapshot.metadataLocation(),
            snapshot.currentSnapshotId(),
            snapshot.snapshots());
    Optional<HistoryObservation> previous = store.history(key);
    Optional<HistoryVerdict> verdict = Optional.empty();
    if (previous.isPresent()) {
      Set<Long> ids = new HashSet<>();
      snapshot.snapshots().stream().map(SnapshotFacts::id).forEach(ids::add);
      verdict =
          Optional.of(watch.compare(previous.get(), observation, snapshot.metadataLog(), ids));
    }
    store.saveHistory(key, observation);
    return new Check(previous, observation, verdict);
  }
}

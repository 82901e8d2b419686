package dev.floe.iceberg.maintenance;

import static java.util.Objects.requireNonNull;

import dev.floe.core.maintenance.HistoryObservation;
import dev.floe.core.maintenance.HistoryVerdict;
import dev.floe.core.maintenance.HistoryWatch;
import dev.floe.core.maintenance.SnapshotFacts;
import java.time.Instant;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.Table;

/**
 * Observes a table's history, compares it with the previous observation in the {@link
 * HistoryStore}, and stores the new one.
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

  private final HistoryStore store;
  private final HistoryWatch watch = new HistoryWatch();

  public HistoryChecker(HistoryStore store) {
    this.store = requireNonNull(store, "store is null");
  }

  public Check check(String catalog, String name, Table table, Instant now) {
    TableSnapshot snapshot = TableSnapshot.refresh(name, table);
    HistoryObservation observation =
        HistoryObservation.of(
            name,
            now,
            snapshot.metadataLocation(),
            snapshot.currentSnapshotId(),
            snapshot.snapshots());
    Optional<HistoryObservation> previous = store.read(catalog, name);
    Optional<HistoryVerdict> verdict = Optional.empty();
    if (previous.isPresent()) {
      Set<Long> ids = new HashSet<>();
      snapshot.snapshots().stream().map(SnapshotFacts::id).forEach(ids::add);
      verdict =
          Optional.of(watch.compare(previous.get(), observation, snapshot.metadataLog(), ids));
    }
    store.write(catalog, observation);
    return new Check(previous, observation, verdict);
  }
}

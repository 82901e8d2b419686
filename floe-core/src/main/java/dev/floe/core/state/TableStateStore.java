package dev.floe.core.state;

import dev.floe.core.maintenance.HistoryObservation;
import dev.floe.core.optimize.OptimizeFailures;
import java.util.Optional;

/**
 * What Floe remembers of each table between runs: the optimize failures the planner backs off from,
 * and the last history observation {@code check-history} compares with. Keyed by {@link TableKey}
 * (catalog and table).
 *
 * <p>Implementations are safe for use by several threads at once. Each save replaces one kind of
 * state of one table atomically: a reader sees the previous state or the new one, never a mix. Two
 * writers of the same kind of state of the same table race and the last save wins (nothing is
 * merged), so each table's state should have one writer at a time (the keeper, or one CLI run).
 *
 * <p>Every method may block on I/O and may throw {@link dev.floe.core.error.FloeException}:
 * SOURCE_UNAVAILABLE when the store cannot be read or written (the message names the store and the
 * fix), INTERNAL when the stored state is damaged or was written by a newer Floe (the message says
 * how to reset it).
 */
public interface TableStateStore {

  /** The table's optimize failures; none when nothing is stored. */
  OptimizeFailures optimizeFailures(TableKey table);

  /** Replaces the table's optimize failures; saving none removes them. */
  void saveOptimizeFailures(TableKey table, OptimizeFailures failures);

  /** The table's last stored history observation; empty when it was never observed. */
  Optional<HistoryObservation> history(TableKey table);

  /**
   * Replaces the table's stored history observation.
   *
   * @throws IllegalArgumentException when the observation is of another table
   */
  void saveHistory(TableKey table, HistoryObservation observation);

  /** Where the table's history observation is kept, for messages (a file, a database table). */
  String historyLocation(TableKey table);
}

package dev.floe.verify;

import static java.util.Objects.requireNonNull;

import dev.floe.core.error.FloeException;
import dev.floe.core.verify.RowKey;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The slice boundaries found so far by the key walk, shared between the walk (which adds them in
 * key order) and the lake readers (which wait until the walk has passed the keys of the file they
 * read, so every row of it falls into a slice already known). Thread-safe.
 */
final class WalkedBoundaries {

  private final KeyOrder order;
  private final String table;
  private final List<RowKey> keys = new ArrayList<>();
  private final List<Object[]> typed = new ArrayList<>();
  private boolean done;
  private boolean failed;

  WalkedBoundaries(KeyOrder order, String table) {
    this.order = requireNonNull(order, "order is null");
    this.table = requireNonNull(table, "table is null");
  }

  /**
   * Adds the next boundary.
   *
   * @throws FloeException BAD_INPUT when it is not above the last one in the Java order of MySQL's
   *     keys (a collation verify does not reproduce)
   */
  synchronized void add(RowKey key) {
    Object[] value = order.typed(key);
    if (!typed.isEmpty() && order.compare(typed.get(typed.size() - 1), value) >= 0) {
      failed = true;
      notifyAll();
      throw FloeException.badInput(
          "MySQL returned the keys "
              + keys.get(keys.size() - 1)
              + " and "
              + key
              + " of "
              + table
              + " in an order verify does not reproduce (key collation); it cannot compare"
              + " this table. Name another key with --key.");
    }
    keys.add(key);
    typed.add(value);
    notifyAll();
  }

  /** The walk is over: every boundary is known. */
  synchronized void finish() {
    done = true;
    notifyAll();
  }

  /** The walk failed: waiting readers give up. */
  synchronized void fail() {
    failed = true;
    notifyAll();
  }

  synchronized List<RowKey> keys() {
    return List.copyOf(keys);
  }

  /**
   * Waits until the walk is over, or has passed {@code highest} (a key above it is known), and
   * returns the boundaries known then.
   *
   * @param highest the highest key that will be placed, empty when unknown
   */
  synchronized Object[][] awaitPast(Optional<Object[]> highest) {
    while (!done) {
      if (failed) {
        throw new IllegalStateException("the key walk failed");
      }
      if (highest.isPresent()
          && !typed.isEmpty()
          && order.compare(typed.get(typed.size() - 1), highest.get()) > 0) {
        break;
      }
      try {
        wait();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for the key walk", e);
      }
    }
    return typed.toArray(Object[][]::new);
  }
}

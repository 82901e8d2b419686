package dev.floe.server;

import dev.floe.core.state.TableKey;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which tables an optimize run or a maintenance job is working on: at most one of them per table at
 * a time, so a snapshot expiry never removes the snapshot a rewrite validates from. Thread-safe.
 */
public final class TableLocks {

  private final Set<TableKey> busy = ConcurrentHashMap.newKeySet();

  /** Takes the table; false when something else works on it. */
  public boolean tryAcquire(TableKey key) {
    return busy.add(key);
  }

  public void release(TableKey key) {
    busy.remove(key);
  }

  public boolean isBusy(TableKey key) {
    return busy.contains(key);
  }
}

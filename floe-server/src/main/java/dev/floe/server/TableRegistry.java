package dev.floe.server;

import static java.util.Objects.requireNonNull;

import dev.floe.core.state.TableKey;
import dev.floe.server.store.KeeperStore;
import dev.floe.server.store.TableRecord;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;

/**
 * The keeper's tables, in memory and written through to the {@link KeeperStore}: the one place a
 * table's record changes, so the API, the metrics and the store always agree. Thread-safe; changes
 * of one table are serialised.
 */
public final class TableRegistry {

  /** Told of every change, after it is stored. */
  public interface Listener {
    void changed(Optional<TableRecord> before, Optional<TableRecord> after);
  }

  private final KeeperStore store;
  private final Map<TableKey, TableRecord> tables = new ConcurrentHashMap<>();
  private final List<Listener> listeners = new CopyOnWriteArrayList<>();

  public TableRegistry(KeeperStore store) {
    this.store = requireNonNull(store, "store is null");
  }

  public void addListener(Listener listener) {
    listeners.add(requireNonNull(listener, "listener is null"));
  }

  /** Loads the stored records (once, at start). */
  public synchronized void load(Collection<TableRecord> records) {
    for (TableRecord record : records) {
      tables.put(record.key(), record);
      notify(Optional.empty(), Optional.of(record));
    }
  }

  public Optional<TableRecord> get(TableKey key) {
    return Optional.ofNullable(tables.get(key));
  }

  /** A snapshot of every record. */
  public List<TableRecord> all() {
    return new ArrayList<>(tables.values());
  }

  public int size() {
    return tables.size();
  }

  /** Adds tables not yet known, in one store transaction. */
  public synchronized void addAll(List<TableRecord> records) {
    List<TableRecord> added =
        records.stream().filter(record -> !tables.containsKey(record.key())).toList();
    store.saveTables(added);
    for (TableRecord record : added) {
      tables.put(record.key(), record);
      notify(Optional.empty(), Optional.of(record));
    }
  }

  /**
   * Changes a known table's record; stores it when it changed. Returns the new record, or empty
   * when the table is not (or no longer) known.
   */
  public synchronized Optional<TableRecord> update(
      TableKey key, UnaryOperator<TableRecord> change) {
    TableRecord before = tables.get(key);
    if (before == null) {
      return Optional.empty();
    }
    TableRecord after = requireNonNull(change.apply(before), "change returned null");
    if (!after.equals(before)) {
      store.saveTable(after);
      tables.put(key, after);
      notify(Optional.of(before), Optional.of(after));
    }
    return Optional.of(after);
  }

  /** Forgets a dropped table (its runs and events stay in the store). */
  public synchronized void remove(TableKey key) {
    TableRecord before = tables.get(key);
    if (before != null) {
      store.forgetTable(key);
      tables.remove(key);
      notify(Optional.of(before), Optional.empty());
    }
  }

  private void notify(Optional<TableRecord> before, Optional<TableRecord> after) {
    for (Listener listener : listeners) {
      listener.changed(before, after);
    }
  }
}

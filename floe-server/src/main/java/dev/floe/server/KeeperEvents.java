package dev.floe.server;

import static java.util.Objects.requireNonNull;

import dev.floe.core.state.TableKey;
import dev.floe.server.store.KeeperEvent;
import dev.floe.server.store.KeeperStore;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Raises events: stores them and logs them. A store that fails is logged, never thrown. */
public final class KeeperEvents {

  private static final Logger LOG = LoggerFactory.getLogger(KeeperEvents.class);

  private final KeeperStore store;
  private final Clock clock;
  private final List<Consumer<KeeperEvent>> listeners = new CopyOnWriteArrayList<>();

  public KeeperEvents(KeeperStore store, Clock clock) {
    this.store = requireNonNull(store, "store is null");
    this.clock = requireNonNull(clock, "clock is null");
  }

  /** Tells {@code listener} of every event raised from now on, on the thread that raises it. */
  public void addListener(Consumer<KeeperEvent> listener) {
    listeners.add(requireNonNull(listener, "listener is null"));
  }

  public void table(String kind, TableKey key, String message) {
    raise(KeeperEvent.ofTable(clock.instant(), kind, key, message));
  }

  public void catalog(String kind, String catalog, String message) {
    raise(new KeeperEvent(clock.instant(), kind, catalog, Optional.empty(), message));
  }

  /** An event of the service itself (workers, capacity): no catalog, no table. */
  public void service(String kind, String message) {
    raise(new KeeperEvent(clock.instant(), kind, "", Optional.empty(), message));
  }

  private void raise(KeeperEvent event) {
    LOG.info(
        "{}{}{}: {}",
        event.kind(),
        event.catalog().isEmpty() ? "" : " " + event.catalog(),
        event.table().map(table -> " " + table).orElse(""),
        event.message());
    try {
      store.recordEvent(event);
    } catch (RuntimeException e) {
      LOG.warn("cannot store event {}", event.kind(), e);
    }
    for (Consumer<KeeperEvent> listener : listeners) {
      try {
        listener.accept(event);
      } catch (RuntimeException e) {
        LOG.warn("a listener of event {} failed", event.kind(), e);
      }
    }
  }
}

package dev.floe.cli;

import static java.util.Objects.requireNonNull;

import dev.floe.core.config.FloeSettings;
import dev.floe.core.state.TableKey;
import dev.floe.core.state.TableStateStore;
import dev.floe.iceberg.CatalogFactory;
import dev.floe.iceberg.FloeCatalog;
import dev.floe.iceberg.maintenance.MaintenanceTables;
import java.nio.file.Path;
import java.time.Clock;
import org.apache.iceberg.Table;

/**
 * What the commands of one {@code floe} invocation share, built once by the composition root
 * ({@link FloeCommand}): the settings, the clock, the catalog (opened on first use and closed with
 * the context), the table state store and the spill directory. Commands take what they need from
 * here instead of opening their own.
 *
 * <p>Thread-safe: the catalog is opened once even when several threads ask for it.
 */
final class FloeContext implements AutoCloseable {

  private final FloeSettings settings;
  private final Clock clock;
  private final TableStateStore stateStore;
  private FloeCatalog catalog;
  private boolean closed;

  FloeContext(FloeSettings settings, Clock clock, TableStateStore stateStore) {
    this.settings = requireNonNull(settings, "settings is null");
    this.clock = requireNonNull(clock, "clock is null");
    this.stateStore = requireNonNull(stateStore, "stateStore is null");
  }

  FloeSettings settings() {
    return settings;
  }

  /** The clock every command reads the time from. */
  Clock clock() {
    return clock;
  }

  /**
   * The configured catalog, opened on the first call.
   *
   * @throws dev.floe.core.error.FloeException BAD_INPUT when the settings cannot make a catalog,
   *     SOURCE_UNAVAILABLE when it cannot be reached
   * @throws IllegalStateException after {@link #close()}
   */
  synchronized FloeCatalog catalog() {
    if (closed) {
      throw new IllegalStateException("the context is closed");
    }
    if (catalog == null) {
      catalog = new CatalogFactory().open(settings.catalog(), settings.dataDirectory());
    }
    return catalog;
  }

  /**
   * Loads NS.TABLE from the catalog.
   *
   * @throws dev.floe.core.error.FloeException BAD_INPUT when the name is malformed or the table
   *     does not exist
   */
  Table table(String name) {
    return MaintenanceTables.load(catalog().catalog(), name);
  }

  /** The state store key of NS.TABLE in the catalog. */
  TableKey key(String table) {
    return new TableKey(catalog().name(), table);
  }

  TableStateStore stateStore() {
    return stateStore;
  }

  /** Where optimize spills sorted runs: {@code <data-dir>/tmp/optimize}. */
  Path spillDirectory() {
    return settings.dataDirectory().resolve("tmp").resolve("optimize");
  }

  /** Closes the catalog if it was opened; later calls to {@link #catalog()} fail. */
  @Override
  public synchronized void close() {
    closed = true;
    if (catalog != null) {
      FloeCatalog open = catalog;
      catalog = null;
      open.close();
    }
  }
}

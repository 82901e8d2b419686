package dev.floe.server.maintenance;

import static java.util.Objects.requireNonNull;

import dev.floe.core.maintenance.MaintenancePolicy;
import dev.floe.core.state.TableKey;
import dev.floe.iceberg.maintenance.MaintenanceOutcome;
import dev.floe.server.KeeperEvents;
import dev.floe.server.PeriodicLoop;
import dev.floe.server.TableLocks;
import dev.floe.server.TableRegistry;
import dev.floe.server.discovery.KeptCatalog;
import dev.floe.server.store.KeeperEvent;
import dev.floe.server.store.KeeperStore;
import dev.floe.server.store.RunRecord;
import dev.floe.server.store.TableRecord;
import dev.floe.server.store.TableStatus;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the maintenance jobs on every table when they are due: snapshot expiry, metadata cleanup and
 * orphan-file cleanup, each on its interval, with the table's own policy (its {@code
 * floe.expire.*}, {@code floe.orphan.*}, {@code floe.metadata.*} properties). Skips a table that is
 * running an optimize run, paused, opted out ({@code floe.keeper.maintenance.enabled=false}) or has
 * {@code gc.enabled=false}. Every run is recorded with what it removed; a failing job raises {@code
 * maintenance_failed} for its table and is tried again on its next interval. One thread.
 */
public final class MaintenanceLoop implements Runnable {

  private static final Logger LOG = LoggerFactory.getLogger(MaintenanceLoop.class);

  /** Opts a table out of the keeper's maintenance. */
  public static final String ENABLED = "floe.keeper.maintenance.enabled";

  private static final Duration TICK = Duration.ofSeconds(5);

  /** The intervals of the three jobs. */
  public record Intervals(Duration expire, Duration metadata, Duration orphans) {
    public Intervals {
      requireNonNull(expire, "expire is null");
      requireNonNull(metadata, "metadata is null");
      requireNonNull(orphans, "orphans is null");
    }
  }

  /** The jobs, as the one-shot commands run them. */
  public interface Jobs {
    MaintenanceOutcome expire(String name, Table table, MaintenancePolicy policy, Instant now);

    MaintenanceOutcome cleanMetadata(
        String name, Table table, MaintenancePolicy policy, Instant now);

    MaintenanceOutcome cleanOrphans(
        String name, Table table, MaintenancePolicy policy, Instant now);
  }

  private final Map<String, KeptCatalog> catalogs;
  private final TableRegistry registry;
  private final TableLocks locks;
  private final KeeperStore store;
  private final KeeperEvents events;
  private final Jobs jobs;
  private final Clock clock;
  private final Intervals intervals;
  private final PeriodicLoop loop = new PeriodicLoop("a maintenance round", TICK, this::tick);

  public MaintenanceLoop(
      Map<String, KeptCatalog> catalogs,
      TableRegistry registry,
      TableLocks locks,
      KeeperStore store,
      KeeperEvents events,
      Jobs jobs,
      Clock clock,
      Intervals intervals) {
    this.catalogs = Map.copyOf(requireNonNull(catalogs, "catalogs is null"));
    this.registry = requireNonNull(registry, "registry is null");
    this.locks = requireNonNull(locks, "locks is null");
    this.store = requireNonNull(store, "store is null");
    this.events = requireNonNull(events, "events is null");
    this.jobs = requireNonNull(jobs, "jobs is null");
    this.clock = requireNonNull(clock, "clock is null");
    this.intervals = requireNonNull(intervals, "intervals is null");
  }

  @Override
  public void run() {
    loop.run();
  }

  public void stop() {
    loop.stop();
  }

  /** One round over every table, on the calling thread. */
  public void tick() {
    for (TableRecord record : registry.all()) {
      if (loop.stopping()) {
        return;
      }
      if (record.status() == TableStatus.PAUSED
          || record.status() == TableStatus.RUNNING
          || record.metadataLocation().isEmpty()) {
        continue;
      }
      Instant now = clock.instant();
      boolean expire = due(record.lastExpireAt(), intervals.expire(), now);
      boolean metadata = due(record.lastMetadataCleanAt(), intervals.metadata(), now);
      boolean orphans = due(record.lastOrphanCleanAt(), intervals.orphans(), now);
      if ((expire || metadata || orphans) && locks.tryAcquire(record.key())) {
        try {
          maintain(record.key(), expire, metadata, orphans);
        } finally {
          locks.release(record.key());
        }
      }
    }
  }

  private void maintain(TableKey key, boolean expire, boolean metadata, boolean orphans) {
    Table table;
    MaintenancePolicy policy;
    try {
      table =
          catalogs
              .get(key.catalog())
              .catalog()
              .catalog()
              .loadTable(TableIdentifier.parse(key.table()));
      if ("false".equalsIgnoreCase(table.properties().get(ENABLED))
          || "false".equalsIgnoreCase(table.properties().get(MaintenancePolicy.GC_ENABLED))) {
        markDone(key, expire, metadata, orphans);
        return;
      }
      policy = MaintenancePolicy.fromProperties(key.table(), table.properties());
    } catch (RuntimeException e) {
      failed(key, "maintenance", clock.instant(), e);
      markDone(key, expire, metadata, orphans);
      return;
    }
    if (expire) {
      run(key, "expire_snapshots", () -> jobs.expire(key.table(), table, policy, clock.instant()));
    }
    if (metadata) {
      run(
          key,
          "clean_metadata",
          () -> jobs.cleanMetadata(key.table(), table, policy, clock.instant()));
    }
    if (orphans) {
      run(
          key,
          "clean_orphans",
          () -> jobs.cleanOrphans(key.table(), table, policy, clock.instant()));
    }
    markDone(key, expire, metadata, orphans);
  }

  private void run(TableKey key, String kind, java.util.function.Supplier<MaintenanceOutcome> job) {
    Instant started = clock.instant();
    try {
      MaintenanceOutcome outcome = job.get();
      String result =
          outcome.failedDeletes().isEmpty() && !outcome.preview().blocked()
              ? "succeeded"
              : "partial";
      String detail =
          outcome.preview().snapshotsToExpire().size()
              + " snapshot(s) expired, "
              + outcome.deletedFiles()
              + " file(s) deleted"
              + (outcome.failedDeletes().isEmpty()
                  ? ""
                  : ", " + outcome.failedDeletes().size() + " could not be deleted")
              + (outcome.preview().blocked()
                  ? "; refused: " + outcome.preview().blockers().get(0)
                  : "");
      store.recordRun(
          new RunRecord(
              key,
              kind,
              started,
              clock.instant(),
              result,
              outcome.deletedBytes(),
              0,
              outcome.deletedFiles(),
              0,
              detail));
    } catch (RuntimeException e) {
      failed(key, kind, started, e);
    }
  }

  private void failed(TableKey key, String kind, Instant started, RuntimeException e) {
    String reason = e.getMessage() == null ? e.toString() : e.getMessage();
    LOG.warn("{} of {} failed", kind, key, e);
    store.recordRun(
        new RunRecord(key, kind, started, clock.instant(), "failed", 0, 0, 0, 0, reason));
    events.table(KeeperEvent.MAINTENANCE_FAILED, key, kind + " failed: " + reason);
  }

  private void markDone(TableKey key, boolean expire, boolean metadata, boolean orphans) {
    Instant now = clock.instant();
    registry.update(
        key,
        record ->
            record.withMaintenance(
                expire ? Optional.of(now) : record.lastExpireAt(),
                metadata ? Optional.of(now) : record.lastMetadataCleanAt(),
                orphans ? Optional.of(now) : record.lastOrphanCleanAt()));
  }

  private static boolean due(Optional<Instant> last, Duration interval, Instant now) {
    return last.map(at -> !at.plus(interval).isAfter(now)).orElse(true);
  }
}

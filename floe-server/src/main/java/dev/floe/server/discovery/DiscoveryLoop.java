package dev.floe.server.discovery;

import static java.util.Objects.requireNonNull;

import dev.floe.core.state.TableKey;
import dev.floe.server.KeeperEvents;
import dev.floe.server.PeriodicLoop;
import dev.floe.server.TableRegistry;
import dev.floe.server.optimize.TableEvaluator;
import dev.floe.server.store.KeeperEvent;
import dev.floe.server.store.TableRecord;
import dev.floe.server.store.TableStatus;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds every table of every kept catalog, every {@code keeper.refresh-interval-seconds}: new
 * tables are added ({@code table_discovered}), dropped ones forgotten ({@code table_dropped}), and
 * a table whose metadata location changed since its last evaluation (or whose retry time came) is
 * handed to the {@link TableEvaluator}, which never blocks this loop. A catalog that cannot be
 * listed raises {@code catalog_unreachable} and is tried again next refresh; the others go on.
 *
 * <p>Between refreshes, the tables that changed within the last {@link #HOT_WINDOW} (at most {@link
 * #HOT_TABLES}, the most recently changed) are polled every {@link #HOT_POLL_INTERVAL} for their
 * metadata location alone ({@link TableLister#locations}), so a busy table's commit is seen within
 * the poll interval instead of the refresh interval, while a refresh that finds no change still
 * costs one listing (docs/keeper.md, "Discovery").
 */
public final class DiscoveryLoop implements Runnable {

  private static final Logger LOG = LoggerFactory.getLogger(DiscoveryLoop.class);

  /** How often the recently changed tables are polled between refreshes. */
  public static final Duration HOT_POLL_INTERVAL = Duration.ofMillis(250);

  /** How long after its last seen change a table is polled between refreshes. */
  public static final Duration HOT_WINDOW = Duration.ofMinutes(1);

  /** The most tables one poll looks at: the most recently changed. */
  public static final int HOT_TABLES = 64;

  /** What one refresh found. */
  public record Refresh(int tables, int added, int dropped, int changed, int unreachable) {}

  private final List<KeptCatalog> catalogs;
  private final TableRegistry registry;
  private final TableEvaluator evaluator;
  private final KeeperEvents events;
  private final Clock clock;
  private final Duration interval;
  private final Set<String> unreachable = new HashSet<>();
  private final Map<String, String> unreachableErrors = new ConcurrentHashMap<>();
  private final PeriodicLoop loop;
  private final PeriodicLoop hotLoop;
  private final Map<TableKey, Instant> hot = new ConcurrentHashMap<>();
  private final Map<TableKey, String> polledLocations = new ConcurrentHashMap<>();
  private volatile Instant lastRefresh = Instant.EPOCH;
  private volatile Refresh last = new Refresh(0, 0, 0, 0, 0);

  public DiscoveryLoop(
      List<KeptCatalog> catalogs,
      TableRegistry registry,
      TableEvaluator evaluator,
      KeeperEvents events,
      Clock clock,
      Duration interval) {
    this.catalogs = List.copyOf(requireNonNull(catalogs, "catalogs is null"));
    this.registry = requireNonNull(registry, "registry is null");
    this.evaluator = requireNonNull(evaluator, "evaluator is null");
    this.events = requireNonNull(events, "events is null");
    this.clock = requireNonNull(clock, "clock is null");
    this.interval = requireNonNull(interval, "interval is null");
    this.loop = new PeriodicLoop("a refresh", interval, this::refresh);
    Duration hotPeriod = interval.compareTo(HOT_POLL_INTERVAL) < 0 ? interval : HOT_POLL_INTERVAL;
    this.hotLoop = new PeriodicLoop("a poll of recently changed tables", hotPeriod, this::pollHot);
  }

  @Override
  public void run() {
    loop.run();
  }

  /** The poll of recently changed tables between refreshes; runs until {@link #stop()}. */
  public Runnable hotPoll() {
    return hotLoop;
  }

  public void stop() {
    loop.stop();
    hotLoop.stop();
  }

  /**
   * A table changed by the keeper itself (its optimize run finished): it is polled between
   * refreshes, starting now, so the writes that arrived during the run are planned at once.
   */
  public void changedByKeeper(TableKey key) {
    hot.put(key, clock.instant());
    hotLoop.wakeUp();
  }

  /** The tables polled between refreshes now. */
  public int hotTables() {
    return hot.size();
  }

  /** Starts the next refresh now instead of at the end of the interval. */
  public void refreshNow() {
    loop.wakeUp();
  }

  /** When the last refresh finished: the health check's sign of life. */
  public Instant lastRefresh() {
    return lastRefresh;
  }

  /** The catalogs whose last listing failed, with the error; safe from any thread. */
  public Map<String, String> unreachable() {
    return Map.copyOf(unreachableErrors);
  }

  public Refresh lastResult() {
    return last;
  }

  /** One refresh of every catalog, on the calling thread. */
  public Refresh refresh() {
    Instant now = clock.instant();
    Map<String, List<TableRecord>> known = new HashMap<>();
    for (TableRecord record : registry.all()) {
      known.computeIfAbsent(record.key().catalog(), name -> new ArrayList<>()).add(record);
    }
    int tables = 0;
    int added = 0;
    int dropped = 0;
    int changed = 0;
    int failed = 0;
    for (KeptCatalog catalog : catalogs) {
      List<ListedTable> listed;
      try {
        listed = catalog.lister().list();
      } catch (RuntimeException e) {
        failed++;
        unreachableErrors.put(catalog.name(), String.valueOf(e.getMessage()));
        if (unreachable.add(catalog.name())) {
          events.catalog(
              KeeperEvent.CATALOG_UNREACHABLE,
              catalog.name(),
              "cannot list catalog '"
                  + catalog.name()
                  + "': "
                  + e.getMessage()
                  + "; its tables are kept as they are and it is tried again every "
                  + interval.toSeconds()
                  + " s");
        } else {
          LOG.warn("catalog {} is still unreachable: {}", catalog.name(), e.getMessage());
        }
        continue;
      }
      unreachableErrors.remove(catalog.name());
      if (unreachable.remove(catalog.name())) {
        LOG.info("catalog {} is reachable again", catalog.name());
      }
      Map<String, TableRecord> before = new HashMap<>();
      for (TableRecord record : known.getOrDefault(catalog.name(), List.of())) {
        before.put(record.key().table(), record);
      }
      List<TableRecord> discovered = new ArrayList<>();
      Set<String> seen = new HashSet<>();
      for (ListedTable table : listed) {
        if (!catalog.keeps(table.table()) || !seen.add(table.table())) {
          continue;
        }
        tables++;
        TableRecord record = before.get(table.table());
        TableKey key = new TableKey(catalog.name(), table.table());
        if (record == null) {
          discovered.add(TableRecord.discovered(key));
        } else if (needsEvaluation(record, table.metadataLocation(), now)) {
          changed++;
          if (table.metadataLocation().isPresent()
              && !table.metadataLocation().equals(record.metadataLocation())) {
            hot.put(key, now);
          }
          evaluator.submit(key);
        }
      }
      registry.addAll(discovered);
      for (TableRecord record : discovered) {
        added++;
        events.table(KeeperEvent.TABLE_DISCOVERED, record.key(), "discovered");
        evaluator.submit(record.key());
      }
      for (TableRecord record : before.values()) {
        if (!seen.contains(record.key().table())) {
          dropped++;
          registry.remove(record.key());
          evaluator.forget(record.key());
          hot.remove(record.key());
          polledLocations.remove(record.key());
          events.table(
              KeeperEvent.TABLE_DROPPED,
              record.key(),
              "no longer in the catalog (or excluded); forgotten, its history kept");
        }
      }
    }
    lastRefresh = clock.instant();
    last = new Refresh(tables, added, dropped, changed, failed);
    return last;
  }

  /**
   * One poll of the recently changed tables: each whose metadata location moved since its last
   * evaluation is handed to the evaluator, once per location seen. Tables of catalogs whose lister
   * cannot read locations cheaply wait for the refresh; a failing catalog is left to the refresh to
   * report.
   *
   * @return how many tables were handed to the evaluator
   */
  public int pollHot() {
    Instant now = clock.instant();
    hot.values().removeIf(at -> at.plus(HOT_WINDOW).isBefore(now));
    if (hot.isEmpty()) {
      return 0;
    }
    Map<String, List<String>> byCatalog = new HashMap<>();
    hot.entrySet().stream()
        .sorted(Map.Entry.<TableKey, Instant>comparingByValue().reversed())
        .limit(HOT_TABLES)
        .forEach(
            entry ->
                byCatalog
                    .computeIfAbsent(entry.getKey().catalog(), name -> new ArrayList<>())
                    .add(entry.getKey().table()));
    int submitted = 0;
    for (KeptCatalog catalog : catalogs) {
      List<String> tables = byCatalog.get(catalog.name());
      if (tables == null) {
        continue;
      }
      Optional<List<ListedTable>> locations;
      try {
        locations = catalog.lister().locations(tables);
      } catch (RuntimeException e) {
        LOG.debug("polling recently changed tables of {} failed", catalog.name(), e);
        continue;
      }
      for (ListedTable table : locations.orElse(List.of())) {
        TableKey key = new TableKey(catalog.name(), table.table());
        Optional<TableRecord> record = registry.get(key);
        if (record.isEmpty()
            || table.metadataLocation().isEmpty()
            || table.metadataLocation().equals(record.get().metadataLocation())
            || record.get().status() == TableStatus.RUNNING) {
          continue;
        }
        // The evaluation records the location it saw; until then, hand each new one over once.
        if (!table.metadataLocation().get().equals(polledLocations.get(key))) {
          polledLocations.put(key, table.metadataLocation().get());
          hot.put(key, now);
          evaluator.submit(key);
          submitted++;
        }
      }
    }
    return submitted;
  }

  private static boolean needsEvaluation(
      TableRecord record, Optional<String> listedLocation, Instant now) {
    if (record.status() == TableStatus.RUNNING) {
      return false;
    }
    if (listedLocation.isEmpty() || !listedLocation.equals(record.metadataLocation())) {
      return true;
    }
    // Backoff and failed tables wait for their retry time; idle ones for their next interval
    // trigger (the retry time holds it; none means nothing comes due by time alone).
    boolean waiting =
        record.status() == TableStatus.BACKOFF || record.status() == TableStatus.FAILED;
    if (record.status() == TableStatus.IDLE) {
      return record.retryAt().map(at -> !at.isAfter(now)).orElse(false);
    }
    return waiting && record.retryAt().map(at -> !at.isAfter(now)).orElse(true);
  }
}

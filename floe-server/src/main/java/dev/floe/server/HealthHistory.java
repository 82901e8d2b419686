package dev.floe.server;

import static java.util.Objects.requireNonNull;

import dev.floe.core.state.TableKey;
import dev.floe.server.store.HealthSample;
import dev.floe.server.store.KeeperStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Each table's health over time: one sample per evaluation, kept in the store one per table per
 * {@link #SPACING} (a later evaluation in the same span replaces its sample, so the newest figures
 * are always there and a busy table writes no more than one row per span), for {@code
 * keeper.history-retention}. The newest sample of every table is also kept in memory: the API's
 * sync freshness reads it. Thread-safe.
 */
public final class HealthHistory {

  /** The span of time one stored sample covers. */
  public static final Duration SPACING = Duration.ofMinutes(1);

  /** The most samples one answer holds: longer histories are thinned evenly. */
  public static final int MAX_POINTS = 720;

  /** How often old samples are deleted while the keeper runs (it prunes at start too). */
  static final Duration PRUNE_EVERY = Duration.ofHours(1);

  private final KeeperStore store;
  private final Clock clock;
  private final Duration retention;
  private final Map<TableKey, HealthSample> latest = new ConcurrentHashMap<>();
  private volatile Instant lastPrune;

  public HealthHistory(KeeperStore store, Clock clock, Duration retention) {
    this.store = requireNonNull(store, "store is null");
    this.clock = requireNonNull(clock, "clock is null");
    this.retention = requireNonNull(retention, "retention is null");
    this.lastPrune = clock.instant();
  }

  /** Loads every table's newest sample from the store (once, at start). */
  public void load() {
    for (HealthSample sample : store.latestHealthSamples()) {
      latest.merge(sample.key(), sample, (a, b) -> a.at().isAfter(b.at()) ? a : b);
    }
  }

  /** Records an evaluation's figures; deletes samples past the retention once an hour. */
  public void record(HealthSample sample) {
    requireNonNull(sample, "sample is null");
    store.saveHealthSample(sample, sample.at().toEpochMilli() / SPACING.toMillis());
    latest.put(sample.key(), sample);
    Instant now = clock.instant();
    if (!now.isBefore(lastPrune.plus(PRUNE_EVERY))) {
      lastPrune = now;
      store.prune(now.minus(retention));
    }
  }

  /** The table's newest sample, if it was ever evaluated. */
  public Optional<HealthSample> latest(TableKey key) {
    return Optional.ofNullable(latest.get(key));
  }

  /** Forgets a dropped table's newest sample (the store forgets its rows with the table). */
  public void forget(TableKey key) {
    latest.remove(key);
  }

  /** The table's samples since {@code since}, oldest first, thinned to {@link #MAX_POINTS}. */
  public List<HealthSample> samples(TableKey key, Instant since) {
    return thin(store.healthSamples(key, since), MAX_POINTS);
  }

  /** Every n-th sample so that at most {@code max} remain, always keeping the newest. */
  static List<HealthSample> thin(List<HealthSample> samples, int max) {
    if (samples.size() <= max) {
      return samples;
    }
    List<HealthSample> thinned = new ArrayList<>();
    double step = (double) (samples.size() - 1) / (max - 1);
    for (int i = 0; i < max; i++) {
      thinned.add(samples.get((int) Math.round(i * step)));
    }
    return thinned;
  }
}

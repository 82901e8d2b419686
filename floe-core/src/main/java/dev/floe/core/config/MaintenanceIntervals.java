package dev.floe.core.config;

import static java.util.Objects.requireNonNull;

import java.time.Duration;

/**
 * The {@code keeper.maintenance} section: how often the keeper plans each kind of maintenance for a
 * table.
 *
 * @param expire between snapshot expiries
 * @param metadata between metadata cleanups (old metadata files, dangling deletes)
 * @param orphans between orphan-file removals
 */
public record MaintenanceIntervals(Duration expire, Duration metadata, Duration orphans) {

  public static final Duration DEFAULT_EXPIRE = Duration.ofHours(1);
  public static final Duration DEFAULT_METADATA = Duration.ofHours(1);
  public static final Duration DEFAULT_ORPHANS = Duration.ofDays(1);

  public MaintenanceIntervals {
    requireNonNull(expire, "expire is null");
    requireNonNull(metadata, "metadata is null");
    requireNonNull(orphans, "orphans is null");
  }

  public static MaintenanceIntervals defaults() {
    return new MaintenanceIntervals(DEFAULT_EXPIRE, DEFAULT_METADATA, DEFAULT_ORPHANS);
  }
}

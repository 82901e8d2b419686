package dev.floe.core.config;

import static java.util.Objects.requireNonNull;

import java.time.Duration;

/** How often the keeper runs each maintenance job on a table. */
public record MaintenanceIntervals(Duration expire, Duration metadata, Duration orphans) {
  public MaintenanceIntervals {
    requireNonNull(expire, "expire is null");
    requireNonNull(metadata, "metadata is null");
    requireNonNull(orphans, "orphans is null");
  }
}

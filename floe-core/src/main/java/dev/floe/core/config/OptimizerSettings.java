package dev.floe.core.config;

import static java.util.Objects.requireNonNull;

import java.time.Duration;

/**
 * The keeper's optimizer workers.
 *
 * @param threads worker threads inside floe serve
 * @param tableShare the share of the worker slots one table may hold while others wait, in (0, 1]
 * @param leaseTimeout how long a task's lease lasts without a heartbeat
 */
public record OptimizerSettings(int threads, double tableShare, Duration leaseTimeout) {

  public OptimizerSettings {
    requireNonNull(leaseTimeout, "leaseTimeout is null");
  }

  /** Half the machine's cores (at least 1), a share of 0.5, leases of 30 s. */
  public static OptimizerSettings defaults() {
    return new OptimizerSettings(
        Math.max(1, Runtime.getRuntime().availableProcessors() / 2), 0.5, Duration.ofSeconds(30));
  }
}

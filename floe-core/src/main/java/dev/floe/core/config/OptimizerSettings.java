package dev.floe.core.config;

import static java.util.Objects.requireNonNull;

import java.time.Duration;

/**
 * The {@code keeper.optimizer} section: how much of the machine the keeper's optimizer uses.
 *
 * @param threads optimize tasks run at once
 * @param tableShare the largest share of {@code threads} one table may hold, above 0 and at most 1
 * @param leaseTimeout how long a task's lease lasts without a heartbeat before another optimizer
 *     may take the task over
 */
public record OptimizerSettings(int threads, double tableShare, Duration leaseTimeout) {

  public static final double DEFAULT_TABLE_SHARE = 0.5;
  public static final Duration DEFAULT_LEASE_TIMEOUT = Duration.ofSeconds(30);

  public OptimizerSettings {
    if (threads < 1) {
      throw new IllegalArgumentException("threads is " + threads + ", not at least 1");
    }
    if (!(tableShare > 0 && tableShare <= 1)) {
      throw new IllegalArgumentException("tableShare is " + tableShare + ", not in (0, 1]");
    }
    requireNonNull(leaseTimeout, "leaseTimeout is null");
  }

  /** The defaults: {@link #defaultThreads()} threads, half of them for one table at most. */
  public static OptimizerSettings defaults() {
    return new OptimizerSettings(defaultThreads(), DEFAULT_TABLE_SHARE, DEFAULT_LEASE_TIMEOUT);
  }

  /** Half the cores of this machine, at least 1: the rest stay for the service and queries. */
  public static int defaultThreads() {
    return Math.max(1, Runtime.getRuntime().availableProcessors() / 2);
  }
}

package dev.floe.core.config;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The {@code keeper.optimizer} section: which workers run the keeper's optimize tasks, and how much
 * of them one table may hold.
 *
 * @param threads optimize tasks run at once inside {@code floe serve} when no {@code groups} are
 *     listed (the one group is then a threads group named {@link #DEFAULT_GROUP_NAME} of this size)
 * @param tableShare the largest share of {@code threads} one table may hold, above 0 and at most 1
 * @param leaseTimeout how long a task's lease lasts without a heartbeat before another optimizer
 *     may take the task over
 * @param groups the worker groups as listed, names unique ignoring case, at most one of kind
 *     threads (they would share the service's JVM); empty = the one {@code default} group
 * @param defaultGroup the group of tables without {@link KeeperTableProperties#GROUP}, as written:
 *     it names one of {@link #effectiveGroups()} ignoring case; empty = the first of them
 * @param capacityGrace how long a group may stay below its target before the keeper raises {@code
 *     capacity_below_target}
 */
public record OptimizerSettings(
    int threads,
    double tableShare,
    Duration leaseTimeout,
    List<WorkerGroupSettings> groups,
    Optional<String> defaultGroup,
    Duration capacityGrace) {

  public static final double DEFAULT_TABLE_SHARE = 0.5;
  public static final Duration DEFAULT_LEASE_TIMEOUT = Duration.ofSeconds(30);

  /** The name of the one group when none are listed. */
  public static final String DEFAULT_GROUP_NAME = "default";

  /**
   * Long enough to start a worker again after it died (a process in seconds; a Flink job
   * resubmitted and given its slots, usually within a minute) plus a retry or two with backoff, so
   * a routine restart raises nothing; short enough that a group that cannot start is told within
   * minutes.
   */
  public static final Duration DEFAULT_CAPACITY_GRACE = Duration.ofMinutes(2);

  public OptimizerSettings {
    if (threads < 1) {
      throw new IllegalArgumentException("threads is " + threads + ", not at least 1");
    }
    if (!(tableShare > 0 && tableShare <= 1)) {
      throw new IllegalArgumentException("tableShare is " + tableShare + ", not in (0, 1]");
    }
    requireNonNull(leaseTimeout, "leaseTimeout is null");
    groups = List.copyOf(requireNonNull(groups, "groups is null"));
    requireNonNull(defaultGroup, "defaultGroup is null");
    requireNonNull(capacityGrace, "capacityGrace is null");
    if (capacityGrace.isNegative() || capacityGrace.isZero()) {
      throw new IllegalArgumentException("capacityGrace is " + capacityGrace + ", not above zero");
    }
    Map<String, WorkerGroupSettings> byName = new HashMap<>();
    boolean threadsGroup = false;
    for (WorkerGroupSettings group : groups) {
      if (byName.put(group.name().toLowerCase(Locale.ROOT), group) != null) {
        throw new IllegalArgumentException("two groups are named " + group.name());
      }
      if (group.kind() == WorkerGroupKind.THREADS && threadsGroup) {
        throw new IllegalArgumentException("more than one group is of kind threads");
      }
      threadsGroup |= group.kind() == WorkerGroupKind.THREADS;
    }
    List<WorkerGroupSettings> effective = effective(groups, threads);
    defaultGroup.ifPresent(
        name -> {
          if (find(effective, name).isEmpty()) {
            throw new IllegalArgumentException("defaultGroup " + name + " is not a group");
          }
        });
  }

  /**
   * No groups listed: {@code threads} threads inside {@code floe serve}, the default capacity
   * grace.
   */
  public OptimizerSettings(int threads, double tableShare, Duration leaseTimeout) {
    this(threads, tableShare, leaseTimeout, List.of(), Optional.empty(), DEFAULT_CAPACITY_GRACE);
  }

  /** The defaults: {@link #defaultThreads()} threads, half of them for one table at most. */
  public static OptimizerSettings defaults() {
    return new OptimizerSettings(defaultThreads(), DEFAULT_TABLE_SHARE, DEFAULT_LEASE_TIMEOUT);
  }

  /** Half the cores of this machine, at least 1: the rest stay for the service and queries. */
  public static int defaultThreads() {
    return Math.max(1, Runtime.getRuntime().availableProcessors() / 2);
  }

  /**
   * The groups in effect: {@link #groups()}, or when none are listed one threads group named {@link
   * #DEFAULT_GROUP_NAME} of {@link #threads()} threads.
   */
  public List<WorkerGroupSettings> effectiveGroups() {
    return effective(groups, threads);
  }

  /**
   * The name, as listed, of the group of tables without {@link KeeperTableProperties#GROUP}: {@link
   * #defaultGroup()}, else the first of {@link #effectiveGroups()}.
   */
  public String defaultGroupName() {
    List<WorkerGroupSettings> effective = effectiveGroups();
    return defaultGroup.flatMap(name -> find(effective, name)).orElse(effective.get(0)).name();
  }

  /** The group in effect of that name, compared ignoring case. */
  public Optional<WorkerGroupSettings> group(String name) {
    requireNonNull(name, "name is null");
    return find(effectiveGroups(), name);
  }

  private static List<WorkerGroupSettings> effective(
      List<WorkerGroupSettings> groups, int threads) {
    return groups.isEmpty()
        ? List.of(WorkerGroupSettings.threads(DEFAULT_GROUP_NAME, threads))
        : groups;
  }

  private static Optional<WorkerGroupSettings> find(List<WorkerGroupSettings> groups, String name) {
    return groups.stream().filter(group -> group.name().equalsIgnoreCase(name)).findFirst();
  }
}

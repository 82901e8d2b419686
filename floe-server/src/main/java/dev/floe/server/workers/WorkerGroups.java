package dev.floe.server.workers;

import static java.util.Objects.requireNonNull;

import dev.floe.core.config.KeeperTableProperties;
import dev.floe.core.config.OptimizerSettings;
import dev.floe.core.config.WorkerGroupKind;
import dev.floe.core.config.WorkerGroupSettings;
import dev.floe.core.error.FloeException;
import java.net.URI;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The worker groups of the service ({@code keeper.optimizer.groups}): each with a kind, a target
 * and its task slots, and which group a table belongs to ({@code floe.keeper.group}, the default
 * group otherwise).
 */
public final class WorkerGroups {

  /**
   * One group.
   *
   * @param kind {@code threads}, {@code processes}, {@code flink} or {@code external}
   * @param target the workers (for {@code threads}: the threads) the group should have
   * @param slots tasks the group runs at once at its target (target x threads per worker)
   * @param threadsPerWorker tasks each worker the keeper starts runs at once
   * @param heapBytes the heap of each process, for {@code processes}
   * @param java the Java executable of each process, for {@code processes}; empty for the keeper's
   * @param flinkAddress the REST endpoint of the Flink cluster, for {@code flink}
   */
  public record Group(
      String name,
      String kind,
      int target,
      int slots,
      int threadsPerWorker,
      Optional<Long> heapBytes,
      Optional<String> java,
      Optional<URI> flinkAddress) {
    public Group {
      requireNonNull(name, "name is null");
      requireNonNull(kind, "kind is null");
      requireNonNull(heapBytes, "heapBytes is null");
      requireNonNull(java, "java is null");
      requireNonNull(flinkAddress, "flinkAddress is null");
    }

    public boolean isProcesses() {
      return kind.equals(WorkerGroupKind.PROCESSES.configName());
    }

    public boolean isFlink() {
      return kind.equals(WorkerGroupKind.FLINK.configName());
    }

    public boolean isThreads() {
      return kind.equals(WorkerGroupKind.THREADS.configName());
    }
  }

  private final List<Group> groups;
  private final String defaultGroup;

  public WorkerGroups(List<Group> groups, String defaultGroup) {
    this.groups = List.copyOf(requireNonNull(groups, "groups is null"));
    requireNonNull(defaultGroup, "defaultGroup is null");
    this.defaultGroup =
        find(defaultGroup)
            .orElseThrow(
                () -> new IllegalArgumentException("default group " + defaultGroup + " is unknown"))
            .name();
  }

  /** The groups in effect for these settings (a {@code threads} group when none is listed). */
  public static WorkerGroups of(OptimizerSettings settings) {
    List<Group> groups =
        settings.effectiveGroups().stream()
            .map(
                (WorkerGroupSettings group) ->
                    new Group(
                        group.name(),
                        group.kind().configName(),
                        group.target(),
                        group.target() * group.threadsPerWorker(),
                        group.threadsPerWorker(),
                        group.heapBytes(),
                        group.java(),
                        group.flinkAddress()))
            .toList();
    return new WorkerGroups(groups, settings.defaultGroupName());
  }

  public List<Group> all() {
    return groups;
  }

  public String defaultGroup() {
    return defaultGroup;
  }

  /** The group of that name, ignoring case. */
  public Optional<Group> find(String name) {
    String wanted = name.toLowerCase(Locale.ROOT);
    return groups.stream()
        .filter(group -> group.name().toLowerCase(Locale.ROOT).equals(wanted))
        .findFirst();
  }

  /** The {@code threads} group, if there is one. */
  public Optional<Group> threads() {
    return groups.stream().filter(Group::isThreads).findFirst();
  }

  /** Task slots by group name. */
  public Map<String, Integer> slots() {
    Map<String, Integer> slots = new java.util.LinkedHashMap<>();
    groups.forEach(group -> slots.put(group.name(), Math.max(1, group.slots())));
    return slots;
  }

  /**
   * The group a table's tasks go to: its {@code floe.keeper.group}, or the default group.
   *
   * @throws FloeException BAD_INPUT naming the table, the property and the groups when it names no
   *     group
   */
  public String groupOf(String table, Map<String, String> properties) {
    String named = properties.get(KeeperTableProperties.GROUP);
    if (named == null || named.isBlank()) {
      return defaultGroup;
    }
    return find(named.trim())
        .map(Group::name)
        .orElseThrow(
            () ->
                FloeException.badInput(
                    "Table "
                        + table
                        + " has "
                        + KeeperTableProperties.GROUP
                        + "="
                        + named
                        + ", but the keeper has no such worker group (it has "
                        + String.join(", ", groups.stream().map(Group::name).toList())
                        + "). Set it to one of them, or remove it for the default group ("
                        + defaultGroup
                        + ")."));
  }
}

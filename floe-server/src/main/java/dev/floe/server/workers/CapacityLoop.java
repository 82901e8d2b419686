package dev.floe.server.workers;

import static java.util.Objects.requireNonNull;

import dev.floe.server.KeeperEvents;
import dev.floe.server.PeriodicLoop;
import dev.floe.server.store.KeeperEvent;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * Keeps the worker capacity known: every {@link #PERIOD} it forgets workers not heard of within the
 * lease timeout (their tasks go back to the queue, {@code worker_lost}), lets the {@link
 * ProcessSupervisor} replace ended processes and start missing ones (the {@link
 * FlinkGroupSupervisor}s look after their jobs on their own threads), and compares each group's
 * live workers with its target. A group below target for longer than {@code
 * keeper.optimizer.capacity-grace} raises {@code capacity_below_target} naming the group, target
 * and live count, once, and {@code capacity_restored} when it is back. It never lowers a target.
 */
public final class CapacityLoop implements Runnable {

  /** How often the groups are checked; the issue asks for at least every 10 s. */
  public static final Duration PERIOD = Duration.ofSeconds(5);

  private final WorkerProtocol protocol;
  private final WorkerRegistry registry;
  private final WorkerGroups groups;
  private final ProcessSupervisor processes;
  private final Function<String, Optional<String>> startErrors;
  private final KeeperEvents events;
  private final Clock clock;
  private final Duration grace;
  private final Map<String, Instant> belowSince = new HashMap<>();
  private final Set<String> reported = new HashSet<>();
  private final PeriodicLoop loop = new PeriodicLoop("the capacity check", PERIOD, this::tick);
  private volatile Instant lastTick = Instant.EPOCH;

  public CapacityLoop(
      WorkerProtocol protocol,
      WorkerRegistry registry,
      WorkerGroups groups,
      ProcessSupervisor processes,
      Function<String, Optional<String>> startErrors,
      KeeperEvents events,
      Clock clock,
      Duration grace) {
    this.protocol = requireNonNull(protocol, "protocol is null");
    this.registry = requireNonNull(registry, "registry is null");
    this.groups = requireNonNull(groups, "groups is null");
    this.processes = requireNonNull(processes, "processes is null");
    this.startErrors = requireNonNull(startErrors, "startErrors is null");
    this.events = requireNonNull(events, "events is null");
    this.clock = requireNonNull(clock, "clock is null");
    this.grace = requireNonNull(grace, "grace is null");
  }

  @Override
  public void run() {
    loop.run();
  }

  public void stop() {
    loop.stop();
  }

  /** When the loop last ran: the health check's sign of life. */
  public Instant lastTick() {
    return lastTick;
  }

  /** The groups below their target for longer than the grace: those capacity_below_target named. */
  public synchronized Set<String> belowTarget() {
    return Set.copyOf(reported);
  }

  /** One check of every group. */
  public synchronized void tick() {
    Instant now = clock.instant();
    lastTick = now;
    protocol.expire();
    processes.tick();
    for (WorkerGroups.Group group : groups.all()) {
      int live = registry.live(group.name());
      if (live >= group.target()) {
        belowSince.remove(group.name());
        if (reported.remove(group.name())) {
          events.service(
              KeeperEvent.CAPACITY_RESTORED,
              "worker group "
                  + group.name()
                  + " is back at its target: "
                  + live
                  + " of "
                  + group.target()
                  + " workers live");
        }
        continue;
      }
      Instant since = belowSince.computeIfAbsent(group.name(), name -> now);
      if (!reported.contains(group.name()) && !now.isBefore(since.plus(grace))) {
        reported.add(group.name());
        events.service(
            KeeperEvent.CAPACITY_BELOW_TARGET,
            "worker group "
                + group.name()
                + " ("
                + group.kind()
                + ") has "
                + live
                + " of its target "
                + group.target()
                + " workers live since "
                + since
                + startErrors.apply(group.name()).map(error -> "; " + error).orElse("")
                + "; the keeper keeps the target and keeps trying");
      }
    }
  }
}

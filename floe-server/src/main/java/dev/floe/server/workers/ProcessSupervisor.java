package dev.floe.server.workers;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps each {@code processes} group at its target of worker processes on this machine: on every
 * {@link #tick} it notices processes that ended (a registered one is forgotten at once, its tasks
 * go back to the queue, {@code worker_lost}), kills one that stays unregistered for {@link
 * #REGISTER_TIMEOUT}, and starts what is missing. Starts that fail (the process cannot be run, or
 * ends before it registers) back off exponentially per group, from {@link #FIRST_BACKOFF} to {@link
 * #MAX_BACKOFF}; the target is never lowered. The capacity check calls {@link #tick} and tells when
 * a group stays below target.
 *
 * <p>Processes start only once {@link #serveAt} gave the address they reach the keeper at.
 */
public final class ProcessSupervisor {

  private static final Logger LOG = LoggerFactory.getLogger(ProcessSupervisor.class);

  /** The wait after the first failed start; it doubles with each failure in a row. */
  public static final Duration FIRST_BACKOFF = Duration.ofSeconds(5);

  /** The longest wait between two starts of a group that keep failing. */
  public static final Duration MAX_BACKOFF = Duration.ofMinutes(5);

  /**
   * How long a process may run without being registered: a worker registers within seconds of its
   * start, and registers again within seconds when the keeper forgot it.
   */
  public static final Duration REGISTER_TIMEOUT = Duration.ofSeconds(60);

  private final WorkerLauncher launcher;
  private final WorkerRegistry registry;
  private final WorkerProtocol protocol;
  private final Clock clock;
  private final Map<String, GroupState> groups = new LinkedHashMap<>();
  private URI server;
  private boolean stopped;

  public ProcessSupervisor(
      WorkerGroups groups,
      WorkerLauncher launcher,
      WorkerRegistry registry,
      WorkerProtocol protocol,
      Clock clock) {
    requireNonNull(groups, "groups is null");
    this.launcher = requireNonNull(launcher, "launcher is null");
    this.registry = requireNonNull(registry, "registry is null");
    this.protocol = requireNonNull(protocol, "protocol is null");
    this.clock = requireNonNull(clock, "clock is null");
    for (WorkerGroups.Group group : groups.all()) {
      if (group.isProcesses()) {
        this.groups.put(group.name(), new GroupState(group));
      }
    }
  }

  /** Where the processes reach the keeper; nothing starts before this is known. */
  public synchronized void serveAt(URI server) {
    this.server = requireNonNull(server, "server is null");
  }

  /** One look at every {@code processes} group. */
  public synchronized void tick() {
    if (server == null || stopped) {
      return;
    }
    Instant now = clock.instant();
    for (GroupState state : groups.values()) {
      reap(state, now);
      startMissing(state, now);
    }
  }

  private void reap(GroupState state, Instant now) {
    for (Iterator<Child> children = state.children.iterator(); children.hasNext(); ) {
      Child child = children.next();
      Optional<WorkerRegistry.Worker> worker = registered(state.group.name(), child.process.pid());
      if (!child.process.isAlive()) {
        children.remove();
        String exit =
            "process "
                + child.process.pid()
                + " exited"
                + child.process.exitCode().stream()
                    .mapToObj(code -> " with code " + code)
                    .findAny()
                    .orElse("");
        if (worker.isPresent()) {
          protocol.lost(worker.get().id(), exit);
        } else if (child.registeredAt == null) {
          failed(state, now, exit + " before it registered; " + child.process.outputTail());
        } else {
          LOG.info("worker process {} of group {} ended", exit, state.group.name());
        }
        continue;
      }
      if (worker.isPresent()) {
        child.registeredAt = now;
        state.failures = 0;
        state.lastError = Optional.empty();
      } else {
        Instant since = child.registeredAt == null ? child.startedAt : child.registeredAt;
        if (!now.isBefore(since.plus(REGISTER_TIMEOUT))) {
          children.remove();
          child.process.kill();
          String why =
              "process "
                  + child.process.pid()
                  + " was not registered for "
                  + REGISTER_TIMEOUT.toSeconds()
                  + " s and was killed; "
                  + child.process.outputTail();
          if (child.registeredAt == null) {
            failed(state, now, why);
          } else {
            LOG.warn("worker group {}: {}", state.group.name(), why);
          }
        }
      }
    }
  }

  private void startMissing(GroupState state, Instant now) {
    WorkerGroups.Group group = state.group;
    while (state.children.size() < group.target() && !now.isBefore(state.nextStart)) {
      int number = ++state.starts;
      try {
        WorkerLauncher.Launched process = launcher.launch(group, server, number);
        state.children.add(new Child(process, now));
        LOG.info(
            "started worker process {} of group {} ({} of target {})",
            process.pid(),
            group.name(),
            state.children.size(),
            group.target());
      } catch (IOException | RuntimeException e) {
        failed(state, now, "cannot start a worker process: " + e.getMessage());
        return;
      }
    }
  }

  private void failed(GroupState state, Instant now, String why) {
    state.failures++;
    Duration wait = FIRST_BACKOFF.multipliedBy(1L << Math.min(state.failures - 1, 16));
    if (wait.compareTo(MAX_BACKOFF) > 0) {
      wait = MAX_BACKOFF;
    }
    state.nextStart = now.plus(wait);
    state.lastError = Optional.of(why);
    LOG.warn(
        "worker group {}: {} ({} failed start(s) in a row; next try in {} s)",
        state.group.name(),
        why,
        state.failures,
        wait.toSeconds());
  }

  private Optional<WorkerRegistry.Worker> registered(String group, long pid) {
    return registry.all().stream()
        .filter(worker -> worker.group().equals(group) && worker.pid().equals(Optional.of(pid)))
        .findFirst();
  }

  /** Why the group's last start failed, while its starts keep failing. */
  public synchronized Optional<String> lastStartError(String group) {
    GroupState state = groups.get(group);
    return state == null ? Optional.empty() : state.lastError;
  }

  /** The group's processes that run and have not registered yet. */
  public synchronized int starting(String group) {
    GroupState state = groups.get(group);
    if (state == null) {
      return 0;
    }
    return (int)
        state.children.stream()
            .filter(child -> registered(group, child.process.pid()).isEmpty())
            .count();
  }

  /** The pids of the group's running processes, for tests and the API. */
  public synchronized List<Long> pids(String group) {
    GroupState state = groups.get(group);
    return state == null
        ? List.of()
        : state.children.stream().map(child -> child.process.pid()).toList();
  }

  /**
   * Stops every process: each is asked to stop (it hands its tasks back) and killed when it has not
   * ended within {@code grace}. Nothing starts afterwards.
   */
  public void stop(Duration grace) {
    List<Child> all = new ArrayList<>();
    synchronized (this) {
      stopped = true;
      groups.values().forEach(state -> all.addAll(state.children));
      groups.values().forEach(state -> state.children.clear());
    }
    all.forEach(child -> child.process.stop());
    Instant deadline = Instant.now().plus(grace);
    for (Child child : all) {
      try {
        Duration left = Duration.between(Instant.now(), deadline);
        if (left.isNegative() || !child.process.awaitExit(left)) {
          LOG.warn("worker process {} did not stop within {}; killed", child.process.pid(), grace);
          child.process.kill();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        child.process.kill();
      }
    }
  }

  private static final class GroupState {
    private final WorkerGroups.Group group;
    private final List<Child> children = new ArrayList<>();
    private int failures;
    private int starts;
    private Instant nextStart = Instant.EPOCH;
    private Optional<String> lastError = Optional.empty();

    GroupState(WorkerGroups.Group group) {
      this.group = group;
    }
  }

  private static final class Child {
    private final WorkerLauncher.Launched process;
    private final Instant startedAt;
    private Instant registeredAt;

    Child(WorkerLauncher.Launched process, Instant startedAt) {
      this.process = process;
      this.startedAt = startedAt;
    }
  }
}

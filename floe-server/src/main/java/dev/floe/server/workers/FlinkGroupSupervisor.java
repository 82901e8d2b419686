package dev.floe.server.workers;

import static java.util.Objects.requireNonNull;

import dev.floe.server.PeriodicLoop;
import java.io.IOException;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps one {@code flink} group's worker job running on its Flink cluster: every {@link #PERIOD},
 * on its own thread (the cluster may be slow or away; the keeper's loops never wait for it), it
 * lists the cluster's jobs of the group by name, keeps one running job (the one it submitted, or
 * after a keeper restart the one it finds there: adopted, not submitted twice), cancels any other
 * (a duplicate, or one of an older target), and submits the job when none runs. A job that ended
 * ({@code FAILED}, {@code CANCELED}, gone from the cluster) has its workers forgotten at once
 * ({@code worker_lost}, their tasks back to the queue) and is resubmitted after a backoff, from
 * {@link #FIRST_BACKOFF} doubling to {@link #MAX_BACKOFF}, as are failed listings and submissions;
 * the backoff resets once the job runs and its workers registered. The target is never lowered.
 * {@link #stop} cancels the job. The capacity check reads {@link #lastStartError}.
 *
 * <p>The job's name says the group and the keeper it serves, so two keepers can share a cluster.
 * Thread-safe.
 */
public final class FlinkGroupSupervisor implements Runnable {

  private static final Logger LOG = LoggerFactory.getLogger(FlinkGroupSupervisor.class);

  /** How often the cluster is looked at. */
  public static final Duration PERIOD = Duration.ofSeconds(5);

  /** The wait after the first failure; it doubles with each failure in a row. */
  public static final Duration FIRST_BACKOFF = Duration.ofSeconds(5);

  /** The longest wait between two tries of a group that keeps failing. */
  public static final Duration MAX_BACKOFF = Duration.ofMinutes(5);

  /**
   * How long the job may run without any of its workers registering before the group says so: a
   * worker registers within seconds of its subtask's start, unless the TaskManagers cannot reach
   * the keeper.
   */
  public static final Duration REGISTER_TIMEOUT = Duration.ofSeconds(60);

  private static final Duration STOP_POLL = Duration.ofMillis(200);

  private final WorkerGroups.Group group;
  private final URI cluster;
  private final FlinkJobLauncher launcher;
  private final WorkerRegistry registry;
  private final WorkerProtocol protocol;
  private final Clock clock;
  private final PeriodicLoop loop;
  private URI server; // guarded by this
  private Optional<String> jobId = Optional.empty(); // guarded by this
  private int failures; // guarded by this
  private Instant nextTry = Instant.EPOCH; // guarded by this
  private Optional<Instant> unregisteredSince = Optional.empty(); // guarded by this
  private volatile boolean stopped;
  private volatile Optional<FlinkJobLauncher.Job> job = Optional.empty();
  private volatile Optional<String> lastError = Optional.empty();

  public FlinkGroupSupervisor(
      WorkerGroups.Group group,
      FlinkJobLauncher launcher,
      WorkerRegistry registry,
      WorkerProtocol protocol,
      Clock clock) {
    this.group = requireNonNull(group, "group is null");
    this.cluster =
        group
            .flinkAddress()
            .orElseThrow(
                () -> new IllegalArgumentException("group " + group.name() + " is not flink"));
    this.launcher = requireNonNull(launcher, "launcher is null");
    this.registry = requireNonNull(registry, "registry is null");
    this.protocol = requireNonNull(protocol, "protocol is null");
    this.clock = requireNonNull(clock, "clock is null");
    this.loop =
        new PeriodicLoop("the Flink job check of worker group " + group.name(), PERIOD, this::tick);
  }

  @Override
  public void run() {
    loop.run();
  }

  public WorkerGroups.Group group() {
    return group;
  }

  /** Where the job's workers reach the keeper; nothing is submitted before this is known. */
  public synchronized void serveAt(URI server) {
    this.server = requireNonNull(server, "server is null");
    loop.wakeUp();
  }

  /** The start of the names of this group's jobs for this keeper. */
  public synchronized String namePrefix() {
    return "Floe optimizer workers of group " + group.name() + " for " + server;
  }

  /** The name of the job at the group's current target. */
  public synchronized String jobName() {
    return namePrefix()
        + " (parallelism "
        + group.target()
        + ", "
        + group.threadsPerWorker()
        + " thread(s) each)";
  }

  /** The group's job as last seen: its id and state. */
  public Optional<FlinkJobLauncher.Job> job() {
    return job;
  }

  /** Why the last listing, submission or job failed, while the group keeps failing. */
  public Optional<String> lastStartError() {
    return lastError;
  }

  /** One look at the cluster. */
  public synchronized void tick() {
    if (server == null || stopped) {
      return;
    }
    Instant now = clock.instant();
    if (now.isBefore(nextTry)) {
      return;
    }
    String prefix = namePrefix();
    String name = jobName();
    List<FlinkJobLauncher.Job> jobs;
    try {
      jobs = launcher.jobs(cluster, prefix);
    } catch (IOException | RuntimeException e) {
      failed(now, "cannot list the jobs of the Flink cluster at " + cluster + ": " + message(e));
      return;
    }
    List<FlinkJobLauncher.Job> running = jobs.stream().filter(each -> !each.ended()).toList();
    Optional<FlinkJobLauncher.Job> keep =
        running.stream()
            .filter(each -> each.name().equals(name) && jobId.equals(Optional.of(each.id())))
            .findFirst()
            .or(() -> running.stream().filter(each -> each.name().equals(name)).findFirst());
    for (FlinkJobLauncher.Job other : running) {
      if (keep.map(kept -> !kept.id().equals(other.id())).orElse(true)) {
        cancel(other, "it duplicates the group's job or runs an older target");
      }
    }
    if (keep.isPresent()) {
      FlinkJobLauncher.Job kept = keep.get();
      if (!jobId.equals(Optional.of(kept.id()))) {
        LOG.info(
            "worker group {}: adopted Flink job {} ({}) found on {}",
            group.name(),
            kept.id(),
            kept.state(),
            cluster);
      }
      jobId = Optional.of(kept.id());
      job = keep;
      boolean runs = kept.state().equals("RUNNING");
      if (runs && registry.live(group.name()) > 0) {
        failures = 0;
        lastError = Optional.empty();
        unregisteredSince = Optional.empty();
      } else if (runs) {
        Instant since = unregisteredSince.orElse(now);
        unregisteredSince = Optional.of(since);
        if (!now.isBefore(since.plus(REGISTER_TIMEOUT))) {
          lastError =
              Optional.of(
                  "Flink job "
                      + kept.id()
                      + " runs, but none of its workers registered within "
                      + REGISTER_TIMEOUT.toSeconds()
                      + " s: can the TaskManagers reach the keeper at "
                      + server
                      + "? (set keeper.listen to an address they reach; the job's logs are on"
                      + " the cluster at "
                      + cluster
                      + ")");
        }
      }
      return;
    }
    if (jobId.isPresent()) {
      String id = jobId.get();
      String state =
          jobs.stream()
              .filter(each -> each.id().equals(id))
              .map(FlinkJobLauncher.Job::state)
              .findFirst()
              .orElse("GONE");
      job = Optional.of(new FlinkJobLauncher.Job(id, name, state));
      jobId = Optional.empty();
      unregisteredSince = Optional.empty();
      String why =
          state.equals("GONE")
              ? "Flink job " + id + " is gone from the cluster at " + cluster
              : "Flink job " + id + " ended " + state;
      forgetWorkers(why);
      failed(now, why);
      return;
    }
    submit(now, name);
  }

  private void submit(Instant now, String name) {
    FlinkJobLauncher.WorkerJob spec =
        new FlinkJobLauncher.WorkerJob(
            name, group.name(), group.target(), group.threadsPerWorker(), server);
    try {
      String id = launcher.submit(cluster, spec);
      jobId = Optional.of(id);
      job = Optional.of(new FlinkJobLauncher.Job(id, name, "CREATED"));
      unregisteredSince = Optional.of(now);
      LOG.info(
          "worker group {}: submitted Flink job {} of parallelism {} to {}",
          group.name(),
          id,
          group.target(),
          cluster);
    } catch (IOException | RuntimeException e) {
      failed(
          now,
          "cannot submit the worker job to the Flink cluster at " + cluster + ": " + message(e));
    }
  }

  private void cancel(FlinkJobLauncher.Job other, String why) {
    try {
      launcher.cancel(cluster, other.id());
      LOG.warn(
          "worker group {}: cancelled Flink job {} ({}): {}",
          group.name(),
          other.id(),
          other.name(),
          why);
    } catch (IOException | RuntimeException e) {
      LOG.warn(
          "worker group {}: cannot cancel Flink job {} ({}): {}",
          group.name(),
          other.id(),
          why,
          message(e));
    }
  }

  /** The group's workers ran in the ended job: their tasks go back to the queue now. */
  private void forgetWorkers(String why) {
    for (WorkerRegistry.Worker worker : registry.all()) {
      if (worker.group().equals(group.name())) {
        protocol.lost(worker.id(), "ran in " + why);
      }
    }
  }

  private void failed(Instant now, String why) {
    failures++;
    Duration wait = FIRST_BACKOFF.multipliedBy(1L << Math.min(failures - 1, 16));
    if (wait.compareTo(MAX_BACKOFF) > 0) {
      wait = MAX_BACKOFF;
    }
    nextTry = now.plus(wait);
    lastError = Optional.of(why);
    LOG.warn(
        "worker group {}: {} ({} failure(s) in a row; next try in {} s)",
        group.name(),
        why,
        failures,
        wait.toSeconds());
  }

  /**
   * Stops looking after the job and cancels it, waiting up to {@code grace} for it to end (its
   * workers hand their tasks back while cancelled, so call it while the HTTP edge still serves).
   */
  public void stop(Duration grace) {
    stopped = true;
    loop.stop();
    Optional<String> id;
    synchronized (this) {
      id = jobId;
      jobId = Optional.empty();
    }
    if (id.isEmpty()) {
      return;
    }
    try {
      launcher.cancel(cluster, id.get());
      LOG.info("worker group {}: cancelled Flink job {}", group.name(), id.get());
      long deadline = System.nanoTime() + grace.toNanos();
      while (System.nanoTime() < deadline) {
        String prefix = namePrefix();
        boolean ended =
            launcher.jobs(cluster, prefix).stream()
                .filter(each -> each.id().equals(id.get()))
                .allMatch(FlinkJobLauncher.Job::ended);
        if (ended) {
          return;
        }
        Thread.sleep(STOP_POLL.toMillis()); // waits for Flink to end the job; no event to wait on
      }
      LOG.warn(
          "worker group {}: Flink job {} did not end within {}", group.name(), id.get(), grace);
    } catch (IOException | RuntimeException e) {
      LOG.warn(
          "worker group {}: cannot cancel Flink job {}: {}", group.name(), id.get(), message(e));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static String message(Exception e) {
    return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
  }
}

package dev.floe.server.workers;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.core.config.OptimizerSettings;
import dev.floe.core.config.WorkerGroupSettings;
import dev.floe.server.KeeperEvents;
import dev.floe.server.MutableClock;
import dev.floe.server.TableRegistry;
import dev.floe.server.optimize.RunCoordinator;
import dev.floe.server.optimize.TaskQueue;
import dev.floe.server.store.JdbcKeeperStore;
import dev.floe.server.store.KeeperEvent;
import dev.floe.server.store.KeeperStore;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The supervision rules of {@code flink} groups, on a hand-written Flink cluster behind our own
 * boundary ({@link FlinkJobLauncher}) and a clock moved by hand. The real cluster is tested in
 * floe-cli (OptimizerOnFlinkClusterITCase).
 */
class FlinkGroupSupervisorTest {

  private static final URI SERVER = URI.create("http://127.0.0.1:8420");
  private static final URI CLUSTER = URI.create("http://flink-jm:8081");
  private static final Instant START = Instant.parse("2026-12-02T00:00:00Z");

  @TempDir Path directory;

  private final MutableClock clock = new MutableClock(START);
  private final FakeCluster cluster = new FakeCluster();
  private KeeperStore store;
  private WorkerGroups groups;
  private WorkerRegistry registry;
  private WorkerProtocol protocol;
  private FlinkGroupSupervisor supervisor;

  @BeforeEach
  void setUp() {
    store = JdbcKeeperStore.open(Optional.empty(), Optional.empty(), Optional.empty(), directory);
    groups =
        WorkerGroups.of(
            new OptimizerSettings(
                1,
                0.5,
                Duration.ofSeconds(30),
                List.of(WorkerGroupSettings.flink("cluster", 4, 2, CLUSTER)),
                Optional.empty(),
                Duration.ofMinutes(2)));
    registry = new WorkerRegistry(clock, Duration.ofSeconds(30));
    TaskQueue queue = new TaskQueue(clock, Duration.ofSeconds(30), groups.slots(), 0.5);
    KeeperEvents events = new KeeperEvents(store, clock);
    RunCoordinator coordinator =
        new RunCoordinator(new TableRegistry(store), store, queue, events, clock, 5);
    protocol = new WorkerProtocol(registry, queue, coordinator, events, groups);
    supervisor = supervisor();
  }

  private FlinkGroupSupervisor supervisor() {
    return new FlinkGroupSupervisor(
        groups.find("cluster").orElseThrow(), cluster, registry, protocol, clock);
  }

  @AfterEach
  void tearDown() {
    store.close();
  }

  @Test
  void submitsOneJobOfTheTargetParallelismOnceTheKeeperCanBeReached() {
    supervisor.tick();
    assertThat(cluster.submitted).isEmpty();

    supervisor.serveAt(SERVER);
    supervisor.tick();
    supervisor.tick();

    assertThat(cluster.submitted)
        .singleElement()
        .satisfies(
            job -> {
              assertThat(job.group()).isEqualTo("cluster");
              assertThat(job.parallelism()).isEqualTo(4);
              assertThat(job.threadsPerWorker()).isEqualTo(2);
              assertThat(job.server()).isEqualTo(SERVER);
              assertThat(job.name())
                  .isEqualTo(
                      "Floe optimizer workers of group cluster for http://127.0.0.1:8420"
                          + " (parallelism 4, 2 thread(s) each)");
            });
    assertThat(cluster.lastCluster).isEqualTo(CLUSTER);
    assertThat(supervisor.job()).map(FlinkJobLauncher.Job::state).contains("RUNNING");
    assertThat(supervisor.job()).map(FlinkJobLauncher.Job::id).contains("job-1");
    assertThat(supervisor.lastStartError()).isEmpty();
  }

  @Test
  void aJobFoundRunningAfterAKeeperRestartIsAdoptedNotSubmittedAgain() {
    supervisor.serveAt(SERVER);
    supervisor.tick();

    FlinkGroupSupervisor restarted = supervisor();
    restarted.serveAt(SERVER);
    restarted.tick();
    restarted.tick();

    assertThat(cluster.submitted).hasSize(1);
    assertThat(restarted.job()).map(FlinkJobLauncher.Job::id).contains("job-1");
    assertThat(cluster.cancelled).isEmpty();
  }

  @Test
  void duplicatesAndJobsOfAnOlderTargetAreCancelledAndOneJobKept() {
    supervisor.serveAt(SERVER);
    String name = supervisor.jobName();
    cluster.add("old-1", name, "RUNNING");
    cluster.add("old-2", name, "RESTARTING");
    cluster.add(
        "older-target", supervisor.namePrefix() + " (parallelism 2, 1 thread(s) each)", "RUNNING");
    cluster.add("finished", name, "CANCELED");

    supervisor.tick();

    assertThat(cluster.submitted).isEmpty();
    assertThat(supervisor.job()).map(FlinkJobLauncher.Job::id).contains("old-1");
    assertThat(cluster.cancelled).containsExactly("old-2", "older-target");
    supervisor.tick();
    assertThat(cluster.cancelled).containsExactly("old-2", "older-target");
    assertThat(cluster.submitted).isEmpty();
  }

  @Test
  void aFailedOrCancelledJobLosesItsWorkersAndIsResubmittedAfterABackoff() {
    supervisor.serveAt(SERVER);
    supervisor.tick();
    WorkerRegistry.Worker worker =
        protocol.register("cluster", Optional.of(4242L), "taskmanager-1", 2);
    supervisor.tick();

    cluster.state("job-1", "FAILED");
    supervisor.tick();

    assertThat(registry.get(worker.id())).isEmpty();
    assertThat(events(KeeperEvent.WORKER_LOST))
        .singleElement()
        .asString()
        .contains("worker " + worker.id() + " of group cluster (pid 4242) ran in Flink job job-1")
        .contains("ended FAILED; 0 task(s) went back to the queue");
    assertThat(supervisor.lastStartError()).contains("Flink job job-1 ended FAILED");
    assertThat(supervisor.job()).map(FlinkJobLauncher.Job::state).contains("FAILED");

    clock.advance(Duration.ofSeconds(4));
    supervisor.tick();
    assertThat(cluster.submitted).hasSize(1);
    clock.advance(Duration.ofSeconds(1));
    supervisor.tick();
    assertThat(cluster.submitted).hasSize(2);
    assertThat(supervisor.job()).map(FlinkJobLauncher.Job::id).contains("job-2");

    // Cancelled from outside: the second failure in a row waits twice as long.
    cluster.state("job-2", "CANCELED");
    supervisor.tick();
    assertThat(supervisor.lastStartError()).contains("Flink job job-2 ended CANCELED");
    clock.advance(Duration.ofSeconds(9));
    supervisor.tick();
    assertThat(cluster.submitted).hasSize(2);
    clock.advance(Duration.ofSeconds(1));
    supervisor.tick();
    assertThat(cluster.submitted).hasSize(3);

    // Running with a registered worker: the backoff and the error are cleared.
    protocol.register("cluster", Optional.empty(), "taskmanager-2", 2);
    supervisor.tick();
    assertThat(supervisor.lastStartError()).isEmpty();
    cluster.state("job-3", "FAILED");
    supervisor.tick();
    clock.advance(Duration.ofSeconds(5));
    supervisor.tick();
    assertThat(cluster.submitted).hasSize(4);
  }

  @Test
  void aRunningJobWhoseWorkersNeverRegisterSaysWhyAndIsKept() {
    supervisor.serveAt(SERVER);
    supervisor.tick();
    clock.advance(FlinkGroupSupervisor.REGISTER_TIMEOUT.minusSeconds(1));
    supervisor.tick();
    assertThat(supervisor.lastStartError()).isEmpty();

    clock.advance(Duration.ofSeconds(1));
    supervisor.tick();
    assertThat(supervisor.lastStartError())
        .contains(
            "Flink job job-1 runs, but none of its workers registered within 60 s: can the"
                + " TaskManagers reach the keeper at http://127.0.0.1:8420? (set keeper.listen to"
                + " an address they reach; the job's logs are on the cluster at"
                + " http://flink-jm:8081)");
    assertThat(cluster.submitted).hasSize(1);
    assertThat(cluster.cancelled).isEmpty();

    protocol.register("cluster", Optional.empty(), "taskmanager-1", 2);
    supervisor.tick();
    assertThat(supervisor.lastStartError()).isEmpty();
  }

  @Test
  void aJobGoneFromTheClusterIsResubmitted() {
    supervisor.serveAt(SERVER);
    supervisor.tick();
    cluster.jobs.clear(); // a JobManager restarted without high availability forgets its jobs

    supervisor.tick();
    assertThat(supervisor.lastStartError())
        .contains("Flink job job-1 is gone from the cluster at http://flink-jm:8081");
    clock.advance(FlinkGroupSupervisor.FIRST_BACKOFF);
    supervisor.tick();
    assertThat(cluster.submitted).hasSize(2);
  }

  @Test
  void anUnreachableClusterBacksOffExponentiallyAndSaysWhy() {
    supervisor.serveAt(SERVER);
    cluster.unreachable = Optional.of("Connection refused");

    List<Instant> attempts = new ArrayList<>();
    for (int second = 0; second <= 80; second++) {
      int before = cluster.listings;
      supervisor.tick();
      if (cluster.listings > before) {
        attempts.add(clock.instant());
      }
      clock.advance(Duration.ofSeconds(1));
    }
    // At once, then 5 s after the first failure, 10 s, 20 s, 40 s later.
    assertThat(attempts)
        .containsExactly(
            START,
            START.plusSeconds(5),
            START.plusSeconds(15),
            START.plusSeconds(35),
            START.plusSeconds(75));
    assertThat(supervisor.lastStartError())
        .contains(
            "cannot list the jobs of the Flink cluster at http://flink-jm:8081: Connection"
                + " refused");
    assertThat(cluster.submitted).isEmpty();

    cluster.unreachable = Optional.empty();
    cluster.refuseSubmit = Optional.of("Could not submit: not enough slots");
    clock.advance(Duration.ofMinutes(3));
    supervisor.tick();
    assertThat(supervisor.lastStartError())
        .contains(
            "cannot submit the worker job to the Flink cluster at http://flink-jm:8081: Could not"
                + " submit: not enough slots");
  }

  @Test
  void stoppingCancelsTheJobAndNothingIsSubmittedAfterwards() {
    supervisor.serveAt(SERVER);
    supervisor.tick();

    supervisor.stop(Duration.ofSeconds(5));

    assertThat(cluster.cancelled).containsExactly("job-1");
    assertThat(cluster.jobs.get("job-1").state()).isEqualTo("CANCELED");
    clock.advance(Duration.ofMinutes(1));
    supervisor.tick();
    assertThat(cluster.submitted).hasSize(1);
  }

  @Test
  void aServiceWithoutAFlinkLauncherSaysSoForEveryCall() {
    FlinkGroupSupervisor none =
        new FlinkGroupSupervisor(
            groups.find("cluster").orElseThrow(), FlinkJobLauncher.NONE, registry, protocol, clock);
    none.serveAt(SERVER);
    none.tick();
    assertThat(none.lastStartError())
        .contains(
            "cannot list the jobs of the Flink cluster at http://flink-jm:8081: this keeper was"
                + " built without a way to submit Flink jobs");
  }

  private List<String> events(String kind) {
    return store.events(Optional.empty(), 100).stream()
        .filter(event -> event.kind().equals(kind))
        .map(KeeperEvent::message)
        .toList();
  }

  /** A Flink cluster's jobs, as its REST API shows them: submitted jobs run at once. */
  private static final class FakeCluster implements FlinkJobLauncher {
    private final Map<String, Job> jobs = new LinkedHashMap<>();
    private final List<WorkerJob> submitted = new ArrayList<>();
    private final List<String> cancelled = new ArrayList<>();
    private Optional<String> unreachable = Optional.empty();
    private Optional<String> refuseSubmit = Optional.empty();
    private URI lastCluster;
    private int listings;

    void add(String id, String name, String state) {
      jobs.put(id, new Job(id, name, state));
    }

    void state(String id, String state) {
      Job job = jobs.get(id);
      jobs.put(id, new Job(id, job.name(), state));
    }

    @Override
    public List<Job> jobs(URI cluster, String namePrefix) throws IOException {
      listings++;
      lastCluster = cluster;
      if (unreachable.isPresent()) {
        throw new IOException(unreachable.get());
      }
      return jobs.values().stream().filter(job -> job.name().startsWith(namePrefix)).toList();
    }

    @Override
    public String submit(URI cluster, WorkerJob job) throws IOException {
      if (refuseSubmit.isPresent()) {
        throw new IOException(refuseSubmit.get());
      }
      submitted.add(job);
      String id = "job-" + submitted.size();
      add(id, job.name(), "RUNNING");
      return id;
    }

    @Override
    public void cancel(URI cluster, String jobId) throws IOException {
      cancelled.add(jobId);
      state(jobId, "CANCELED");
    }
  }
}

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
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The supervision rules of {@code processes} groups, on a hand-written launcher (the boundary
 * between the service and the operating system is ours) and a clock moved by hand. The real
 * processes are tested in floe-cli (OptimizerProcessesITCase).
 */
class ProcessSupervisorTest {

  private static final URI SERVER = URI.create("http://127.0.0.1:8420");

  @TempDir Path directory;

  private final MutableClock clock = new MutableClock(Instant.parse("2026-12-02T00:00:00Z"));
  private final FakeLauncher launcher = new FakeLauncher();
  private KeeperStore store;
  private WorkerRegistry registry;
  private WorkerProtocol protocol;
  private ProcessSupervisor supervisor;

  @BeforeEach
  void setUp() {
    store = JdbcKeeperStore.open(Optional.empty(), Optional.empty(), Optional.empty(), directory);
    WorkerGroups groups =
        WorkerGroups.of(
            new OptimizerSettings(
                1,
                0.5,
                Duration.ofSeconds(30),
                List.of(
                    WorkerGroupSettings.processes("local", 2, 1, 512L << 20),
                    WorkerGroupSettings.external("elsewhere", 1)),
                Optional.empty(),
                Duration.ofMinutes(2)));
    registry = new WorkerRegistry(clock, Duration.ofSeconds(30));
    TaskQueue queue = new TaskQueue(clock, Duration.ofSeconds(30), groups.slots(), 0.5);
    KeeperEvents events = new KeeperEvents(store, clock);
    RunCoordinator coordinator =
        new RunCoordinator(new TableRegistry(store), store, queue, events, clock, 5);
    protocol = new WorkerProtocol(registry, queue, coordinator, events, groups);
    supervisor = new ProcessSupervisor(groups, launcher, registry, protocol, clock);
  }

  @AfterEach
  void tearDown() {
    store.close();
  }

  @Test
  void processesStartOnceTheKeeperCanBeReachedAndEndedOnesAreReplacedAtOnce() {
    supervisor.tick();
    assertThat(launcher.started).isEmpty();

    supervisor.serveAt(SERVER);
    supervisor.tick();
    assertThat(launcher.started).hasSize(2);
    assertThat(launcher.started).allMatch(process -> process.server.equals(SERVER));
    assertThat(supervisor.starting("local")).isEqualTo(2);
    WorkerRegistry.Worker first = register(launcher.started.get(0));
    register(launcher.started.get(1));
    supervisor.tick();
    assertThat(supervisor.starting("local")).isZero();
    assertThat(launcher.started).hasSize(2);

    launcher.started.get(0).exit(137);
    supervisor.tick();

    // Forgotten at once, not after the lease timeout, and replaced in the same check.
    assertThat(registry.get(first.id())).isEmpty();
    assertThat(launcher.started).hasSize(3);
    assertThat(supervisor.pids("local"))
        .containsExactly(launcher.started.get(1).pid, launcher.started.get(2).pid);
    assertThat(events(KeeperEvent.WORKER_LOST))
        .singleElement()
        .asString()
        .contains("worker " + first.id())
        .contains("(pid " + launcher.started.get(0).pid + ") process")
        .contains("exited with code 137; 0 task(s) went back to the queue");
  }

  @Test
  void failingStartsBackOffAndNeverLowerTheTarget() {
    supervisor.serveAt(SERVER);
    launcher.failing = Optional.of("Cannot run program \"/no/java\": error=2");

    supervisor.tick();
    assertThat(supervisor.lastStartError("local"))
        .contains("cannot start a worker process: Cannot run program \"/no/java\": error=2");
    List<Instant> attempts = new ArrayList<>();
    for (int second = 0; second <= 80; second++) {
      int before = launcher.attempts;
      supervisor.tick();
      if (launcher.attempts > before) {
        attempts.add(clock.instant());
      }
      clock.advance(Duration.ofSeconds(1));
    }
    Instant start = Instant.parse("2026-12-02T00:00:00Z");
    // 5 s after the first failure, then 10 s, 20 s, 40 s later.
    assertThat(attempts)
        .containsExactly(
            start.plusSeconds(5),
            start.plusSeconds(15),
            start.plusSeconds(35),
            start.plusSeconds(75));

    launcher.failing = Optional.empty();
    clock.advance(Duration.ofMinutes(3));
    supervisor.tick();
    assertThat(launcher.started).hasSize(2);
    register(launcher.started.get(0));
    supervisor.tick();
    assertThat(supervisor.lastStartError("local")).isEmpty();
  }

  @Test
  void aProcessThatEndsBeforeRegisteringIsAFailedStartWithItsOutput() {
    supervisor.serveAt(SERVER);
    supervisor.tick();
    launcher.started.get(0).output =
        "Error: Could not find or load main class dev.floe.cli.FloeMain";
    launcher.started.get(0).exit(1);

    supervisor.tick();

    assertThat(supervisor.lastStartError("local"))
        .hasValueSatisfying(
            error ->
                assertThat(error)
                    .contains("exited with code 1 before it registered")
                    .contains("last output: Error: Could not find or load main class"));
    assertThat(events(KeeperEvent.WORKER_LOST)).isEmpty();
    assertThat(launcher.started).hasSize(2);
    clock.advance(ProcessSupervisor.FIRST_BACKOFF);
    supervisor.tick();
    assertThat(launcher.started).hasSize(3);
  }

  @Test
  void aProcessThatStaysUnregisteredIsKilledAndReplaced() {
    supervisor.serveAt(SERVER);
    supervisor.tick();
    clock.advance(Duration.ofSeconds(20));
    register(launcher.started.get(1));
    supervisor.tick();
    clock.advance(ProcessSupervisor.REGISTER_TIMEOUT.minusSeconds(20));
    // The keeper forgets the second (not heard of for 40 s); the first never registered.
    protocol.expire();

    supervisor.tick();

    assertThat(launcher.started.get(0).killed).isTrue();
    // The forgotten one has the register timeout again to come back, as a worker does at once.
    assertThat(launcher.started.get(1).killed).isFalse();
    clock.advance(Duration.ofSeconds(20));
    supervisor.tick();
    assertThat(launcher.started.get(1).killed).isTrue();
    assertThat(supervisor.pids("local"))
        .hasSize(2)
        .doesNotContain(launcher.started.get(0).pid, launcher.started.get(1).pid);
  }

  @Test
  void stopAsksEveryProcessToStopAndKillsThoseThatDoNot() {
    supervisor.serveAt(SERVER);
    supervisor.tick();
    launcher.started.get(0).endsWhenStopped = true;

    supervisor.stop(Duration.ofMillis(10));

    assertThat(launcher.started).allMatch(process -> process.stopped);
    assertThat(launcher.started.get(0).killed).isFalse();
    assertThat(launcher.started.get(1).killed).isTrue();
    supervisor.tick();
    assertThat(launcher.started).hasSize(2);
  }

  private WorkerRegistry.Worker register(FakeProcess process) {
    return protocol.register("local", Optional.of(process.pid), "test", 1);
  }

  private List<String> events(String kind) {
    return store.events(Optional.empty(), 100).stream()
        .filter(event -> event.kind().equals(kind))
        .map(KeeperEvent::message)
        .toList();
  }

  private static final class FakeLauncher implements WorkerLauncher {
    private final List<FakeProcess> started = new ArrayList<>();
    private Optional<String> failing = Optional.empty();
    private int attempts;
    private long nextPid = 1000;

    @Override
    public Launched launch(WorkerGroups.Group group, URI server, int number) throws IOException {
      attempts++;
      if (failing.isPresent()) {
        throw new IOException(failing.get());
      }
      FakeProcess process = new FakeProcess(nextPid++, server);
      started.add(process);
      return process;
    }
  }

  private static final class FakeProcess implements WorkerLauncher.Launched {
    private final long pid;
    private final URI server;
    private OptionalInt exitCode = OptionalInt.empty();
    private String output = "";
    private boolean stopped;
    private boolean killed;
    private boolean endsWhenStopped;

    FakeProcess(long pid, URI server) {
      this.pid = pid;
      this.server = server;
    }

    void exit(int code) {
      exitCode = OptionalInt.of(code);
    }

    @Override
    public long pid() {
      return pid;
    }

    @Override
    public boolean isAlive() {
      return exitCode.isEmpty();
    }

    @Override
    public OptionalInt exitCode() {
      return exitCode;
    }

    @Override
    public void stop() {
      stopped = true;
      if (endsWhenStopped) {
        exit(143);
      }
    }

    @Override
    public void kill() {
      killed = true;
      exit(137);
    }

    @Override
    public boolean awaitExit(Duration timeout) {
      return !isAlive();
    }

    @Override
    public String outputTail() {
      return output.isEmpty() ? "no output" : "last output: " + output;
    }
  }
}

package dev.floe.server.workers;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.server.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class WorkerRegistryTest {

  private final MutableClock clock = new MutableClock(Instant.parse("2026-12-02T00:00:00Z"));
  private final WorkerRegistry registry = new WorkerRegistry(clock, Duration.ofSeconds(30));

  @Test
  void aWorkerProcessNotHeardOfWithinTheTimeoutIsForgotten() {
    WorkerRegistry.Worker quiet =
        registry.register("local", "processes", Optional.of(42L), "host-a", 1);
    WorkerRegistry.Worker talking =
        registry.register("local", "processes", Optional.empty(), "b", 2);
    // The keeper's own threads are never forgotten: they live and die with the service.
    WorkerRegistry.Worker thread =
        registry.register("serve", "threads", Optional.of(1L), "floe serve", 1);

    clock.advance(Duration.ofSeconds(20));
    assertThat(registry.touch(talking.id())).isPresent();
    clock.advance(Duration.ofSeconds(11));

    assertThat(registry.expire()).extracting(WorkerRegistry.Worker::id).containsExactly(quiet.id());
    assertThat(registry.all())
        .extracting(WorkerRegistry.Worker::id)
        .containsExactly(talking.id(), thread.id());
    assertThat(registry.touch(quiet.id())).isEmpty();
    assertThat(registry.live("local")).isEqualTo(1);
  }

  @Test
  void tasksAreCountedPerWorker() {
    WorkerRegistry.Worker worker = registry.register("g", "external", Optional.empty(), "h", 2);

    registry.started(worker.id());
    registry.started(worker.id());
    registry.finished(worker.id(), true);
    registry.finished(worker.id(), false);
    registry.started(worker.id());

    WorkerRegistry.Worker now = registry.get(worker.id()).orElseThrow();
    assertThat(now.runningTasks()).isEqualTo(1);
    assertThat(now.completedTasks()).isEqualTo(1);
    assertThat(now.pid()).isEmpty();
    assertThat(registry.deregister(worker.id())).isPresent();
    assertThat(registry.get(worker.id())).isEmpty();
    assertThat(registry.deregister(worker.id())).isEmpty();
  }
}

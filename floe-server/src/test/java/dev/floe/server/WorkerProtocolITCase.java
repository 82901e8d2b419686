package dev.floe.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.floe.core.config.OptimizerSettings;
import dev.floe.core.config.WorkerGroupSettings;
import dev.floe.core.error.FloeException;
import dev.floe.core.optimize.OptimizePolicy;
import dev.floe.iceberg.optimize.GroupResultCodec;
import dev.floe.iceberg.optimize.PortableRewriter;
import dev.floe.iceberg.optimize.PortableTask;
import dev.floe.iceberg.optimize.PortableTaskCodec;
import dev.floe.iceberg.optimize.UpsertTables;
import dev.floe.iceberg.optimize.UpsertWriter;
import dev.floe.iceberg.optimize.UpsertWriter.Change;
import dev.floe.server.workers.WorkerProtocol;
import dev.floe.testing.Poll;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The worker protocol against a real keeper whose only group is external: the test plays two
 * workers, rewriting with the same PortableRewriter a worker process runs.
 */
class WorkerProtocolITCase {

  private static final Duration LEASE = Duration.ofSeconds(2);

  @TempDir Path directory;

  private final ObjectMapper json = new ObjectMapper();

  @Test
  void aLateResultIsRefusedAndItsFilesRemovedWhileTheNewHoldersIsCommitted() throws Exception {
    OptimizerSettings optimizer =
        new OptimizerSettings(
            1,
            1.0,
            LEASE,
            List.of(WorkerGroupSettings.external("remote", 2)),
            Optional.empty(),
            Duration.ofMinutes(2));
    try (KeeperFixture keeper =
        new KeeperFixture(directory, KeeperFixture.settings(5, Optional.empty(), optimizer))) {
      Table table =
          UpsertTables.create(
              keeper.catalog.catalog(),
              "events",
              PartitionSpec.unpartitioned(),
              Map.of(OptimizePolicy.TARGET_FILE_SIZE_BYTES, "1048576"));
      UpsertWriter writer = new UpsertWriter(table);
      for (int commit = 0; commit < 15; commit++) {
        List<Change> changes = new ArrayList<>();
        for (long id = commit * 100L; id < commit * 100L + 100; id++) {
          changes.add(Change.upsert(id, "v" + id));
        }
        writer.append(changes);
      }
      WorkerProtocol protocol = keeper.service.workerProtocol();
      assertThatThrownBy(() -> protocol.register("nowhere", Optional.empty(), "h", 1))
          .isInstanceOf(FloeException.class)
          .hasMessageContaining("There is no worker group 'nowhere'");
      String late = protocol.register("remote", Optional.of(1L), "a", 1).id();
      WorkerProtocol.Leased first = poll(protocol, late, List.of());
      // Registered once the first task is out: a worker unheard of for a lease timeout (the
      // keeper plans the table meanwhile) would be forgotten.
      String next = protocol.register("REMOTE", Optional.of(2L), "b", 1).id(); // names ignore case
      String metrics = keeper.request("GET", "/metrics", Optional.empty()).body();
      assertThat(metrics)
          .containsPattern("floe_workers_live\\{group=\"remote\",?\\} 2\\.0")
          .containsPattern("floe_workers_target\\{group=\"remote\",?\\} 2\\.0");

      // The first worker stays alive (it heartbeats, holding nothing) but never heartbeats its
      // task while it rewrites it: the lease expires and the task goes to the other worker.
      PortableTask task = PortableTaskCodec.fromJson(first.taskJson());
      CompletableFuture<JsonNode> lateResult = rewriting(task);
      WorkerProtocol.Leased second = poll(protocol, next, List.of(late));
      assertThat(second.taskId()).isEqualTo(first.taskId());
      assertThat(keeper.request("GET", "/metrics", Optional.empty()).body())
          .containsPattern("floe_queue_lease_expiries_total [1-9]");
      assertThat(protocol.heartbeat(late, List.of(first.taskId())).lost())
          .containsExactly(first.taskId());

      // Both stay heard of until the late rewrite is done; the new holder keeps its lease.
      JsonNode lateRewritten =
          heartbeating(
              lateResult,
              () -> {
                protocol.heartbeat(late, List.of());
                protocol.heartbeat(next, List.of(second.taskId()));
              });
      assertThat(protocol.complete(late, first.taskId(), lateRewritten))
          .isEqualTo(WorkerProtocol.Outcome.REFUSED);
      for (JsonNode file : lateRewritten.get("added_data_files")) {
        assertThat(Files.exists(local(file.get("file-path").asText())))
            .as("a refused result's file is removed")
            .isFalse();
      }
      // The new holder heartbeats its task while it rewrites it, so its lease holds.
      JsonNode secondResult =
          heartbeating(
              rewriting(PortableTaskCodec.fromJson(second.taskJson())),
              () -> protocol.heartbeat(next, List.of(second.taskId())));
      assertThat(protocol.complete(next, second.taskId(), secondResult))
          .isEqualTo(WorkerProtocol.Outcome.ACCEPTED);

      Poll.until(
          "db.events optimized",
          Duration.ofSeconds(60),
          Duration.ofMillis(100),
          () -> !keeper.table("db.events").orElseThrow().get("last_optimized_at").isNull());
      assertThat(UpsertTables.read(table)).isEqualTo(writer.expected());
      assertThat(keeper.table("db.events").orElseThrow().get("consecutive_failures").asInt())
          .isZero();
      assertThatThrownBy(() -> protocol.poll("w-unknown", Duration.ZERO))
          .isInstanceOf(WorkerProtocol.UnknownWorker.class);
    }
  }

  /**
   * Polls until a task comes (the keeper plans the table first), heartbeating {@code alive}
   * (holding nothing) meanwhile so that they stay registered.
   */
  private static WorkerProtocol.Leased poll(
      WorkerProtocol protocol, String worker, List<String> alive) throws Exception {
    WorkerProtocol.Leased[] leased = new WorkerProtocol.Leased[1];
    Poll.until(
        "a task for " + worker,
        Duration.ofSeconds(60),
        Duration.ofMillis(10),
        () -> {
          alive.forEach(other -> protocol.heartbeat(other, List.of()));
          leased[0] = protocol.poll(worker, Duration.ofMillis(200)).orElse(null);
          return leased[0] != null;
        });
    return leased[0];
  }

  /** Waits for a rewrite, calling {@code beat} (heartbeats) meanwhile. */
  private static JsonNode heartbeating(CompletableFuture<JsonNode> rewrite, Runnable beat)
      throws Exception {
    Poll.until(
        "a rewrite",
        Duration.ofSeconds(120),
        Duration.ofMillis(200),
        () -> {
          beat.run();
          return rewrite.isDone();
        });
    return rewrite.get();
  }

  private CompletableFuture<JsonNode> rewriting(PortableTask task) {
    return CompletableFuture.supplyAsync(
        () -> {
          try {
            return rewrite(task);
          } catch (Exception e) {
            throw new CompletionException(e);
          }
        });
  }

  private static Path local(String location) {
    return location.startsWith("file:")
        ? Path.of(java.net.URI.create(location))
        : Path.of(location);
  }

  private JsonNode rewrite(PortableTask task) throws Exception {
    try (org.apache.iceberg.io.FileIO io = PortableRewriter.fileIo(task.io(), Map.of())) {
      Table opened = PortableRewriter.open(task, io);
      var result = new PortableRewriter().rewrite(task, opened, directory.resolve("spill"));
      return json.readTree(GroupResultCodec.toJson(task, result, opened.specs()));
    }
  }
}

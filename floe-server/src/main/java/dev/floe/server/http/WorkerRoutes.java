package dev.floe.server.http;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.floe.server.optimize.TaskQueue;
import dev.floe.server.workers.FlinkGroupSupervisor;
import dev.floe.server.workers.ProcessSupervisor;
import dev.floe.server.workers.WorkerGroups;
import dev.floe.server.workers.WorkerProtocol;
import dev.floe.server.workers.WorkerRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The HTTP form of the worker protocol ({@link WorkerProtocol}) and {@code GET /api/v1/workers}.
 * Paths under {@code /api/v1/workers}; an unknown worker is 404 (the worker registers again), a
 * result whose lease is gone 409.
 */
final class WorkerRoutes {

  static final String PREFIX = "/api/v1/workers";
  private static final int MAX_BODY_BYTES = 64 * 1024 * 1024;

  /** What to answer: a status and a JSON body (none for 204). */
  record Response(int status, Object body) {}

  private final WorkerProtocol protocol;
  private final WorkerRegistry registry;
  private final WorkerGroups groups;
  private final ProcessSupervisor processes;
  private final Map<String, FlinkGroupSupervisor> flinkGroups;
  private final TaskQueue queue;
  private final Duration leaseTimeout;
  private final ObjectMapper json;

  WorkerRoutes(
      WorkerProtocol protocol,
      WorkerRegistry registry,
      WorkerGroups groups,
      ProcessSupervisor processes,
      Map<String, FlinkGroupSupervisor> flinkGroups,
      TaskQueue queue,
      Duration leaseTimeout,
      ObjectMapper json) {
    this.protocol = requireNonNull(protocol, "protocol is null");
    this.registry = requireNonNull(registry, "registry is null");
    this.groups = requireNonNull(groups, "groups is null");
    this.processes = requireNonNull(processes, "processes is null");
    this.flinkGroups = requireNonNull(flinkGroups, "flinkGroups is null");
    this.queue = requireNonNull(queue, "queue is null");
    this.leaseTimeout = requireNonNull(leaseTimeout, "leaseTimeout is null");
    this.json = requireNonNull(json, "json is null");
  }

  Response handle(String method, String path, Map<String, String> query, InputStream body)
      throws IOException, InterruptedException {
    if (path.equals(PREFIX)) {
      return switch (method) {
        case "GET" -> new Response(200, list());
        case "POST" -> register(read(body));
        default -> notAllowed(method, "GET or POST");
      };
    }
    List<String> parts =
        List.of(path.substring(PREFIX.length() + 1).split("/")).stream()
            .map(part -> URLDecoder.decode(part, StandardCharsets.UTF_8))
            .toList();
    String worker = parts.get(0);
    try {
      if (parts.size() == 1) {
        if (!method.equals("DELETE")) {
          return notAllowed(method, "DELETE");
        }
        protocol.deregister(worker);
        return new Response(204, null);
      }
      if (!method.equals("POST")) {
        return notAllowed(method, "POST");
      }
      if (parts.size() == 2 && parts.get(1).equals("poll")) {
        return poll(worker, query);
      }
      if (parts.size() == 2 && parts.get(1).equals("heartbeat")) {
        List<String> tasks = new ArrayList<>();
        read(body).path("tasks").forEach(task -> tasks.add(task.asText()));
        WorkerProtocol.Heartbeat answer = protocol.heartbeat(worker, tasks);
        return new Response(200, Map.of("held", answer.held(), "lost", answer.lost()));
      }
      if (parts.size() == 4 && parts.get(1).equals("tasks")) {
        String task = parts.get(2);
        switch (parts.get(3)) {
          case "complete":
            JsonNode result = read(body).path("result");
            if (!result.isObject()) {
              return bad("the body must be {\"result\": {...}}, the rewrite's result document");
            }
            try {
              WorkerProtocol.Outcome outcome = protocol.complete(worker, task, result);
              return outcome == WorkerProtocol.Outcome.ACCEPTED
                  ? new Response(200, Map.of("outcome", "accepted"))
                  : new Response(
                      409,
                      Map.of(
                          "outcome",
                          "refused",
                          "error",
                          "task "
                              + task
                              + " is no longer leased to worker "
                              + worker
                              + "; its result was not committed"));
            } catch (IllegalArgumentException e) {
              return bad("the result of task " + task + " was refused: " + e.getMessage());
            }
          case "fail":
            protocol.fail(worker, task, read(body).path("error").asText("no reason given"));
            return new Response(200, Map.of("outcome", "failed"));
          case "release":
            protocol.release(worker, task);
            return new Response(200, Map.of("outcome", "released"));
          default:
            break;
        }
      }
      return new Response(404, Map.of("error", "no such resource: " + path));
    } catch (WorkerProtocol.UnknownWorker e) {
      return new Response(404, Map.of("error", e.getMessage()));
    }
  }

  private Response register(JsonNode body) {
    String group = body.path("group").asText("");
    if (group.isBlank()) {
      group = groups.defaultGroup();
    }
    Optional<Long> pid =
        body.path("pid").isIntegralNumber()
            ? Optional.of(body.path("pid").asLong())
            : Optional.empty();
    String host = body.path("host").asText("unknown");
    int threads = body.path("threads").asInt(1);
    WorkerRegistry.Worker worker = protocol.register(group, pid, host, threads);
    Map<String, Object> answer = new LinkedHashMap<>();
    answer.put("worker_id", worker.id());
    answer.put("group", worker.group());
    answer.put("lease_timeout_ms", leaseTimeout.toMillis());
    answer.put("heartbeat_interval_ms", Math.max(100, leaseTimeout.toMillis() / 3));
    return new Response(201, answer);
  }

  private Response poll(String worker, Map<String, String> query) throws InterruptedException {
    long waitMs;
    try {
      waitMs = Long.parseLong(query.getOrDefault("wait_ms", "10000"));
    } catch (NumberFormatException e) {
      return bad("wait_ms must be a number of milliseconds, got '" + query.get("wait_ms") + "'");
    }
    if (waitMs < 0) {
      return bad("wait_ms must be 0 or more, got " + waitMs);
    }
    Optional<WorkerProtocol.Leased> leased = protocol.poll(worker, Duration.ofMillis(waitMs));
    if (leased.isEmpty()) {
      return new Response(204, null);
    }
    Map<String, Object> answer = new LinkedHashMap<>();
    answer.put("task_id", leased.get().taskId());
    try {
      answer.put("task", json.readTree(leased.get().taskJson()));
    } catch (IOException e) {
      throw new IllegalStateException("a portable task is not JSON", e);
    }
    return new Response(200, answer);
  }

  private Map<String, Object> list() {
    List<Map<String, Object>> groupList = new ArrayList<>();
    for (WorkerGroups.Group group : groups.all()) {
      Map<String, Object> item = new LinkedHashMap<>();
      item.put("name", group.name());
      item.put("kind", group.kind());
      item.put("target", group.target());
      item.put("live", registry.live(group.name()));
      item.put("starting", processes.starting(group.name()));
      FlinkGroupSupervisor flink = flinkGroups.get(group.name());
      if (flink == null) {
        item.put("last_start_error", processes.lastStartError(group.name()).orElse(null));
      } else {
        item.put("last_start_error", flink.lastStartError().orElse(null));
        item.put(
            "flink_job",
            flink
                .job()
                .map(
                    job -> {
                      Map<String, Object> described = new LinkedHashMap<>();
                      described.put("id", job.id());
                      described.put("state", job.state());
                      described.put("name", job.name());
                      return described;
                    })
                .orElse(null));
      }
      groupList.add(item);
    }
    List<Map<String, Object>> workerList = new ArrayList<>();
    for (WorkerRegistry.Worker worker : registry.all()) {
      Map<String, Object> item = new LinkedHashMap<>();
      item.put("id", worker.id());
      item.put("group", worker.group());
      item.put("kind", worker.kind());
      item.put("pid", worker.pid().orElse(null));
      item.put("host", worker.host());
      item.put("threads", worker.threads());
      item.put("started_at", worker.startedAt().toString());
      item.put("last_heartbeat_at", worker.lastHeartbeatAt().toString());
      item.put("running_tasks", worker.runningTasks());
      item.put("completed_tasks", worker.completedTasks());
      workerList.add(item);
    }
    Map<String, Object> answer = new LinkedHashMap<>();
    answer.put("groups", groupList);
    answer.put("workers", workerList);
    Map<String, Object> tasks = new LinkedHashMap<>();
    tasks.put("queued", queue.queued());
    tasks.put("leased", queue.leased());
    tasks.put("oldest_queued_at", queue.oldestQueuedAt().map(Object::toString).orElse(null));
    tasks.put("slots", queue.slots());
    answer.put("queue", tasks);
    return answer;
  }

  private JsonNode read(InputStream body) throws IOException {
    byte[] bytes = body.readNBytes(MAX_BODY_BYTES + 1);
    if (bytes.length > MAX_BODY_BYTES) {
      throw new IllegalArgumentException("the request body is larger than 64 MiB");
    }
    if (bytes.length == 0) {
      return json.createObjectNode();
    }
    try {
      return json.readTree(bytes);
    } catch (IOException e) {
      throw new IllegalArgumentException("the request body is not JSON: " + e.getMessage());
    }
  }

  private static Response bad(String message) {
    return new Response(400, Map.of("error", message));
  }

  private static Response notAllowed(String method, String allowed) {
    return bad("method " + method + " is not allowed here; use " + allowed);
  }
}

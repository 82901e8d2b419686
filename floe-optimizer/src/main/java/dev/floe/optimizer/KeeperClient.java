package dev.floe.optimizer;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.floe.core.Secret;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The worker's side of the keeper's worker protocol (docs/keeper.md, "Workers outside the keeper"):
 * JSON over HTTP under {@code /api/v1/workers}, with the API token when one is set. Each call
 * either returns what the keeper answered or throws one of the nested exceptions, so the worker
 * loop decides what to do (retry, register again, stop).
 */
final class KeeperClient {

  /** The keeper cannot be reached (down, restarting, a network problem). Retry with backoff. */
  static final class Unreachable extends Exception {
    private static final long serialVersionUID = 1L;

    Unreachable(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /** The keeper does not know this worker (it was forgotten, or the keeper restarted). */
  static final class UnknownWorker extends Exception {
    private static final long serialVersionUID = 1L;

    UnknownWorker(String message) {
      super(message);
    }
  }

  /** The keeper refused the token: retrying will not help. */
  static final class Unauthorized extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Unauthorized(String message) {
      super(message);
    }
  }

  /** The keeper refused the request (bad group, bad result, ...): its message says why. */
  static final class Refused extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Refused(String message) {
      super(message);
    }
  }

  /** What registering returned. */
  record Registration(String workerId, Duration leaseTimeout, Duration heartbeatInterval) {}

  /** A task to run: its id in the protocol and the portable task document. */
  record Task(String id, JsonNode task) {}

  /** The answer to a heartbeat. */
  record Heartbeat(List<String> held, List<String> lost) {}

  private final URI server;
  private final Optional<Secret> token;
  private final HttpClient http;
  private final ObjectMapper json = new ObjectMapper();

  KeeperClient(URI server, Optional<Secret> token) {
    this.server = requireNonNull(server, "server is null");
    this.token = requireNonNull(token, "token is null");
    this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
  }

  Registration register(String group, int threads, long pid, String host)
      throws Unreachable, UnknownWorker {
    ObjectNode body = json.createObjectNode();
    if (!group.isBlank()) {
      body.put("group", group); // none: the keeper's default group
    }
    body.put("threads", threads);
    body.put("pid", pid);
    body.put("host", host);
    JsonNode answer = call("POST", "/api/v1/workers", body, Duration.ofSeconds(30)).orElseThrow();
    return new Registration(
        answer.path("worker_id").asText(),
        Duration.ofMillis(answer.path("lease_timeout_ms").asLong(30_000)),
        Duration.ofMillis(answer.path("heartbeat_interval_ms").asLong(10_000)));
  }

  /** Waits up to {@code wait} for a task; empty when none came. */
  Optional<Task> poll(String workerId, Duration wait) throws Unreachable, UnknownWorker {
    Optional<JsonNode> answer =
        call(
            "POST",
            worker(workerId) + "/poll?wait_ms=" + wait.toMillis(),
            json.createObjectNode(),
            wait.plusSeconds(30));
    return answer.map(node -> new Task(node.path("task_id").asText(), node.path("task")));
  }

  Heartbeat heartbeat(String workerId, List<String> tasks) throws Unreachable, UnknownWorker {
    ObjectNode body = json.createObjectNode();
    tasks.forEach(body.putArray("tasks")::add);
    JsonNode answer =
        call("POST", worker(workerId) + "/heartbeat", body, Duration.ofSeconds(30)).orElseThrow();
    return new Heartbeat(strings(answer.path("held")), strings(answer.path("lost")));
  }

  /**
   * Hands in a result.
   *
   * @return true when the keeper accepted it, false when it refused it because the lease was gone
   */
  boolean complete(String workerId, String taskId, String resultJson)
      throws Unreachable, UnknownWorker {
    ObjectNode body = json.createObjectNode();
    try {
      body.set("result", json.readTree(resultJson));
    } catch (IOException e) {
      throw new IllegalStateException("the rewrite produced a result that is not JSON", e);
    }
    try {
      call("POST", task(workerId, taskId) + "/complete", body, Duration.ofMinutes(5));
      return true;
    } catch (LeaseGone e) {
      return false;
    }
  }

  void fail(String workerId, String taskId, String error) throws Unreachable, UnknownWorker {
    ObjectNode body = json.createObjectNode();
    body.put("error", error);
    call("POST", task(workerId, taskId) + "/fail", body, Duration.ofSeconds(30));
  }

  void release(String workerId, String taskId) throws Unreachable, UnknownWorker {
    call(
        "POST",
        task(workerId, taskId) + "/release",
        json.createObjectNode(),
        Duration.ofSeconds(30));
  }

  void deregister(String workerId) throws Unreachable, UnknownWorker {
    call("DELETE", worker(workerId), null, Duration.ofSeconds(30));
  }

  private static String worker(String workerId) {
    return "/api/v1/workers/" + URLEncoder.encode(workerId, StandardCharsets.UTF_8);
  }

  private static String task(String workerId, String taskId) {
    return worker(workerId) + "/tasks/" + URLEncoder.encode(taskId, StandardCharsets.UTF_8);
  }

  /** A 409 on complete: the lease was handed to another worker. */
  private static final class LeaseGone extends RuntimeException {
    private static final long serialVersionUID = 1L;
  }

  /** The answer's JSON; empty for 204 (no content). */
  private Optional<JsonNode> call(String method, String path, JsonNode body, Duration timeout)
      throws Unreachable, UnknownWorker {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(server.resolve(path))
            .timeout(timeout)
            .header("Accept", "application/json");
    token.ifPresent(secret -> request.header("Authorization", "Bearer " + secret.reveal()));
    if (body == null) {
      request.method(method, HttpRequest.BodyPublishers.noBody());
    } else {
      request
          .header("Content-Type", "application/json")
          .method(method, HttpRequest.BodyPublishers.ofString(body.toString()));
    }
    HttpResponse<String> response;
    try {
      response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new Unreachable("cannot reach the keeper at " + server + ": " + describe(e), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Unreachable("interrupted while calling the keeper at " + server, e);
    }
    int status = response.statusCode();
    if (status == 204) {
      return Optional.empty();
    }
    String message = errorMessage(response.body());
    if (status == 401) {
      throw new Unauthorized(
          "the keeper at "
              + server
              + " refused the token ("
              + message
              + "): give this worker the keeper's token (keeper.api-token in floe.yaml, or the"
              + " FLOE_KEEPER_TOKEN environment variable)");
    }
    if (status == 404 && path.startsWith("/api/v1/workers/")) {
      throw new UnknownWorker(message);
    }
    if (status == 409) {
      throw new LeaseGone();
    }
    if (status == 502 || status == 503 || status == 504) {
      throw new Unreachable("the keeper at " + server + " is unavailable: " + message, null);
    }
    if (status < 200 || status >= 300) {
      throw new Refused("the keeper at " + server + " answered " + status + ": " + message);
    }
    try {
      return Optional.of(json.readTree(response.body()));
    } catch (IOException e) {
      throw new Refused("the keeper at " + server + " answered something that is not JSON");
    }
  }

  private String errorMessage(String body) {
    try {
      JsonNode node = json.readTree(body);
      return node.path("error").asText(body);
    } catch (IOException | RuntimeException e) {
      return body;
    }
  }

  private static String describe(IOException e) {
    return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
  }

  private static List<String> strings(JsonNode array) {
    List<String> values = new ArrayList<>();
    array.forEach(value -> values.add(value.asText()));
    return values;
  }
}

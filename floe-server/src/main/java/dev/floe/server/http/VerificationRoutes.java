package dev.floe.server.http;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.floe.core.config.VerificationSettings;
import dev.floe.server.store.VerificationRun;
import dev.floe.server.verify.VerificationScheduler;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneId;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code GET /api/v1/verifications}, {@code GET /api/v1/verifications/{name}} (with its runs) and
 * {@code POST /api/v1/verifications/{name}/run} (202, or 409 while it runs).
 */
final class VerificationRoutes {

  static final String PREFIX = "/api/v1/verifications";
  private static final int RUNS_SHOWN = 30;
  static final int KEYS_SHOWN = 10;

  private final VerificationScheduler verifications;
  private final ObjectMapper json;

  VerificationRoutes(VerificationScheduler verifications, ObjectMapper json) {
    this.verifications = requireNonNull(verifications, "verifications is null");
    this.json = requireNonNull(json, "json is null");
  }

  /** Answers a request under {@link #PREFIX}. */
  WorkerRoutes.Response handle(String method, String path) throws IOException {
    if (path.equals(PREFIX) || path.equals(PREFIX + "/")) {
      if (!method.equals("GET")) {
        return notAllowed(method, "GET");
      }
      List<Map<String, Object>> all =
          verifications.verifications().stream().map(this::summary).toList();
      return new WorkerRoutes.Response(200, Map.of("verifications", all));
    }
    String rest = path.substring(PREFIX.length() + 1);
    boolean run = rest.endsWith("/run");
    String name =
        URLDecoder.decode(
            run ? rest.substring(0, rest.length() - "/run".length()) : rest,
            StandardCharsets.UTF_8);
    if (name.contains("/")) {
      return new WorkerRoutes.Response(404, Map.of("error", "no such resource: " + path));
    }
    Optional<VerificationSettings> verification = verifications.verification(name);
    if (verification.isEmpty()) {
      return new WorkerRoutes.Response(
          404,
          Map.of(
              "error",
              "no verification named '"
                  + name
                  + "'; the verifications are those of keeper.verifications"));
    }
    if (run) {
      if (!method.equals("POST")) {
        return notAllowed(method, "POST");
      }
      return switch (verifications.requestRun(name)) {
        case ACCEPTED -> new WorkerRoutes.Response(202, Map.of("name", name, "running", true));
        case ALREADY_RUNNING ->
            new WorkerRoutes.Response(
                409,
                Map.of(
                    "error",
                    "verification '" + name + "' is running; ask again when its run has finished"));
        case UNKNOWN ->
            new WorkerRoutes.Response(404, Map.of("error", "no verification named '" + name + "'"));
      };
    }
    if (!method.equals("GET")) {
      return notAllowed(method, "GET");
    }
    Map<String, Object> detail = summary(verification.get());
    List<Map<String, Object>> runs = new java.util.ArrayList<>();
    for (VerificationRun found : verifications.runs(name, RUNS_SHOWN)) {
      Map<String, Object> item = runView(found);
      JsonNode report = found.report().isPresent() ? json.readTree(found.report().get()) : null;
      item.put("report", report);
      item.put("keys", report == null ? null : keys(report));
      runs.add(item);
    }
    detail.put("runs", runs);
    return new WorkerRoutes.Response(200, detail);
  }

  private Map<String, Object> summary(VerificationSettings verification) {
    String name = verification.name();
    Map<String, Object> item = new LinkedHashMap<>();
    item.put("name", name);
    item.put("source", verification.source().toString());
    item.put("table", verification.table());
    item.put("target", verification.target().orElse(verification.table()));
    item.put("time_column", verification.timeColumn());
    item.put("window", verification.window());
    item.put("cutoff", verification.cutoff());
    item.put("at", verification.at().toString());
    item.put("time_zone", verifications.zone(name).map(ZoneId::getId).orElse(null));
    item.put("time_zone_from", verification.timeZone().isPresent() ? "config" : "source");
    item.put("next_run_at", verifications.nextRun(name).map(Instant::toString).orElse(null));
    item.put("schedule_error", verifications.scheduleError(name).orElse(null));
    item.put("running", verifications.running(name));
    item.put("last", verifications.lastRun(name).map(VerificationRoutes::runView).orElse(null));
    return item;
  }

  private static Map<String, Object> runView(VerificationRun run) {
    Map<String, Object> item = new LinkedHashMap<>();
    item.put("id", run.id());
    item.put("started_at", run.startedAt().toString());
    item.put("finished_at", run.finishedAt().toString());
    item.put("result", run.result());
    Map<String, Object> counts = new LinkedHashMap<>();
    counts.put("missing", run.missing());
    counts.put("extra", run.extra());
    counts.put("different", run.different());
    item.put("counts", counts);
    item.put("error", run.error().orElse(null));
    return item;
  }

  /**
   * The first {@link #KEYS_SHOWN} keys of each kind of difference with its count, each key as the
   * JSON text of the report ({@code 1700000000000000017}, {@code {"tenant":3,"line":9}}): a browser
   * reading the report's numbers would round keys above 2^53.
   */
  private static Map<String, Object> keys(JsonNode report) {
    Map<String, Object> kinds = new LinkedHashMap<>();
    for (String kind : List.of("missing_in_lake", "extra_in_lake", "different")) {
      JsonNode found = report.path(kind);
      List<String> shown = new java.util.ArrayList<>();
      for (JsonNode key : found.path("keys")) {
        if (shown.size() == KEYS_SHOWN) {
          break;
        }
        shown.add(key.isTextual() ? key.asText() : key.toString());
      }
      Map<String, Object> entry = new LinkedHashMap<>();
      entry.put("count", found.path("count").asLong());
      entry.put("keys", shown);
      kinds.put(kind, entry);
    }
    return kinds;
  }

  private static WorkerRoutes.Response notAllowed(String method, String allowed) {
    return new WorkerRoutes.Response(
        400, Map.of("error", "method " + method + " is not allowed here; use " + allowed));
  }
}

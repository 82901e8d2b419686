package dev.floe.server.http;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.floe.server.syncs.SyncReport;
import dev.floe.server.syncs.SyncReports;
import java.io.IOException;
import java.io.InputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code PUT /api/v1/syncs/{name}} (a sync's report), {@code GET /api/v1/syncs} and {@code GET
 * /api/v1/syncs/{name}}.
 */
final class SyncRoutes {

  static final String PREFIX = "/api/v1/syncs";
  private static final int MAX_BODY_BYTES = 16 * 1024 * 1024;

  private final SyncReports syncs;
  private final ObjectMapper json;

  SyncRoutes(SyncReports syncs, ObjectMapper json) {
    this.syncs = requireNonNull(syncs, "syncs is null");
    this.json = requireNonNull(json, "json is null");
  }

  /** Answers a request under {@link #PREFIX}. */
  WorkerRoutes.Response handle(String method, String path, InputStream body) throws IOException {
    if (path.equals(PREFIX) || path.equals(PREFIX + "/")) {
      if (!method.equals("GET")) {
        return notAllowed(method, "GET");
      }
      List<Map<String, Object>> all = syncs.all().stream().map(syncs::view).toList();
      return new WorkerRoutes.Response(200, Map.of("syncs", all));
    }
    String name = URLDecoder.decode(path.substring(PREFIX.length() + 1), StandardCharsets.UTF_8);
    if (name.contains("/")) {
      return new WorkerRoutes.Response(404, Map.of("error", "no such resource: " + path));
    }
    switch (method) {
      case "GET" -> {
        Optional<SyncReport> report = syncs.get(name);
        return report
            .map(found -> new WorkerRoutes.Response(200, syncs.view(found)))
            .orElseGet(
                () ->
                    new WorkerRoutes.Response(
                        404,
                        Map.of(
                            "error",
                            "no sync named '"
                                + name
                                + "' has reported; a sync reports with floe sync --keeper URL")));
      }
      case "PUT" -> {
        try {
          return new WorkerRoutes.Response(200, syncs.view(syncs.report(name, read(body))));
        } catch (IllegalArgumentException e) {
          return new WorkerRoutes.Response(
              400,
              Map.of("error", "the report of sync '" + name + "' was refused: " + e.getMessage()));
        }
      }
      default -> {
        return notAllowed(method, "GET or PUT");
      }
    }
  }

  private JsonNode read(InputStream body) throws IOException {
    byte[] bytes = body.readNBytes(MAX_BODY_BYTES + 1);
    if (bytes.length > MAX_BODY_BYTES) {
      throw new IllegalArgumentException("the request body is larger than 16 MiB");
    }
    try {
      return json.readTree(bytes);
    } catch (IOException e) {
      throw new IllegalArgumentException("the request body is not JSON: " + e.getMessage());
    }
  }

  private static WorkerRoutes.Response notAllowed(String method, String allowed) {
    return new WorkerRoutes.Response(
        400, Map.of("error", "method " + method + " is not allowed here; use " + allowed));
  }
}

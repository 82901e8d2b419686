package dev.floe.server.http;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.floe.core.Secret;
import dev.floe.core.WorkerToken;
import dev.floe.core.config.ListenAddress;
import dev.floe.core.error.FloeException;
import dev.floe.core.optimize.PartitionState;
import dev.floe.core.optimize.PartitionTask;
import dev.floe.core.state.TableKey;
import dev.floe.server.KeeperService;
import dev.floe.server.TableQuery;
import dev.floe.server.optimize.Evaluated;
import dev.floe.server.store.HealthSample;
import dev.floe.server.store.RunRecord;
import dev.floe.server.store.TableRecord;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The keeper's HTTP edge: the REST API under {@code /api/v1} (JSON; {@code /api/v1/openapi.json}
 * describes it), Prometheus metrics at {@code /metrics} and the dashboard ({@link
 * DashboardRoutes}). With {@code keeper.api-token} set, every request but {@code /api/v1/health},
 * the login page and the dashboard's assets needs {@code Authorization: Bearer TOKEN} (compared in
 * constant time) or the session cookie of a dashboard login (401 otherwise; a page sends the
 * browser to {@code /login}); a cookie request that is not a GET must also carry {@code
 * X-Floe-Request: 1} (403 otherwise), which a page of another site cannot send. Errors are JSON
 * {@code {"error": "..."}}; exceptions map to status codes here and nowhere else.
 */
public final class KeeperHttpServer implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(KeeperHttpServer.class);
  private static final String API = "/api/v1";
  private static final int RUNS_SHOWN = 20;
  private static final int HTTP_THREADS = 64;

  /** The header a request with the session cookie must carry to change something (CSRF). */
  static final String CSRF_HEADER = "X-Floe-Request";

  private final KeeperService keeper;
  private final Optional<byte[]> token;
  private final Optional<byte[]> workerToken;
  private final HttpServer server;
  private final ExecutorService executor;
  private final ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
  private final WorkerRoutes workerRoutes;
  private final ViewRoutes viewRoutes;
  private final AlertRoutes alertRoutes;
  private final DashboardSessions sessions;
  private final DashboardRoutes dashboard;
  private final SyncRoutes syncRoutes;
  private final VerificationRoutes verificationRoutes;

  private KeeperHttpServer(
      KeeperService keeper, Optional<Secret> token, HttpServer server, ExecutorService executor) {
    this.keeper = keeper;
    this.token = token.map(secret -> secret.reveal().getBytes(StandardCharsets.UTF_8));
    this.workerToken =
        token.map(secret -> WorkerToken.derive(secret).reveal().getBytes(StandardCharsets.UTF_8));
    this.server = server;
    this.executor = executor;
    this.workerRoutes =
        new WorkerRoutes(
            keeper.workerProtocol(),
            keeper.workerRegistry(),
            keeper.groups(),
            keeper.processes(),
            keeper.flinkGroups(),
            keeper.queue(),
            keeper.settings().optimizer().leaseTimeout(),
            json);
    this.viewRoutes = new ViewRoutes(keeper);
    this.alertRoutes =
        new AlertRoutes(
            keeper.alerts(), keeper.store().alerts(), keeper.alertDelivery(), keeper.clock(), json);
    this.sessions = new DashboardSessions(keeper.clock());
    this.dashboard = new DashboardRoutes(this.token, sessions);
    this.syncRoutes = new SyncRoutes(keeper.syncs(), json);
    this.verificationRoutes = new VerificationRoutes(keeper.verifications(), json);
  }

  /**
   * Binds and starts serving.
   *
   * @throws FloeException BAD_INPUT when the address is in use or cannot be bound
   */
  public static KeeperHttpServer start(
      KeeperService keeper, ListenAddress listen, Optional<Secret> token) {
    requireNonNull(keeper, "keeper is null");
    HttpServer server;
    String host =
        listen.host().startsWith("[")
            ? listen.host().substring(1, listen.host().length() - 1)
            : listen.host();
    try {
      server = HttpServer.create(new InetSocketAddress(host, listen.port()), 64);
    } catch (BindException e) {
      throw FloeException.badInput(
          "Cannot listen on "
              + listen
              + ": "
              + e.getMessage()
              + ". Another process uses the port: stop it, or choose another keeper.listen.");
    } catch (IOException e) {
      throw FloeException.badInput(
          "Cannot listen on " + listen + ": " + e.getMessage() + ". Check keeper.listen.");
    }
    // Workers long-poll for tasks (up to WorkerProtocol.MAX_POLL_WAIT each), so the pool has room
    // for them beside the API's own requests.
    ExecutorService executor =
        Executors.newFixedThreadPool(
            HTTP_THREADS,
            runnable -> {
              Thread thread = new Thread(runnable, "floe-keeper-http");
              thread.setDaemon(true);
              return thread;
            });
    KeeperHttpServer http = new KeeperHttpServer(keeper, token, server, executor);
    server.createContext("/", http::handle);
    server.setExecutor(executor);
    server.start();
    return http;
  }

  /** The port bound (useful with port 0). */
  public int port() {
    return server.getAddress().getPort();
  }

  @Override
  public void close() {
    server.stop(1);
    executor.shutdownNow();
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      String path = exchange.getRequestURI().getRawPath();
      String method = exchange.getRequestMethod();
      try {
        if (path.equals(API + "/health")) {
          boolean healthy = keeper.healthy();
          send(exchange, healthy ? 200 : 503, Map.of("status", healthy ? "ok" : "unhealthy"));
          return;
        }
        if (dashboard.isPublic(path)) {
          dashboard.handlePublic(exchange, method, path);
          return;
        }
        Optional<String> session = session(exchange);
        boolean bearer = bearerAuthorized(exchange, method, path);
        if (token.isPresent() && !bearer && session.isEmpty()) {
          if (dashboard.isPage(path) && method.equals("GET")) {
            dashboard.redirectToLogin(exchange, exchange.getRequestURI().toString());
            return;
          }
          exchange.getResponseHeaders().set("WWW-Authenticate", "Bearer");
          send(
              exchange,
              401,
              error(
                  "missing or wrong token: send Authorization: Bearer TOKEN, or log in at"
                      + " /login"));
          return;
        }
        if (token.isPresent()
            && !bearer
            && !method.equals("GET")
            && !method.equals("HEAD")
            && !"1".equals(exchange.getRequestHeaders().getFirst(CSRF_HEADER))) {
          send(
              exchange,
              403,
              error(
                  "a request with the session cookie that changes something must carry the"
                      + " header "
                      + CSRF_HEADER
                      + ": 1 (the dashboard's pages send it)"));
          return;
        }
        if (dashboard.isPage(path)) {
          dashboard.handlePage(exchange, method, path, session);
          return;
        }
        route(exchange, method, path);
      } catch (NotFound e) {
        send(exchange, 404, error(e.getMessage()));
      } catch (BadRequest e) {
        send(exchange, 400, error(e.getMessage()));
      } catch (FloeException e) {
        int status = e.category() == dev.floe.core.error.ErrorCategory.BAD_INPUT ? 400 : 503;
        send(exchange, status, error(e.getMessage()));
      } catch (RuntimeException e) {
        LOG.error("{} {} failed", method, path, e);
        send(exchange, 500, error("internal error: " + e.getClass().getSimpleName()));
      }
    }
  }

  private void route(HttpExchange exchange, String method, String path) throws IOException {
    Map<String, String> query = query(exchange.getRequestURI().getRawQuery());
    if (path.equals("/metrics")) {
      requireMethod(method, "GET");
      byte[] body = keeper.metrics().scrape().getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
      exchange.sendResponseHeaders(200, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
      return;
    }
    if (path.equals(API + "/openapi.json")) {
      requireMethod(method, "GET");
      try (InputStream in = KeeperHttpServer.class.getResourceAsStream("openapi.json")) {
        byte[] body = in.readAllBytes();
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(200, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
          out.write(body);
        }
      }
      return;
    }
    if (path.equals(WorkerRoutes.PREFIX) || path.startsWith(WorkerRoutes.PREFIX + "/")) {
      WorkerRoutes.Response response;
      try {
        response = workerRoutes.handle(method, path, query, exchange.getRequestBody());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        response = new WorkerRoutes.Response(503, error("the keeper is stopping"));
      } catch (IllegalArgumentException e) {
        response = new WorkerRoutes.Response(400, error(e.getMessage()));
      }
      if (response.body() == null) {
        exchange.sendResponseHeaders(response.status(), -1);
      } else {
        send(exchange, response.status(), response.body());
      }
      return;
    }
    if (AlertRoutes.handles(path)) {
      WorkerRoutes.Response response;
      try {
        response = alertRoutes.handle(method, path, query, exchange.getRequestBody());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        response = new WorkerRoutes.Response(503, error("the keeper is stopping"));
      } catch (IllegalArgumentException e) {
        response = new WorkerRoutes.Response(400, error(e.getMessage()));
      }
      if (response.body() == null) {
        exchange.sendResponseHeaders(response.status(), -1);
      } else {
        send(exchange, response.status(), response.body());
      }
      return;
    }
    if (path.equals(SyncRoutes.PREFIX) || path.startsWith(SyncRoutes.PREFIX + "/")) {
      WorkerRoutes.Response response;
      try {
        response = syncRoutes.handle(method, path, exchange.getRequestBody());
      } catch (IllegalArgumentException e) {
        response = new WorkerRoutes.Response(400, error(e.getMessage()));
      }
      send(exchange, response.status(), response.body());
      return;
    }
    if (path.equals(VerificationRoutes.PREFIX)
        || path.startsWith(VerificationRoutes.PREFIX + "/")) {
      WorkerRoutes.Response response = verificationRoutes.handle(method, path);
      send(exchange, response.status(), response.body());
      return;
    }
    if (path.equals(API + "/overview")) {
      requireMethod(method, "GET");
      send(exchange, 200, viewRoutes.overview());
      return;
    }
    if (path.equals(API + "/tables")) {
      requireMethod(method, "GET");
      TableQuery.Page page;
      try {
        page = TableQuery.parse(query).apply(rows());
      } catch (IllegalArgumentException e) {
        throw new BadRequest(e.getMessage());
      }
      Instant now = keeper.clock().instant();
      List<Map<String, Object>> tables = new ArrayList<>();
      page.rows().forEach(row -> tables.add(summary(row, now)));
      Map<String, Object> answer = new LinkedHashMap<>();
      answer.put("tables", tables);
      answer.put("total", page.total());
      send(exchange, 200, answer);
      return;
    }
    if (path.equals(API + "/events")) {
      requireMethod(method, "GET");
      int limit = limit(query);
      Optional<TableKey> table =
          query.containsKey("table")
              ? Optional.of(key(query.get("table"), query))
              : Optional.empty();
      List<Map<String, Object>> events = ViewRoutes.events(keeper.store().events(table, limit));
      send(exchange, 200, Map.of("events", events));
      return;
    }
    if (path.startsWith(API + "/tables/")) {
      String rest =
          URLDecoder.decode(path.substring((API + "/tables/").length()), StandardCharsets.UTF_8);
      for (String action : List.of("optimize", "pause", "resume")) {
        if (rest.endsWith("/" + action)) {
          requireMethod(method, "POST");
          TableKey key = key(rest.substring(0, rest.length() - action.length() - 1), query);
          Optional<TableRecord> updated =
              switch (action) {
                case "optimize" -> keeper.optimizeNow(key);
                case "pause" -> keeper.pause(key);
                default -> keeper.resume(key);
              };
          send(exchange, 202, summary(updated.orElseThrow(() -> notFound(key.table()))));
          return;
        }
      }
      for (String view : List.of("history", "snapshots", "files")) {
        if (rest.endsWith("/" + view)) {
          requireMethod(method, "GET");
          TableKey key = key(rest.substring(0, rest.length() - view.length() - 1), query);
          keeper.registry().get(key).orElseThrow(() -> notFound(key.table()));
          try {
            send(
                exchange,
                200,
                switch (view) {
                  case "history" -> viewRoutes.history(key, query);
                  case "snapshots" -> viewRoutes.snapshots(key, limit(query));
                  default -> viewRoutes.files(key);
                });
          } catch (IllegalArgumentException e) {
            throw new BadRequest(e.getMessage());
          }
          return;
        }
      }
      requireMethod(method, "GET");
      TableKey key = key(rest, query);
      TableRecord record = keeper.registry().get(key).orElseThrow(() -> notFound(key.table()));
      send(exchange, 200, detail(record));
      return;
    }
    throw new NotFound(
        "no such resource: "
            + path
            + ". The API is under "
            + API
            + " (see "
            + API
            + "/openapi.json).");
  }

  private List<TableQuery.Row> rows() {
    List<TableQuery.Row> rows = new ArrayList<>();
    for (TableRecord table : keeper.registry().all()) {
      rows.add(row(table));
    }
    return rows;
  }

  private TableQuery.Row row(TableRecord table) {
    return new TableQuery.Row(
        table, keeper.health().latest(table.key()).flatMap(HealthSample::sourceWatermark));
  }

  private Map<String, Object> summary(TableRecord table) {
    return summary(row(table), keeper.clock().instant());
  }

  private Map<String, Object> summary(TableQuery.Row row, Instant now) {
    TableRecord table = row.table();
    Map<String, Object> item = new LinkedHashMap<>();
    item.put("table", table.key().table());
    item.put("catalog", table.key().catalog());
    item.put("state", table.status().apiName());
    item.put("health", table.health());
    item.put("data_files", table.dataFiles());
    item.put("small_files", table.smallFiles());
    item.put("delete_files", table.deleteFiles());
    item.put("backlog_bytes", table.backlogBytes());
    item.put("last_optimized_at", table.lastOptimizedAt().map(Object::toString).orElse(null));
    item.put("consecutive_failures", table.consecutiveFailures());
    item.put("last_error", table.lastError().orElse(null));
    item.put("retry_at", table.retryAt().map(Object::toString).orElse(null));
    item.put("source_watermark_at", row.sourceWatermark().map(Object::toString).orElse(null));
    item.put("freshness_ms", row.freshness(now).map(Duration::toMillis).orElse(null));
    return item;
  }

  private Map<String, Object> detail(TableRecord table) {
    Map<String, Object> item = summary(table);
    item.put("metadata_location", table.metadataLocation().orElse(null));
    Optional<Evaluated> evaluated = keeper.evaluator().evaluated(table.key());
    List<Map<String, Object>> partitions = new ArrayList<>();
    List<Map<String, Object>> plan = new ArrayList<>();
    if (evaluated.isPresent()) {
      long target = evaluated.get().preview().plan().targetFileSize();
      evaluated.get().preview().state().partitions().stream()
          .sorted(Comparator.comparingInt((PartitionState p) -> p.healthScore(target)))
          .forEach(
              partition -> {
                Map<String, Object> p = new LinkedHashMap<>();
                p.put("partition", partition.partition().displayName());
                p.put("health", partition.healthScore(target));
                p.put("data_files", partition.dataFiles());
                p.put("small_files", partition.smallFiles());
                p.put("delete_files", partition.deleteFiles());
                p.put("data_bytes", partition.dataBytes());
                partitions.add(p);
              });
      for (PartitionTask task : evaluated.get().preview().plan().tasks()) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("partition", task.partition().displayName());
        p.put("kind", task.kind().displayName());
        p.put("files_in", task.filesIn());
        p.put("bytes_in", task.bytesIn());
        p.put("expected_files_out", task.expectedFilesOut());
        p.put("reason", task.reason());
        plan.add(p);
      }
    }
    item.put("partitions", partitions);
    item.put("plan", plan);
    List<Map<String, Object>> runs = new ArrayList<>();
    for (RunRecord run : keeper.store().runs(table.key(), RUNS_SHOWN)) {
      Map<String, Object> r = new LinkedHashMap<>();
      r.put("kind", run.kind());
      r.put("started_at", run.startedAt().toString());
      r.put("finished_at", run.finishedAt().toString());
      r.put("duration_ms", run.duration().toMillis());
      r.put("result", run.result());
      r.put("bytes_in", run.bytesIn());
      r.put("bytes_out", run.bytesOut());
      r.put("files_in", run.filesIn());
      r.put("files_out", run.filesOut());
      r.put("detail", run.detail());
      runs.add(r);
    }
    item.put("runs", runs);
    return item;
  }

  /** NS.NAME, in the catalog named by {@code ?catalog=} or the one catalog that has it. */
  private TableKey key(String table, Map<String, String> query) {
    if (!table.contains(".")
        || table.startsWith(".")
        || table.endsWith(".")
        || table.contains("/")) {
      throw new BadRequest(
          "'" + table + "' is not a table name: give it as NAMESPACE.NAME, e.g. shop.orders");
    }
    if (query.containsKey("catalog")) {
      return new TableKey(query.get("catalog"), table);
    }
    List<TableKey> matches = new ArrayList<>();
    for (String catalog : keeper.catalogNames()) {
      TableKey key = new TableKey(catalog, table);
      if (keeper.registry().get(key).isPresent()) {
        matches.add(key);
      }
    }
    if (matches.size() > 1) {
      throw new BadRequest(
          "table "
              + table
              + " is in several catalogs ("
              + String.join(", ", matches.stream().map(TableKey::catalog).toList())
              + "): add ?catalog=NAME");
    }
    if (matches.isEmpty()) {
      throw notFound(table);
    }
    return matches.get(0);
  }

  /**
   * The API token opens everything; the {@link WorkerToken} only the worker protocol's calls
   * (register, poll, heartbeat, results, deregister), not the list of workers nor anything else.
   */
  private boolean bearerAuthorized(HttpExchange exchange, String method, String path) {
    if (token.isEmpty()) {
      return true;
    }
    String header = exchange.getRequestHeaders().getFirst("Authorization");
    if (header == null || !header.startsWith("Bearer ")) {
      return false;
    }
    byte[] given = header.substring("Bearer ".length()).trim().getBytes(StandardCharsets.UTF_8);
    if (MessageDigest.isEqual(given, token.get())) {
      return true;
    }
    boolean workerCall =
        path.startsWith(WorkerRoutes.PREFIX + "/")
            || (path.equals(WorkerRoutes.PREFIX) && method.equals("POST"));
    return workerCall && MessageDigest.isEqual(given, workerToken.get());
  }

  /** The request's valid dashboard session, if its cookie holds one. */
  private Optional<String> session(HttpExchange exchange) {
    for (String header : exchange.getRequestHeaders().getOrDefault("Cookie", List.of())) {
      for (String cookie : header.split(";")) {
        String trimmed = cookie.trim();
        if (trimmed.startsWith(DashboardSessions.COOKIE + "=")) {
          String id = trimmed.substring(DashboardSessions.COOKIE.length() + 1);
          if (sessions.valid(id)) {
            return Optional.of(id);
          }
        }
      }
    }
    return Optional.empty();
  }

  private static int limit(Map<String, String> query) {
    String text = query.getOrDefault("limit", "100");
    try {
      int limit = Integer.parseInt(text);
      if (limit >= 1 && limit <= 10_000) {
        return limit;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new BadRequest("limit must be a number from 1 to 10000, got '" + text + "'");
  }

  private static void requireMethod(String method, String expected) {
    if (!method.equals(expected)) {
      throw new BadRequest("method " + method + " is not allowed here; use " + expected);
    }
  }

  static Map<String, String> query(String raw) {
    Map<String, String> query = new LinkedHashMap<>();
    if (raw == null || raw.isEmpty()) {
      return query;
    }
    for (String pair : raw.split("&")) {
      int equals = pair.indexOf('=');
      String name = equals < 0 ? pair : pair.substring(0, equals);
      String value = equals < 0 ? "" : pair.substring(equals + 1);
      query.put(
          URLDecoder.decode(name, StandardCharsets.UTF_8),
          URLDecoder.decode(value, StandardCharsets.UTF_8));
    }
    return query;
  }

  private static Map<String, Object> error(String message) {
    return Map.of("error", message);
  }

  private static NotFound notFound(String table) {
    return new NotFound("no table " + table + " is known to the keeper");
  }

  private void send(HttpExchange exchange, int status, Object body) throws IOException {
    byte[] bytes = json.writeValueAsBytes(body);
    DashboardRoutes.secure(exchange);
    exchange.getResponseHeaders().set("Cache-Control", "no-store");
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  private static final class NotFound extends RuntimeException {
    NotFound(String message) {
      super(message);
    }
  }

  private static final class BadRequest extends RuntimeException {
    BadRequest(String message) {
      super(message);
    }
  }
}

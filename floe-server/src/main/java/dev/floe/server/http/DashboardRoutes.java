package dev.floe.server.http;

import static java.util.Objects.requireNonNull;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The dashboard: its pages ({@code /}, {@code /tables}, {@code /tables/NS.NAME}, {@code /workers},
 * {@code /alerts}, {@code /verifications}: one page shell whose script shows the page the path
 * names), its assets under {@code /assets/} (the pages' modules and styles, and uPlot from its
 * WebJar, all from the jar), and {@code /login} / {@code /logout}. The pages read only the
 * documented API. Every answer carries a strict Content-Security-Policy (self only) and
 * Cache-Control. Which requests are allowed is decided by {@link KeeperHttpServer}: assets and the
 * login page are public (code and styles, no data), pages need the token or a session.
 */
final class DashboardRoutes {

  static final String CONTENT_SECURITY_POLICY =
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
          + " connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none';"
          + " form-action 'self'; frame-ancestors 'none'";

  private static final String RESOURCES = "/dev/floe/server/dashboard/";
  private static final Pattern ASSET = Pattern.compile("[a-z0-9-]+\\.(js|css|svg|png)");
  private static final Pattern UPLOT_ASSET = Pattern.compile("uPlot\\.(esm\\.js|min\\.css)");
  private static final Set<String> PAGES =
      Set.of("/", "/tables", "/workers", "/alerts", "/verifications");
  private static final Map<String, String> TYPES =
      Map.of(
          "html", "text/html; charset=utf-8",
          "js", "text/javascript; charset=utf-8",
          "css", "text/css; charset=utf-8",
          "svg", "image/svg+xml",
          "png", "image/png");

  private final Optional<byte[]> token;
  private final DashboardSessions sessions;
  private final String uplotRoot;

  DashboardRoutes(Optional<byte[]> token, DashboardSessions sessions) {
    this.token = requireNonNull(token, "token is null");
    this.sessions = requireNonNull(sessions, "sessions is null");
    this.uplotRoot = "/META-INF/resources/webjars/uplot/" + uplotVersion() + "/dist/";
  }

  /** Whether anyone may fetch the path: the assets and the login page. */
  boolean isPublic(String path) {
    return path.startsWith("/assets/") || path.equals("/login");
  }

  /** Whether the path is one of the pages (or the logout). */
  boolean isPage(String path) {
    return PAGES.contains(path) || path.startsWith("/tables/") || path.equals("/logout");
  }

  /** Answers a public path. */
  void handlePublic(HttpExchange exchange, String method, String path) throws IOException {
    if (path.equals("/login")) {
      login(exchange, method);
      return;
    }
    String name = path.substring("/assets/".length());
    Optional<String> resource = Optional.empty();
    if (name.startsWith("uplot/") && UPLOT_ASSET.matcher(name.substring(6)).matches()) {
      resource = Optional.of(uplotRoot + name.substring(6));
    } else if (ASSET.matcher(name).matches()) {
      resource = Optional.of(RESOURCES + name);
    }
    if (resource.isEmpty() || !method.equals("GET")) {
      text(exchange, 404, "no such asset: " + path);
      return;
    }
    try (InputStream in = DashboardRoutes.class.getResourceAsStream(resource.get())) {
      if (in == null) {
        text(exchange, 404, "no such asset: " + path);
        return;
      }
      // Assets change only with a new Floe: the browser revalidates, a page reload sees new ones.
      exchange.getResponseHeaders().set("Cache-Control", "no-cache");
      send(exchange, 200, type(name), in.readAllBytes());
    }
  }

  /** Answers a page (the caller checked the token or session). */
  void handlePage(HttpExchange exchange, String method, String path, Optional<String> session)
      throws IOException {
    if (path.equals("/logout")) {
      if (!method.equals("POST")) {
        text(exchange, 405, "use POST /logout");
        return;
      }
      session.ifPresent(sessions::remove);
      exchange.getResponseHeaders().add("Set-Cookie", DashboardSessions.expiredCookie());
      redirect(exchange, token.isPresent() ? "/login" : "/");
      return;
    }
    if (!method.equals("GET")) {
      text(exchange, 405, "pages answer GET only");
      return;
    }
    exchange.getResponseHeaders().set("Cache-Control", "no-store");
    send(exchange, 200, TYPES.get("html"), resource("app.html"));
  }

  /** Sends the browser to the login page, then back to where it was going. */
  void redirectToLogin(HttpExchange exchange, String path) throws IOException {
    redirect(exchange, "/login?next=" + URLEncoder.encode(path, StandardCharsets.UTF_8));
  }

  private void login(HttpExchange exchange, String method) throws IOException {
    Map<String, String> query = KeeperHttpServer.query(exchange.getRequestURI().getRawQuery());
    if (token.isEmpty()) {
      redirect(exchange, "/"); // no token, no login: the keeper listens on loopback only
      return;
    }
    if (method.equals("GET")) {
      loginPage(exchange, 200, "", next(query.get("next")));
      return;
    }
    if (!method.equals("POST")) {
      text(exchange, 405, "use GET or POST /login");
      return;
    }
    byte[] body = exchange.getRequestBody().readNBytes(16 * 1024);
    Map<String, String> form = KeeperHttpServer.query(new String(body, StandardCharsets.UTF_8));
    String next = next(form.get("next"));
    byte[] given = form.getOrDefault("token", "").getBytes(StandardCharsets.UTF_8);
    if (!MessageDigest.isEqual(given, token.get())) {
      loginPage(
          exchange, 401, "That is not the keeper's token (keeper.api-token). Try again.", next);
      return;
    }
    exchange.getResponseHeaders().add("Set-Cookie", DashboardSessions.cookie(sessions.create()));
    redirect(exchange, next);
  }

  private void loginPage(HttpExchange exchange, int status, String message, String next)
      throws IOException {
    String html =
        new String(resource("login.html"), StandardCharsets.UTF_8)
            .replace("{{message}}", escape(message))
            .replace("{{next}}", escape(next));
    exchange.getResponseHeaders().set("Cache-Control", "no-store");
    send(exchange, status, TYPES.get("html"), html.getBytes(StandardCharsets.UTF_8));
  }

  /** Only a path of this keeper: never another site (no open redirect). */
  private static String next(String next) {
    if (next == null) {
      return "/";
    }
    String decoded = URLDecoder.decode(next, StandardCharsets.UTF_8);
    return decoded.startsWith("/") && !decoded.startsWith("//") && !decoded.contains("\\")
        ? decoded
        : "/";
  }

  private static void redirect(HttpExchange exchange, String location) throws IOException {
    exchange.getResponseHeaders().set("Location", location);
    exchange.getResponseHeaders().set("Cache-Control", "no-store");
    exchange.sendResponseHeaders(303, -1);
  }

  private static void text(HttpExchange exchange, int status, String message) throws IOException {
    send(exchange, status, "text/plain; charset=utf-8", message.getBytes(StandardCharsets.UTF_8));
  }

  /** Sends a body with the dashboard's security headers. */
  static void send(HttpExchange exchange, int status, String type, byte[] body) throws IOException {
    secure(exchange);
    exchange.getResponseHeaders().set("Content-Type", type);
    exchange.sendResponseHeaders(status, body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }

  static void secure(HttpExchange exchange) {
    exchange.getResponseHeaders().set("Content-Security-Policy", CONTENT_SECURITY_POLICY);
    exchange.getResponseHeaders().set("X-Content-Type-Options", "nosniff");
    exchange.getResponseHeaders().set("Referrer-Policy", "no-referrer");
  }

  private static byte[] resource(String name) {
    try (InputStream in = DashboardRoutes.class.getResourceAsStream(RESOURCES + name)) {
      if (in == null) {
        throw new IllegalStateException("the dashboard's " + name + " is missing from the jar");
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String type(String name) {
    return TYPES.getOrDefault(
        name.substring(name.lastIndexOf('.') + 1), "application/octet-stream");
  }

  private static String escape(String text) {
    return text.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("\"", "&quot;")
        .replace("'", "&#39;");
  }

  /** The uPlot WebJar's version, from its Maven properties in the jar. */
  private static String uplotVersion() {
    try (InputStream in =
        DashboardRoutes.class.getResourceAsStream(
            "/META-INF/maven/org.webjars.npm/uplot/pom.properties")) {
      if (in == null) {
        throw new IllegalStateException("the uPlot WebJar is missing from the classpath");
      }
      Properties properties = new Properties();
      properties.load(in);
      return properties.getProperty("version");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}

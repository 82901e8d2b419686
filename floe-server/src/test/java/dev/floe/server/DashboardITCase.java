package dev.floe.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.floe.core.Secret;
import dev.floe.core.config.KeeperSettings;
import dev.floe.core.config.VerificationSettings;
import dev.floe.core.optimize.OptimizePolicy;
import dev.floe.core.source.MySqlSourceAddress;
import dev.floe.core.state.TableKey;
import dev.floe.core.sync.SyncSummary;
import dev.floe.iceberg.optimize.UpsertTables;
import dev.floe.iceberg.optimize.UpsertWriter;
import dev.floe.iceberg.optimize.UpsertWriter.Change;
import dev.floe.server.store.AlertRecord;
import dev.floe.server.store.HealthSample;
import dev.floe.server.store.JdbcKeeperStore;
import dev.floe.server.store.VerificationRun;
import dev.floe.testing.ChromiumBrowser;
import dev.floe.testing.Poll;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.Cookie;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;

/**
 * The dashboard in a real headless Chromium against a keeper on real Iceberg tables, with a token
 * set: the login and the session cookie's rules, each page showing the prepared state, a chart
 * drawn, and an action (pause) that changes the table. Screenshots go to {@code target/dashboard/}.
 */
class DashboardITCase {

  private static final Duration WITHIN = Duration.ofSeconds(30);
  private static final Duration EVERY = Duration.ofMillis(100);
  private static final Path SCREENSHOTS = Path.of("target", "dashboard");
  private static final Map<String, String> NOT_OPTIMIZED =
      Map.of(OptimizePolicy.ENABLED, "false", OptimizePolicy.TARGET_FILE_SIZE_BYTES, "1048576");

  @TempDir Path directory;

  private final HttpClient client = HttpClient.newHttpClient();
  private final ObjectMapper json = new ObjectMapper();

  @Test
  void everyPageShowsTheKeepersStateBehindTheLogin() throws Exception {
    try (KeeperFixture keeper =
            new KeeperFixture(
                directory, KeeperFixture.settings(5, Optional.of(Secret.of(KeeperFixture.TOKEN))));
        ChromiumBrowser browser = ChromiumBrowser.start(1280, 800)) {
      prepare(keeper);
      String base = "http://127.0.0.1:" + keeper.http.port();
      HttpResponse<String> reported =
          client.send(
              HttpRequest.newBuilder(URI.create(base + "/api/v1/syncs/shop-sync"))
                  .header("Authorization", "Bearer " + KeeperFixture.TOKEN)
                  .header("Content-Type", "application/json")
                  .PUT(
                      HttpRequest.BodyPublishers.ofString(
                          "{\"source\": \"mysql://floe@db:3306\", \"state\": \"running\","
                              + " \"started_at\": \"2026-12-01T00:00:00Z\", \"lag_ms\": 1200,"
                              + " \"error\": null, \"tables\": [{\"source_table\": \"shop.users\","
                              + " \"table\": \"db.users\", \"phase\": \"binlog\", \"rows\": 100,"
                              + " \"lag_ms\": 1200}]}"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(reported.statusCode()).as(reported.body()).isBetween(200, 204);
      ChromeDriver driver = browser.driver();

      // No page and no API without the token or a session.
      HttpResponse<String> page = get(base + "/tables", Optional.empty());
      assertThat(page.statusCode()).isEqualTo(303);
      assertThat(page.headers().firstValue("Location")).contains("/login?next=%2Ftables");
      assertThat(get(base + "/api/v1/tables", Optional.empty()).statusCode()).isEqualTo(401);
      assertThat(get(base + "/tables/db.orders", Optional.of("floe_session=forged")).statusCode())
          .isEqualTo(303);

      // The login: a wrong token is refused, the right one leads back to the page asked for.
      driver.get(base + "/tables");
      assertThat(driver.getCurrentUrl()).isEqualTo(base + "/login?next=%2Ftables");
      login(driver, "wrong-token");
      assertThat(driver.findElement(By.id("login-error")).getText())
          .isEqualTo("That is not the keeper's token (keeper.api-token). Try again.");
      login(driver, KeeperFixture.TOKEN);
      Poll.until(
          "back at /tables", WITHIN, EVERY, () -> driver.getCurrentUrl().equals(base + "/tables"));
      Cookie session = driver.manage().getCookieNamed("floe_session");
      assertThat(session.isHttpOnly()).isTrue();
      assertThat(session.getSameSite()).isEqualTo("Strict");
      assertThat(session.getExpiry()).isAfter(Instant.now().plus(Duration.ofHours(11)));
      assertThat((String) driver.executeScript("return document.cookie"))
          .doesNotContain("floe_session");

      // The API takes the session cookie; a change needs the page's header too (CSRF).
      String cookie = "floe_session=" + session.getValue();
      assertThat(get(base + "/api/v1/overview", Optional.of(cookie)).statusCode()).isEqualTo(200);
      HttpResponse<String> forged =
          post(base + "/api/v1/tables/db.users/optimize", cookie, Optional.empty());
      assertThat(forged.statusCode()).isEqualTo(403);
      assertThat(forged.body()).contains("X-Floe-Request: 1");
      assertThat(
              post(base + "/api/v1/tables/db.users/optimize", cookie, Optional.of("1"))
                  .statusCode())
          .isEqualTo(202);

      // Tables: both, with health and state; sorted by health, the worst first.
      ready(driver);
      List<WebElement> rows = driver.findElements(By.cssSelector("#tables-body tr"));
      assertThat(rows)
          .extracting(row -> row.getAttribute("data-table"))
          .containsExactly("db.orders", "db.users");
      assertThat(text(driver, "#tables-count")).isEqualTo("Tables 1–2 of 2");
      WebElement orders =
          driver.findElement(By.cssSelector("#tables-body tr[data-table='db.orders']"));
      int ordersHealth = keeper.table("db.orders").orElseThrow().get("health").asInt();
      assertThat(orders.findElement(By.cssSelector("[data-health]")).getText())
          .isEqualTo(Integer.toString(ordersHealth));
      assertThat(orders.findElement(By.cssSelector("[data-state]")).getText())
          .isEqualTo("disabled");
      browser.screenshot(SCREENSHOTS.resolve("tables.png"));
      driver.findElement(By.cssSelector("a[data-sort='health']")).click();
      ready(driver);
      assertThat(driver.getCurrentUrl()).endsWith("/tables?sort=health");
      driver.findElement(By.name("q")).sendKeys("users");
      driver.findElement(By.cssSelector("#filters button[type='submit']")).click();
      Poll.until(
          "filtered to db.users",
          WITHIN,
          EVERY,
          () ->
              driver.getCurrentUrl().contains("q=users")
                  && driver.findElements(By.cssSelector("#tables-body tr")).size() == 1);

      // Overview: tables by state, the freshness of the synced table, the workers.
      driver.get(base + "/");
      ready(driver);
      assertThat(text(driver, "#tables-total")).isEqualTo("2");
      assertThat(
              (String)
                  driver.executeScript(
                      "return document.querySelector(\"#by-state [data-name='disabled']\")"
                          + ".dataset.count"))
          .isEqualTo("2");
      assertThat(text(driver, "#freshness tr[data-table='db.users']")).contains("db.users");
      assertThat(text(driver, "#groups tr[data-group]")).contains("2");
      assertThat(text(driver, "#zone")).startsWith("Times in ");
      assertThat(text(driver, "#alerts-firing")).isEqualTo("0");
      assertThat(text(driver, "#syncs tr[data-sync='shop-sync']")).contains("running", "1 s");
      assertThat(text(driver, "#events")).contains("table_discovered");
      browser.screenshot(SCREENSHOTS.resolve("overview.png"));

      // Table detail: figures, charts drawn, the snapshot timeline, and pause with confirmation.
      driver.get(base + "/tables/db.orders");
      ready(driver);
      assertThat(text(driver, "#table-name")).startsWith("db.orders");
      assertThat(text(driver, "#table-state [data-state]")).isEqualTo("disabled");
      Poll.until(
          "both charts are drawn",
          WITHIN,
          EVERY,
          () ->
              !driver.findElements(By.cssSelector("#health-chart canvas")).isEmpty()
                  && !driver.findElements(By.cssSelector("#size-chart canvas")).isEmpty());
      assertThat(driver.findElements(By.cssSelector("#snapshots tr[data-writer='other']")))
          .hasSize(6);
      assertThat(driver.findElements(By.cssSelector("#partitions tbody tr"))).hasSize(1);
      browser.screenshot(SCREENSHOTS.resolve("table.png"));
      driver.findElement(By.id("action-pause")).click();
      Poll.until(
          "the confirmation is open",
          WITHIN,
          EVERY,
          () -> driver.findElement(By.id("confirm")).isDisplayed());
      assertThat(text(driver, "#confirm-text")).startsWith("Pause db.orders?");
      driver.findElement(By.id("confirm-yes")).click();
      Poll.until(
          "the page shows db.orders paused",
          WITHIN,
          EVERY,
          () -> "paused".equals(current(driver, "#table-state [data-state]")));
      assertThat(keeper.table("db.orders").orElseThrow().get("state").asText()).isEqualTo("paused");

      // Workers: the group with its target and live count, and the queue.
      driver.get(base + "/workers");
      ready(driver);
      assertThat(text(driver, "#groups tr[data-group]")).contains("threads");
      assertThat(text(driver, "#queue-queued")).isEqualTo("0");
      browser.screenshot(SCREENSHOTS.resolve("workers.png"));

      // Alerts: the resolved one prepared, a silence added and ended through the page.
      driver.get(base + "/alerts");
      ready(driver);
      Poll.until(
          "the alerts page is drawn",
          WITHIN,
          EVERY,
          () -> current(driver, "#alerts-resolved") != null);
      assertThat(text(driver, "#alerts-resolved tr[data-rule='table-unhealthy']"))
          .contains("floe/db.orders", "health 35 is below 60 since 30 minutes");
      assertThat(text(driver, "#channels")).contains("No channel is configured");
      driver
          .findElement(By.cssSelector("#silence-form [name='subject']"))
          .sendKeys("floe/db.orders");
      driver.findElement(By.cssSelector("#silence-form button[type='submit']")).click();
      Poll.until(
          "the silence is listed",
          WITHIN,
          EVERY,
          () -> "Silenced.".equals(current(driver, "#alerts-result")));
      assertThat(text(driver, "#silences")).contains("table-unhealthy", "floe/db.orders");
      assertThat(keeper.get("/api/v1/silences").get("silences")).hasSize(1);
      browser.screenshot(SCREENSHOTS.resolve("alerts.png"));
      driver.findElement(By.cssSelector("#silences button[data-action='end-silence']")).click();
      Poll.until(
          "the confirmation is open",
          WITHIN,
          EVERY,
          () -> driver.findElement(By.id("confirm")).isDisplayed());
      driver.findElement(By.id("confirm-yes")).click();
      Poll.until(
          "the silence is ended",
          WITHIN,
          EVERY,
          () -> "Silence ended.".equals(current(driver, "#alerts-result")));
      assertThat(keeper.get("/api/v1/silences").get("silences")).isEmpty();

      // Verifications: said plainly when this keeper has none scheduled.
      driver.get(base + "/verifications");
      ready(driver);
      assertThat(text(driver, "#verifications"))
          .contains("No verification is scheduled (keeper.verifications).");
      browser.screenshot(SCREENSHOTS.resolve("verifications.png"));

      // A phone-sized window: the overview fits its width.
      browser.resize(390, 844);
      driver.get(base + "/");
      ready(driver);
      long overflow =
          (Long)
              driver.executeScript(
                  "return document.documentElement.scrollWidth - document.documentElement.clientWidth");
      assertThat(overflow).isZero();
      browser.screenshot(SCREENSHOTS.resolve("overview-phone.png"));
      driver.get(base + "/tables/db.users");
      ready(driver);
      Poll.until(
          "the health chart is drawn on the phone",
          WITHIN,
          EVERY,
          () -> !driver.findElements(By.cssSelector("#health-chart canvas")).isEmpty());
      assertThat(
              (Long)
                  driver.executeScript(
                      "return document.documentElement.scrollWidth"
                          + " - document.documentElement.clientWidth"))
          .isZero();
      browser.screenshot(SCREENSHOTS.resolve("table-phone.png"));

      // Logging out ends the session on the server.
      driver.findElement(By.id("logout")).click();
      Poll.until(
          "at the login page",
          WITHIN,
          EVERY,
          () -> driver.getCurrentUrl().startsWith(base + "/login"));
      assertThat(get(base + "/api/v1/overview", Optional.of(cookie)).statusCode()).isEqualTo(401);
    }
  }

  @Test
  void theVerificationsPageShowsTheDifferingKeysWithTheRepairAndRunsOneNow() throws Exception {
    // A source that accepts connections and never answers: the run started through the page
    // stays running until the test closes it, so a second "Run now" meets the running one.
    try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      List<Socket> accepted = new java.util.concurrent.CopyOnWriteArrayList<>();
      Thread acceptor =
          new Thread(
              () -> {
                try {
                  while (true) {
                    accepted.add(silent.accept());
                  }
                } catch (java.io.IOException closed) {
                  // the test closed the socket
                }
              },
              "silent-source");
      acceptor.setDaemon(true);
      acceptor.start();
      String source = "mysql://floe@127.0.0.1:" + silent.getLocalPort();
      VerificationSettings verification =
          new VerificationSettings(
              "orders-check",
              MySqlSourceAddress.parse(source, "test").withPassword(Secret.of("source-pw-42")),
              "shop.orders",
              Optional.of("db.orders"),
              "updated_at",
              "7d",
              "today",
              LocalTime.of(0, 30),
              Optional.of(ZoneId.of("UTC")));
      // The last run, stored before the keeper starts: 12 keys missing (one above 2^53), 1 extra,
      // 2 different.
      StringBuilder missing = new StringBuilder("1700000000000000017");
      for (int key = 2; key <= 12; key++) {
        missing.append(", ").append(key);
      }
      String report =
          "{\"status\": \"different\", \"source_table\": \"shop.orders\", \"target_table\":"
              + " \"db.orders\", \"cutoff\": \"2026-12-01T00:00\", \"rows_compared\": 500,"
              + " \"missing_in_lake\": {\"count\": 12, \"keys\": ["
              + missing
              + "]}, \"extra_in_lake\": {\"count\": 1, \"keys\": [9]}, \"different\":"
              + " {\"count\": 2, \"keys\": [42, 43], \"rows\": [{\"key\": 42, \"columns\":"
              + " [\"total\"]}, {\"key\": 43, \"columns\": [\"status\"]}]},"
              + " \"changed_after_cutoff\": 0, \"keys_limit\": 1000, \"elapsed_ms\": 900}";
      Instant finished = Instant.now().minus(Duration.ofHours(3));
      try (JdbcKeeperStore store =
          JdbcKeeperStore.open(Optional.empty(), Optional.empty(), Optional.empty(), directory)) {
        store.recordVerificationRun(
            new VerificationRun(
                0,
                "orders-check",
                finished.minusSeconds(1),
                finished,
                VerificationRun.DIFFERENT,
                12,
                1,
                2,
                Optional.empty(),
                Optional.of(report)));
      }
      KeeperSettings settings =
          KeeperFixture.settings(5, Optional.of(Secret.of(KeeperFixture.TOKEN))).toBuilder()
              .verifications(List.of(verification))
              .build();
      try (KeeperFixture keeper = new KeeperFixture(directory, settings);
          ChromiumBrowser browser = ChromiumBrowser.start(1280, 800)) {
        String base = "http://127.0.0.1:" + keeper.http.port();
        ChromeDriver driver = browser.driver();
        driver.get(base + "/verifications");
        login(driver, KeeperFixture.TOKEN);
        Poll.until(
            "back at /verifications",
            WITHIN,
            EVERY,
            () -> driver.getCurrentUrl().equals(base + "/verifications"));
        ready(driver);
        Poll.until(
            "the differences are drawn",
            WITHIN,
            EVERY,
            () -> current(driver, "[data-differences='orders-check']") != null);
        assertThat(text(driver, "#verification-list tr[data-verification='orders-check']"))
            .contains("shop.orders", "db.orders", "different", "12 / 1 / 2");
        // A few keys per kind with the count; the big key exact, not rounded by the browser.
        assertThat(
                text(driver, "[data-differences='orders-check'] tr[data-kind='missing_in_lake']"))
            .contains("missing in the lake", "12", "1700000000000000017, 2, 3")
            .contains("and 2 more");
        assertThat(text(driver, "[data-differences='orders-check'] tr[data-kind='extra_in_lake']"))
            .contains("extra in the lake", "9");
        assertThat(text(driver, "[data-differences='orders-check'] tr[data-kind='different']"))
            .contains("different", "42, 43");
        // The repair: the resync, then the verify command that lists every key; no password.
        String repair = text(driver, "[data-differences='orders-check'] .repair");
        assertThat(repair)
            .contains("./floe sync ... --resnapshot shop.orders")
            .contains(
                "./floe verify --source "
                    + source
                    + " --table shop.orders --target db.orders --time-column updated_at"
                    + " --window 7d --cutoff 2026-12-01T00:00 --report differences.json")
            .doesNotContain("source-pw-42")
            .doesNotContain("******");
        browser.screenshot(SCREENSHOTS.resolve("verifications-different.png"));

        // Run now: confirmed, started (202).
        runNow(driver);
        Poll.until(
            "the page says the run started",
            WITHIN,
            EVERY,
            () ->
                "orders-check: started; its result shows here when it finishes."
                    .equals(current(driver, "#verifications-result")));
        assertThat(keeper.service.verifications().running("orders-check")).isTrue();
        Poll.until(
            "the list is drawn again with the run",
            WITHIN,
            EVERY,
            () ->
                current(
                        driver,
                        "#verification-list tr[data-verification='orders-check']"
                            + " [data-result='running']")
                    != null);
        // Again while it runs: the keeper answers 409 and the page says so.
        runNow(driver);
        Poll.until(
            "the page says it is already running",
            WITHIN,
            EVERY,
            () ->
                "orders-check is already running; its result shows here when it finishes."
                    .equals(current(driver, "#verifications-result")));
        browser.screenshot(SCREENSHOTS.resolve("verifications-running.png"));

        // The source goes away: the run fails, and the page draws its result by itself.
        silent.close();
        for (Socket socket : accepted) {
          socket.close();
        }
        Poll.until(
            "the page shows the failed run",
            Duration.ofSeconds(60),
            EVERY,
            () ->
                "orders-check: failed.".equals(current(driver, "#verifications-result"))
                    && String.valueOf(
                            current(
                                driver,
                                "#verification-list tr[data-verification='orders-check']"
                                    + " [data-result='failed']"))
                        .startsWith("failed"));
        assertThat(keeper.service.verifications().runs("orders-check", 10))
            .extracting(VerificationRun::result)
            .containsExactly(VerificationRun.FAILED, VerificationRun.DIFFERENT);
      }
    }
  }

  private static void runNow(WebDriver driver) throws Exception {
    driver
        .findElement(
            By.cssSelector(
                "#verification-list tr[data-verification='orders-check'] button[data-action='run']"))
        .click();
    Poll.until(
        "the confirmation is open",
        WITHIN,
        EVERY,
        () -> driver.findElement(By.id("confirm")).isDisplayed());
    assertThat(text(driver, "#confirm-text")).startsWith("Run orders-check now?");
    driver.findElement(By.id("confirm-yes")).click();
  }

  /** db.orders: six small appends, optimize off; db.users: two appends and a sync commit. */
  private void prepare(KeeperFixture keeper) throws Exception {
    Table orders =
        UpsertTables.create(
            keeper.catalog.catalog(), "orders", PartitionSpec.unpartitioned(), NOT_OPTIMIZED);
    UpsertWriter ordersWriter = new UpsertWriter(orders);
    for (int commit = 0; commit < 6; commit++) {
      ordersWriter.append(inserts(commit * 100L, commit * 100L + 100));
    }
    Table users =
        UpsertTables.create(
            keeper.catalog.catalog(), "users", PartitionSpec.unpartitioned(), NOT_OPTIMIZED);
    UpsertWriter usersWriter = new UpsertWriter(users);
    usersWriter.append(inserts(0, 50));
    usersWriter.append(inserts(50, 100));
    users
        .newAppend()
        .set(SyncSummary.SYNC_ID, "sync-1")
        .set(SyncSummary.SOURCE_WATERMARK_MS, Long.toString(System.currentTimeMillis() - 90_000))
        .commit();
    Poll.until(
        "both tables are evaluated",
        WITHIN,
        EVERY,
        () ->
            keeper.table("db.orders").map(t -> t.get("data_files").asInt() == 6).orElse(false)
                && keeper
                    .table("db.users")
                    .map(t -> !t.get("source_watermark_at").isNull())
                    .orElse(false));
    // A resolved alert (the alert loop leaves resolved ones alone).
    Instant fired = Instant.now().minus(Duration.ofHours(2));
    keeper
        .service
        .store()
        .alerts()
        .insert(
            new AlertRecord(
                0,
                "table-unhealthy",
                "floe/db.orders",
                AlertRecord.RESOLVED,
                "health 35 is below 60 since 30 minutes",
                "/tables/db.orders?catalog=floe",
                fired,
                Optional.of(fired.plus(Duration.ofMinutes(40))),
                Optional.of(fired),
                Optional.empty()));
    // An hour of earlier evaluations, so the health chart has a line.
    Instant now = Instant.now();
    for (int minute = 60; minute > 0; minute -= 5) {
      Instant at = now.minus(Duration.ofMinutes(minute));
      keeper
          .service
          .store()
          .saveHealthSample(
              new HealthSample(
                  new TableKey("floe", "db.orders"),
                  at,
                  100 - minute / 2,
                  minute / 10,
                  minute / 10,
                  0,
                  0,
                  Optional.empty()),
              at.toEpochMilli() / HealthHistory.SPACING.toMillis());
    }
  }

  private static void login(WebDriver driver, String token) {
    driver.findElement(By.id("token")).sendKeys(token);
    driver.findElement(By.id("login-submit")).click();
  }

  private static void ready(WebDriver driver) throws Exception {
    Poll.until(
        "the page " + driver.getCurrentUrl() + " is drawn",
        WITHIN,
        EVERY,
        () ->
            "true"
                .equals(
                    ((ChromeDriver) driver).executeScript("return document.body.dataset.ready")));
  }

  /** The element's text as it is now, read in one step (a page may redraw between two). */
  private static String current(WebDriver driver, String selector) {
    return (String)
        ((ChromeDriver) driver)
            .executeScript(
                "const e = document.querySelector(arguments[0]);"
                    + " return e ? e.textContent.trim() : null;",
                selector);
  }

  private static String text(WebDriver driver, String selector) {
    return current(driver, selector);
  }

  private HttpResponse<String> get(String url, Optional<String> cookie) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).GET();
    cookie.ifPresent(value -> request.header("Cookie", value));
    return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> post(String url, String cookie, Optional<String> csrf)
      throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(url))
            .POST(HttpRequest.BodyPublishers.noBody())
            .header("Cookie", cookie);
    csrf.ifPresent(value -> request.header("X-Floe-Request", value));
    return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static List<Change> inserts(long from, long to) {
    List<Change> changes = new ArrayList<>();
    for (long id = from; id < to; id++) {
      changes.add(Change.upsert(id, "v" + id));
    }
    return changes;
  }
}

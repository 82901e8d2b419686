package dev.floe.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.floe.core.Secret;
import dev.floe.core.config.KeeperSettings;
import dev.floe.core.config.VerificationSettings;
import dev.floe.core.source.MySqlSourceAddress;
import dev.floe.testing.MariaDbExtension;
import dev.floe.testing.MariaDbServer;
import dev.floe.testing.Poll;
import dev.floe.verify.LakeCopier;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.List;
import java.util.Optional;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The keeper runs {@code keeper.verifications} at their daily time on its (test) clock, against a
 * real MariaDB and a real Iceberg table: a prepared mismatch is {@code different} and fires {@code
 * verification-different}, a source that is down is {@code failed} with the reason and the other
 * still runs; {@code POST /api/v1/verifications/{name}/run} is 202, then 409 while it runs.
 */
@ExtendWith(MariaDbExtension.class)
class VerificationSchedulerITCase {

  private static final Duration WITHIN = Duration.ofSeconds(60);
  private static final Duration EVERY = Duration.ofMillis(100);
  private static final String PASSWORD = "pw-keeper-verify";
  private static final Instant START = Instant.parse("2026-12-02T00:00:00Z");

  @TempDir Path directory;

  @Test
  void runsEachAtItsTimeStoresTheResultAlertsAndRunsOnRequest(MariaDbServer server)
      throws Exception {
    String database = server.createDatabase("keeperverify");
    server.createUser("keeper_verify", PASSWORD, "SELECT");
    server.execute(
        "CREATE TABLE `"
            + database
            + "`.orders (id BIGINT PRIMARY KEY, amount DECIMAL(10,2),"
            + " updated_at DATETIME NOT NULL)",
        "INSERT INTO `"
            + database
            + "`.orders SELECT seq * 1000, seq / 4, TIMESTAMP('2025-12-31')"
            + " - INTERVAL seq HOUR FROM `"
            + database
            + "`.seq_1_to_500");
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    MySqlSourceAddress source =
        MySqlSourceAddress.parse(server.sourceUrl("keeper_verify", PASSWORD, ""), "test");
    MySqlSourceAddress down =
        MySqlSourceAddress.parse("mysql://keeper_verify@127.0.0.1:" + closedPort, "test")
            .withPassword(Secret.of(PASSWORD));
    VerificationSettings orders =
        new VerificationSettings(
            "orders",
            source,
            database + ".orders",
            Optional.of("lake.orders"),
            "updated_at",
            "7d",
            "2026-01-01",
            LocalTime.of(0, 30),
            Optional.of(ZoneId.of("UTC")));
    VerificationSettings unreachable =
        new VerificationSettings(
            "unreachable",
            down,
            database + ".orders",
            Optional.of("lake.orders"),
            "updated_at",
            "7d",
            "2026-01-01",
            LocalTime.of(0, 30),
            Optional.of(ZoneId.of("UTC")));
    KeeperSettings base = KeeperFixture.settings(3, Optional.of(Secret.of(KeeperFixture.TOKEN)));
    KeeperSettings settings = base.toBuilder().verifications(List.of(unreachable, orders)).build();
    MutableClock clock = new MutableClock(START);

    try (KeeperFixture keeper = new KeeperFixture(directory, settings, clock)) {
      try (Connection connection = server.rootConnection()) {
        new LakeCopier(100)
            .copy(
                connection,
                LakeCopier.shape(connection, database, "orders", "updated_at"),
                keeper.catalog.catalog(),
                TableIdentifier.of("lake", "orders"));
      }
      JsonNode before = keeper.get("/api/v1/verifications").get("verifications");
      assertThat(before).hasSize(2);
      assertThat(before.get(1).get("name").asText()).isEqualTo("orders");
      assertThat(before.get(1).get("target").asText()).isEqualTo("lake.orders");
      assertThat(before.get(1).get("next_run_at").asText()).isEqualTo("2026-12-02T00:30:00Z");
      assertThat(before.get(1).get("last").isNull()).isTrue();
      assertThat(before.toString()).doesNotContain(PASSWORD);

      // The mismatch: a row the lake has that MySQL no longer has.
      server.execute("DELETE FROM `" + database + "`.orders WHERE id = 3000");
      clock.advance(Duration.ofMinutes(31));
      keeper.service.verifications().wakeUp();

      JsonNode ran =
          Poll.until(
              "both verifications ran",
              WITHIN,
              EVERY,
              () -> {
                JsonNode all = keeper.get("/api/v1/verifications").get("verifications");
                return all.get(0).get("last").isNull() || all.get(1).get("last").isNull()
                    ? Optional.empty()
                    : Optional.of(all);
              });
      JsonNode failed = ran.get(0).get("last");
      assertThat(failed.get("result").asText()).isEqualTo("failed");
      assertThat(failed.get("error").asText())
          .contains("127.0.0.1:" + closedPort)
          .doesNotContain(PASSWORD);
      JsonNode different = ran.get(1).get("last");
      assertThat(different.get("result").asText()).isEqualTo("different");
      assertThat(different.get("counts").get("missing").asLong()).isZero();
      assertThat(different.get("counts").get("extra").asLong()).isEqualTo(1);
      assertThat(different.get("counts").get("different").asLong()).isZero();
      assertThat(ran.get(1).get("next_run_at").asText()).isEqualTo("2026-12-03T00:30:00Z");

      JsonNode detail = keeper.get("/api/v1/verifications/orders");
      assertThat(detail.get("runs")).hasSize(1);
      JsonNode report = detail.get("runs").get(0).get("report");
      assertThat(report.get("status").asText()).isEqualTo("different");
      assertThat(report.get("extra_in_lake").get("keys").get(0).asLong()).isEqualTo(3000);

      Poll.until(
          "verification-different fires for orders", WITHIN, EVERY, () -> firing(keeper, "orders"));
      Poll.until(
          "verification-different fires for unreachable",
          WITHIN,
          EVERY,
          () -> firing(keeper, "unreachable"));

      // A run on request, held by a write lock on the source table while the API is asked again.
      try (Connection lock = server.rootConnection();
          Statement statement = lock.createStatement()) {
        statement.execute("LOCK TABLES `" + database + "`.orders WRITE");
        HttpResponse<String> accepted =
            keeper.request(
                "POST", "/api/v1/verifications/orders/run", Optional.of(KeeperFixture.TOKEN));
        assertThat(accepted.statusCode()).as(accepted.body()).isEqualTo(202);
        HttpResponse<String> again =
            keeper.request(
                "POST", "/api/v1/verifications/orders/run", Optional.of(KeeperFixture.TOKEN));
        assertThat(again.statusCode()).as(again.body()).isEqualTo(409);
        assertThat(again.body()).contains("verification 'orders' is running");
        assertThat(keeper.get("/api/v1/verifications/orders").get("running").asBoolean()).isTrue();
        statement.execute("UNLOCK TABLES");
      }
      Poll.until(
          "the requested run finished",
          WITHIN,
          EVERY,
          () -> keeper.get("/api/v1/verifications/orders").get("runs").size() == 2);
      assertThat(
              keeper
                  .request(
                      "POST", "/api/v1/verifications/nothing/run", Optional.of(KeeperFixture.TOKEN))
                  .statusCode())
          .isEqualTo(404);
      assertThat(keeper.request("GET", "/api/v1/verifications", Optional.empty()).statusCode())
          .isEqualTo(401);
    }
  }

  @Test
  void withoutATimeZoneItRunsAtItsTimeInTheZoneItsSourceReports() throws Exception {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    MutableClock clock = new MutableClock(START);
    try (MariaDbServer shanghai =
        MariaDbServer.builder()
            .directory(directory.resolve("mariadb"))
            .argument("--default-time-zone=+08:00")
            .start()) {
      String database = shanghai.createDatabase("zoned");
      shanghai.execute(
          "CREATE TABLE `"
              + database
              + "`.orders (id BIGINT PRIMARY KEY, updated_at DATETIME NOT NULL)");
      VerificationSettings zoned =
          new VerificationSettings(
              "zoned",
              MySqlSourceAddress.parse(shanghai.sourceUrl("root", "", ""), "test"),
              database + ".orders",
              Optional.of("lake.orders"),
              "updated_at",
              "7d",
              "today",
              LocalTime.of(0, 30),
              Optional.empty());
      VerificationSettings down =
          new VerificationSettings(
              "down",
              MySqlSourceAddress.parse("mysql://keeper_verify@127.0.0.1:" + closedPort, "test")
                  .withPassword(Secret.of(PASSWORD)),
              database + ".orders",
              Optional.of("lake.orders"),
              "updated_at",
              "7d",
              "today",
              LocalTime.of(0, 30),
              Optional.empty());
      KeeperSettings settings =
          KeeperFixture.settings(3, Optional.of(Secret.of(KeeperFixture.TOKEN))).toBuilder()
              .verifications(List.of(zoned, down))
              .build();
      try (KeeperFixture keeper = new KeeperFixture(directory.resolve("keeper"), settings, clock)) {
        try (Connection connection = shanghai.rootConnection()) {
          new LakeCopier(100)
              .copy(
                  connection,
                  LakeCopier.shape(connection, database, "orders", "updated_at"),
                  keeper.catalog.catalog(),
                  TableIdentifier.of("lake", "orders"));
        }
        // Known since 08:00 in +08:00 on 2026-12-02: the first run is 00:30 there the next day.
        JsonNode listed =
            Poll.until(
                "the source's time zone is read",
                WITHIN,
                EVERY,
                () -> {
                  JsonNode all = keeper.get("/api/v1/verifications").get("verifications");
                  return all.get(0).get("time_zone").isNull()
                          || all.get(1).get("schedule_error").isNull()
                      ? Optional.empty()
                      : Optional.of(all);
                });
        assertThat(listed.get(0).get("time_zone").asText()).isEqualTo("+08:00");
        assertThat(listed.get(0).get("time_zone_from").asText()).isEqualTo("source");
        assertThat(listed.get(0).get("next_run_at").asText()).isEqualTo("2026-12-02T16:30:00Z");
        assertThat(listed.get(0).get("schedule_error").isNull()).isTrue();
        // The source that is down has no schedule, and says why; the password is not in it.
        assertThat(listed.get(1).get("time_zone").isNull()).isTrue();
        assertThat(listed.get(1).get("next_run_at").isNull()).isTrue();
        assertThat(listed.get(1).get("schedule_error").asText())
            .contains("cannot read the time zone of its source", "127.0.0.1:" + closedPort)
            .doesNotContain(PASSWORD);

        clock.advance(Duration.ofHours(16).plusMinutes(31));
        keeper.service.verifications().wakeUp();
        JsonNode ran =
            Poll.until(
                "zoned ran at 00:30 in its source's zone",
                WITHIN,
                EVERY,
                () -> {
                  JsonNode last = keeper.get("/api/v1/verifications/zoned").get("last");
                  return last.isNull() ? Optional.empty() : Optional.of(last);
                });
        assertThat(ran.get("result").asText()).as(ran.toString()).isEqualTo("equal");
        assertThat(keeper.get("/api/v1/verifications/zoned").get("next_run_at").asText())
            .isEqualTo("2026-12-03T16:30:00Z");
        // The one without a schedule never ran by itself; asked for, it runs (and fails).
        assertThat(keeper.get("/api/v1/verifications/down").get("last").isNull()).isTrue();
        assertThat(
                keeper
                    .request(
                        "POST", "/api/v1/verifications/down/run", Optional.of(KeeperFixture.TOKEN))
                    .statusCode())
            .isEqualTo(202);
        JsonNode failed =
            Poll.until(
                "the asked run of down finished",
                WITHIN,
                EVERY,
                () -> {
                  JsonNode last = keeper.get("/api/v1/verifications/down").get("last");
                  return last.isNull() ? Optional.empty() : Optional.of(last);
                });
        assertThat(failed.get("result").asText()).isEqualTo("failed");
      }
    }
  }

  private static boolean firing(KeeperFixture keeper, String subject) throws Exception {
    for (JsonNode item : keeper.get("/api/v1/alerts?state=firing").get("alerts")) {
      if (item.get("rule").asText().equals("verification-different")
          && item.get("subject").asText().equals(subject)) {
        return true;
      }
    }
    return false;
  }
}

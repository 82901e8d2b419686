package dev.floe.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.floe.core.Secret;
import dev.floe.core.alert.AlertChannelSettings;
import dev.floe.core.alert.AlertChannelType;
import dev.floe.core.alert.AlertSettings;
import dev.floe.core.config.KeeperSettings;
import dev.floe.core.optimize.OptimizePolicy;
import dev.floe.iceberg.optimize.UpsertTables;
import dev.floe.iceberg.optimize.UpsertWriter;
import dev.floe.iceberg.optimize.UpsertWriter.Change;
import dev.floe.server.alerts.WebhookReceiver;
import dev.floe.testing.Poll;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The alert API of a real keeper (embedded catalog, real Iceberg table, real HTTP), with a real
 * webhook receiver: a table below its health threshold fires, is notified, silenced, acknowledged,
 * and each route keeps the token rules.
 */
class AlertApiITCase {

  private static final Duration WITHIN = Duration.ofSeconds(60);
  private static final Duration EVERY = Duration.ofMillis(200);
  private static final String HOOK_SECRET = "hook-secret-for-the-api-test";
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path directory;

  private final HttpClient client = HttpClient.newHttpClient();

  @Test
  void anUnhealthyTableFiresAndTheApiShowsSilencesAcknowledgesAndTestSends() throws Exception {
    try (WebhookReceiver receiver = new WebhookReceiver(200, "ok")) {
      KeeperSettings base = KeeperFixture.settings(5, Optional.of(Secret.of(KeeperFixture.TOKEN)));
      AlertChannelSettings ops =
          new AlertChannelSettings(
              "ops",
              AlertChannelType.WEBHOOK,
              Optional.of(receiver.url("/hook?key=not-shown")),
              Optional.of(Secret.of(HOOK_SECRET)),
              List.of());
      KeeperSettings settings =
          base.toBuilder()
              .alerts(
                  new AlertSettings(
                      Duration.ZERO,
                      Optional.of("https://floe.example.com"),
                      Map.of(),
                      List.of(ops),
                      Optional.empty()))
              .build();
      try (KeeperFixture keeper = new KeeperFixture(directory, settings)) {
        Table table =
            UpsertTables.create(
                keeper.catalog.catalog(),
                "sick",
                PartitionSpec.unpartitioned(),
                Map.of(
                    OptimizePolicy.ENABLED,
                    "false",
                    "floe.keeper.alert.table-unhealthy.health-below",
                    "100",
                    "floe.keeper.alert.table-unhealthy.for",
                    "1s"));
        UpsertWriter writer = new UpsertWriter(table);
        for (int commit = 0; commit < 3; commit++) {
          List<Change> changes = new ArrayList<>();
          for (long id = commit * 10L; id < commit * 10L + 10; id++) {
            changes.add(Change.upsert(id, "v" + id));
          }
          writer.append(changes);
        }

        JsonNode alert =
            Poll.until(
                "db.sick fires table-unhealthy",
                WITHIN,
                EVERY,
                () -> {
                  for (JsonNode item : get("/api/v1/alerts?state=firing", keeper).get("alerts")) {
                    if (item.get("rule").asText().equals("table-unhealthy")) {
                      return Optional.of(item);
                    }
                  }
                  return Optional.empty();
                });
        assertThat(alert.get("subject").asText()).isEqualTo("floe/db.sick");
        assertThat(alert.get("link").asText())
            .isEqualTo("https://floe.example.com/tables/db.sick?catalog=floe");
        assertThat(alert.get("silenced").asBoolean()).isFalse();
        long id = alert.get("id").asLong();

        WebhookReceiver.Received received = receiver.next(WITHIN);
        assertThat(received.pathAndQuery()).isEqualTo("/hook?key=not-shown");
        assertThat(received.headers().get("X-Floe-Signature"))
            .isEqualTo("sha256=" + HexFormat.of().formatHex(hmac(received.body())));
        JsonNode body = JSON.readTree(received.body());
        assertThat(body.get("rule").asText()).isEqualTo("table-unhealthy");
        assertThat(body.get("state").asText()).isEqualTo("firing");
        assertThat(body.get("subject").asText()).isEqualTo("floe/db.sick");

        JsonNode detail =
            Poll.until(
                "the delivery is recorded as sent",
                WITHIN,
                EVERY,
                () -> {
                  JsonNode one = get("/api/v1/alerts/" + id, keeper);
                  return one.get("deliveries").size() == 1
                          && one.get("deliveries").get(0).get("status").asText().equals("sent")
                      ? Optional.of(one)
                      : Optional.empty();
                });
        JsonNode attempt = detail.get("deliveries").get(0);
        assertThat(attempt.get("channel").asText()).isEqualTo("ops");
        assertThat(attempt.get("attempt").asInt()).isEqualTo(1);
        assertThat(attempt.get("http_status").asInt()).isEqualTo(200);
        assertThat(attempt.get("error").isNull()).isTrue();
        assertThat(get("/api/v1/overview", keeper).get("alerts_firing").asInt()).isEqualTo(1);

        HttpResponse<String> silenced =
            send(
                keeper,
                "POST",
                "/api/v1/silences",
                "{\"rule\": \"table-unhealthy\", \"subject\": \"*\", \"for\": \"2h\","
                    + " \"reason\": \"rebuilding\"}");
        assertThat(silenced.statusCode()).isEqualTo(201);
        long silence = JSON.readTree(silenced.body()).get("id").asLong();
        assertThat(get("/api/v1/silences", keeper).get("silences").get(0).get("reason").asText())
            .isEqualTo("rebuilding");
        assertThat(get("/api/v1/alerts/" + id, keeper).get("silenced").asBoolean()).isTrue();
        assertThat(send(keeper, "DELETE", "/api/v1/silences/" + silence, "").statusCode())
            .isEqualTo(204);
        assertThat(send(keeper, "DELETE", "/api/v1/silences/" + silence, "").statusCode())
            .isEqualTo(404);
        HttpResponse<String> refused =
            send(keeper, "POST", "/api/v1/silences", "{\"rule\": \"slow\", \"subject\": \"x\"}");
        assertThat(refused.statusCode()).isEqualTo(400);
        assertThat(JSON.readTree(refused.body()).get("error").asText())
            .isEqualTo(
                "rule must be one of table-unhealthy, table-quarantined, capacity-below-target,"
                    + " task-age, sync-stalled, sync-lag, verification-different, table-rewound,"
                    + " catalog-unreachable, got 'slow'");

        HttpResponse<String> channels = send(keeper, "GET", "/api/v1/channels", "");
        assertThat(channels.body()).doesNotContain(HOOK_SECRET).doesNotContain("not-shown");
        JsonNode channel = JSON.readTree(channels.body()).get("channels").get(0);
        assertThat(channel.get("name").asText()).isEqualTo("ops");
        assertThat(channel.get("type").asText()).isEqualTo("webhook");
        assertThat(channel.get("target").asText()).isEqualTo("127.0.0.1");
        assertThat(channel.get("last_delivery_at").isNull()).isFalse();
        assertThat(channel.get("last_error").isNull()).isTrue();

        HttpResponse<String> test = send(keeper, "POST", "/api/v1/channels/ops/test", "");
        assertThat(test.statusCode()).isEqualTo(200);
        assertThat(JSON.readTree(test.body()).get("status").asText()).isEqualTo("sent");
        assertThat(JSON.readTree(receiver.next(WITHIN).body()).get("rule").asText())
            .isEqualTo("test");
        assertThat(send(keeper, "POST", "/api/v1/channels/pager/test", "").statusCode())
            .isEqualTo(404);

        HttpResponse<String> acknowledged =
            send(keeper, "POST", "/api/v1/alerts/" + id + "/acknowledge", "");
        assertThat(acknowledged.statusCode()).isEqualTo(200);
        assertThat(JSON.readTree(acknowledged.body()).get("acknowledged_at").isNull()).isFalse();
        assertThat(send(keeper, "GET", "/api/v1/alerts/999999", "").statusCode()).isEqualTo(404);

        // A sync that reports a lag above sync-lag's 5m fires within a refresh, and resolves when
        // its next report is on time.
        String report =
            "{\"source\": \"mysql://floe@db:3306\", \"state\": \"running\", \"started_at\":"
                + " \"2026-12-02T00:00:00Z\", \"lag_ms\": LAG, \"error\": null, \"tables\": []}";
        assertThat(
                send(keeper, "PUT", "/api/v1/syncs/orders", report.replace("LAG", "600000"))
                    .statusCode())
            .isBetween(200, 204);
        Poll.until(
            "sync orders fires sync-lag",
            WITHIN,
            EVERY,
            () -> firing(keeper, "sync-lag", "orders"));
        assertThat(JSON.readTree(receiver.next(WITHIN).body()).get("message").asText())
            .isEqualTo("sync orders lags 10m behind its source, above 5m");
        send(keeper, "PUT", "/api/v1/syncs/orders", report.replace("LAG", "1000"));
        Poll.until(
            "sync orders resolves", WITHIN, EVERY, () -> !firing(keeper, "sync-lag", "orders"));
        JsonNode resolved = JSON.readTree(receiver.next(WITHIN).body());
        assertThat(resolved.get("rule").asText()).isEqualTo("sync-lag");
        assertThat(resolved.get("state").asText()).isEqualTo("resolved");

        for (String path :
            List.of("/api/v1/alerts", "/api/v1/silences", "/api/v1/channels", "/api/v1/alerts/1")) {
          assertThat(keeper.request("GET", path, Optional.empty()).statusCode()).isEqualTo(401);
          assertThat(keeper.request("GET", path, Optional.of("wrong")).statusCode()).isEqualTo(401);
        }
        assertThat(
                keeper.request("POST", "/api/v1/channels/ops/test", Optional.empty()).statusCode())
            .isEqualTo(401);
      }
    }
  }

  private boolean firing(KeeperFixture keeper, String rule, String subject) throws Exception {
    for (JsonNode item : get("/api/v1/alerts?state=firing", keeper).get("alerts")) {
      if (item.get("rule").asText().equals(rule) && item.get("subject").asText().equals(subject)) {
        return true;
      }
    }
    return false;
  }

  private JsonNode get(String path, KeeperFixture keeper) throws Exception {
    return keeper.get(path);
  }

  private HttpResponse<String> send(KeeperFixture keeper, String method, String path, String body)
      throws Exception {
    return client.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + keeper.http.port() + path))
            .header("Authorization", "Bearer " + KeeperFixture.TOKEN)
            .header("Content-Type", "application/json")
            .method(
                method,
                body.isEmpty()
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static byte[] hmac(String data) throws Exception {
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(HOOK_SECRET.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
    return mac.doFinal(data.getBytes(StandardCharsets.UTF_8));
  }
}

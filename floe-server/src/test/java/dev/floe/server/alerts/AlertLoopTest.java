package dev.floe.server.alerts;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.floe.core.Secret;
import dev.floe.core.alert.AlertChannelSettings;
import dev.floe.core.alert.AlertChannelType;
import dev.floe.core.alert.AlertRule;
import dev.floe.core.alert.AlertSettings;
import dev.floe.core.state.TableKey;
import dev.floe.server.KeeperEvents;
import dev.floe.server.MutableClock;
import dev.floe.server.store.AlertRecord;
import dev.floe.server.store.DeliveryRecord;
import dev.floe.server.store.JdbcKeeperStore;
import dev.floe.server.store.SilenceRecord;
import dev.floe.server.store.TableStatus;
import dev.floe.testing.Poll;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The alert loop over a scripted sequence of states, with the real store (SQLite), real HTTP
 * receivers on loopback checking bodies and signatures, and a clock moved by hand.
 */
class AlertLoopTest {

  private static final Instant T0 = Instant.parse("2026-12-02T08:00:00Z");
  private static final String HOOK_SECRET = "hook-secret-1";
  private static final String DING_SECRET = "ding-secret-2";
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final String LINK_BASE = "https://floe.example.com";
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path directory;

  private final MutableClock clock = new MutableClock(T0);
  private final AtomicBoolean conditionsHold = new AtomicBoolean(true);
  private final List<AutoCloseable> closing = new ArrayList<>();
  private JdbcKeeperStore store;
  private WebhookReceiver ops;
  private WebhookReceiver team;
  private WebhookReceiver broken;

  @BeforeEach
  void open() throws Exception {
    store = JdbcKeeperStore.open(Optional.empty(), Optional.empty(), Optional.empty(), directory);
    ops = new WebhookReceiver(200, "ok");
    team = new WebhookReceiver(200, "{\"errcode\":0,\"errmsg\":\"ok\"}");
    broken = new WebhookReceiver(500, "down for maintenance");
    closing.addAll(List.of(ops, team, broken, store));
  }

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable closeable : closing) {
      closeable.close();
    }
  }

  @Test
  void everyRuleFiresOnceAndResolvesOnceAndAFailingChannelBlocksNoOther() throws Exception {
    List<AlertChannelSettings> channels =
        List.of(
            webhook("ops", ops.url("/hook"), Optional.of(HOOK_SECRET)),
            new AlertChannelSettings(
                "team",
                AlertChannelType.DINGTALK,
                Optional.of(team.url("/robot/send?access_token=abc")),
                Optional.of(Secret.of(DING_SECRET)),
                List.of()),
            webhook("broken", broken.url("/hook"), Optional.empty()),
            webhook(
                "gone", URI.create("http://127.0.0.1:" + freePort() + "/hook"), Optional.empty()));
    AlertDelivery delivery = delivery(channels);
    AlertLoop loop = loop(AlertSettings.defaults(), delivery);

    loop.tick();
    clock.advance(Duration.ofMinutes(31));
    loop.tick();
    clock.advance(Duration.ofMinutes(1));
    loop.tick();
    conditionsHold.set(false);
    AlertRecord rewound =
        store.alerts().firing().stream()
            .filter(alert -> alert.rule().equals("table-rewound"))
            .findFirst()
            .orElseThrow();
    assertThat(loop.acknowledge(rewound.id())).isPresent();
    loop.tick();
    loop.tick();
    delivery.test("ops");

    List<JsonNode> bodies = new ArrayList<>();
    for (int i = 0; i < 18; i++) {
      WebhookReceiver.Received received = ops.next(WAIT);
      assertThat(received.headers().get("X-Floe-Signature"))
          .isEqualTo("sha256=" + HexFormat.of().formatHex(hmac(HOOK_SECRET, received.body())));
      bodies.add(JSON.readTree(received.body()));
    }
    JsonNode marker = JSON.readTree(ops.next(WAIT).body());
    assertThat(marker.get("rule").asText()).isEqualTo("test");
    Set<String> allRules =
        Arrays.stream(AlertRule.values()).map(AlertRule::ruleName).collect(Collectors.toSet());
    assertThat(rulesIn(bodies, "firing")).hasSize(9).containsExactlyInAnyOrderElementsOf(allRules);
    assertThat(rulesIn(bodies, "resolved"))
        .hasSize(9)
        .containsExactlyInAnyOrderElementsOf(allRules);
    assertThat(bodies.subList(0, 9)).allMatch(body -> body.get("state").asText().equals("firing"));

    JsonNode quarantined =
        bodies.stream()
            .filter(body -> body.get("rule").asText().equals("table-quarantined"))
            .findFirst()
            .orElseThrow();
    assertThat(quarantined.get("subject").asText()).isEqualTo("floe/shop.lines");
    assertThat(quarantined.get("link").asText())
        .isEqualTo(LINK_BASE + "/tables/shop.lines?catalog=floe");
    assertThat(quarantined.get("fired_at").asText()).isEqualTo(T0.toString());
    assertThat(quarantined.get("resolved_at").isNull()).isTrue();
    assertThat(quarantined.get("message").asText())
        .startsWith("table floe/shop.lines is quarantined after 5 failed runs in a row");
    JsonNode unhealthy =
        bodies.stream()
            .filter(body -> body.get("rule").asText().equals("table-unhealthy"))
            .findFirst()
            .orElseThrow();
    assertThat(unhealthy.get("fired_at").asText())
        .isEqualTo(T0.plus(Duration.ofMinutes(31)).toString());

    for (int i = 0; i < 18; i++) {
      WebhookReceiver.Received received = team.next(WAIT);
      assertThat(received.pathAndQuery()).startsWith("/robot/send?access_token=abc&timestamp=");
      Map<String, String> query = query(received.pathAndQuery());
      String expected =
          Base64.getEncoder()
              .encodeToString(hmac(DING_SECRET, query.get("timestamp") + "\n" + DING_SECRET));
      assertThat(query.get("sign")).isEqualTo(expected);
      JsonNode body = JSON.readTree(received.body());
      assertThat(body.get("msgtype").asText()).isEqualTo("markdown");
      assertThat(body.at("/markdown/text").asText()).contains("[Open in Floe](" + LINK_BASE);
    }

    long alertId = quarantinedAlert().id();
    List<DeliveryRecord> brokenAttempts =
        Poll.until(
            "three failed attempts to the broken channel",
            WAIT,
            Duration.ofMillis(50),
            () -> {
              List<DeliveryRecord> attempts = attempts(alertId, "broken");
              return attempts.size() >= 6
                      && attempts.stream().noneMatch(a -> a.status().equals(DeliveryRecord.PENDING))
                  ? Optional.of(attempts)
                  : Optional.empty();
            });
    // the firing and the resolution, each tried three times; their retries interleave
    assertThat(brokenAttempts)
        .extracting(DeliveryRecord::attempt)
        .containsExactlyInAnyOrder(1, 1, 2, 2, 3, 3);
    assertThat(brokenAttempts)
        .allMatch(
            attempt ->
                attempt.status().equals("failed") && attempt.httpStatus().equals(Optional.of(500)));
    assertThat(brokenAttempts.get(0).error())
        .contains("HTTP 500 from 127.0.0.1: down for maintenance");
    List<DeliveryRecord> goneAttempts =
        Poll.until(
            "three failed attempts to the unreachable channel",
            WAIT,
            Duration.ofMillis(50),
            () -> {
              List<DeliveryRecord> attempts = attempts(alertId, "gone");
              return attempts.size() >= 6
                      && attempts.stream().noneMatch(a -> a.status().equals(DeliveryRecord.PENDING))
                  ? Optional.of(attempts)
                  : Optional.empty();
            });
    assertThat(goneAttempts).allMatch(attempt -> attempt.status().equals("failed"));
    assertThat(goneAttempts.get(0).error().orElseThrow()).startsWith("cannot reach 127.0.0.1: ");
    assertThat(attempts(alertId, "ops"))
        .extracting(DeliveryRecord::status)
        .containsExactly("sent", "sent");
    assertThat(store.alerts().firing()).isEmpty();
  }

  @Test
  void reNotifyRepeatsAFiringAlertAndASilenceHoldsNotificationsUntilItEnds() throws Exception {
    AlertSettings settings =
        new AlertSettings(
            Duration.ofHours(1), Optional.of(LINK_BASE), Map.of(), List.of(), Optional.empty());
    AlertDelivery delivery = delivery(List.of(webhook("ops", ops.url("/hook"), Optional.empty())));
    List<String> unreachable = new ArrayList<>(List.of("prod"));
    AlertLoop loop =
        new AlertLoop(
            () ->
                new AlertObservations(
                    List.of(),
                    Set.of(),
                    Map.of(),
                    List.of(),
                    List.of(),
                    List.of(),
                    unreachable.stream()
                        .collect(Collectors.toMap(name -> name, name -> "connection refused"))),
            settings,
            store.alerts(),
            delivery,
            new KeeperEvents(store, clock),
            clock,
            Duration.ofSeconds(30),
            LINK_BASE);

    loop.tick();
    clock.advance(Duration.ofMinutes(30));
    loop.tick();
    clock.advance(Duration.ofMinutes(31));
    loop.tick();
    store
        .alerts()
        .insert(
            new SilenceRecord(
                0,
                "catalog-unreachable",
                SilenceRecord.EVERY_SUBJECT,
                clock.instant(),
                clock.instant().plus(Duration.ofHours(2)),
                "maintenance window"));
    clock.advance(Duration.ofMinutes(61));
    loop.tick();
    unreachable.set(0, "staging");
    loop.tick();
    clock.advance(Duration.ofMinutes(60));
    loop.tick();
    delivery.test("ops");

    List<String> seen = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      JsonNode body = JSON.readTree(ops.next(WAIT).body());
      seen.add(
          body.get("rule").asText()
              + " "
              + body.get("subject").asText()
              + " "
              + body.get("state").asText());
    }
    assertThat(seen)
        .containsExactly(
            "catalog-unreachable prod firing",
            "catalog-unreachable prod firing",
            "catalog-unreachable staging firing",
            "test ops firing");
    List<AlertRecord> alerts = store.alerts().alerts(Optional.empty(), 10);
    assertThat(alerts)
        .extracting(AlertRecord::subject, AlertRecord::state)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("staging", "firing"),
            org.assertj.core.groups.Tuple.tuple("prod", "resolved"));
  }

  private AlertLoop loop(AlertSettings defaults, AlertDelivery delivery) {
    AlertSettings settings =
        new AlertSettings(
            defaults.reNotify(), Optional.of(LINK_BASE), Map.of(), List.of(), Optional.empty());
    return new AlertLoop(
        this::observations,
        settings,
        store.alerts(),
        delivery,
        new KeeperEvents(store, clock),
        clock,
        Duration.ofSeconds(30),
        LINK_BASE);
  }

  /** Every rule's condition while {@link #conditionsHold}, none after. */
  private AlertObservations observations() {
    if (!conditionsHold.get()) {
      return new AlertObservations(
          List.of(
              table(new TableKey("floe", "shop.orders"), TableStatus.IDLE, 95, 0),
              table(new TableKey("floe", "shop.lines"), TableStatus.IDLE, 95, 0)),
          Set.of(),
          Map.of(),
          List.of(
              new SyncObservation("users", "running", clock.instant(), 0),
              new SyncObservation("orders", "running", clock.instant(), 1_000)),
          List.of(new VerificationObservation("orders", "equal", clock.instant())),
          List.of(new AlertObservations.Rewound(new TableKey("floe", "shop.orders"), T0, "lost 1")),
          Map.of());
    }
    Instant now = clock.instant();
    return new AlertObservations(
        List.of(
            table(new TableKey("floe", "shop.orders"), TableStatus.IDLE, 30, 0),
            table(new TableKey("floe", "shop.lines"), TableStatus.QUARANTINED, 95, 5)),
        Set.of("remote"),
        Map.of("local", T0.minus(Duration.ofHours(2))),
        List.of(
            new SyncObservation("users", "running", T0.minus(Duration.ofHours(1)), 0),
            new SyncObservation("orders", "running", now, Duration.ofMinutes(10).toMillis())),
        List.of(new VerificationObservation("orders", "different", T0)),
        List.of(
            new AlertObservations.Rewound(
                new TableKey("floe", "shop.orders"), T0, "snapshots 7, 8 are gone")),
        Map.of("prod", "connection refused"));
  }

  private AlertDelivery delivery(List<AlertChannelSettings> channels) {
    AlertDelivery delivery =
        new AlertDelivery(
            channels,
            Optional.empty(),
            store.alerts(),
            clock,
            new AlertDelivery.Backoff(Duration.ofMillis(50), Duration.ofMillis(200), 3),
            (channel, status) -> {});
    closing.add(0, delivery);
    return delivery;
  }

  private AlertRecord quarantinedAlert() {
    return store.alerts().alerts(Optional.empty(), 100).stream()
        .filter(alert -> alert.rule().equals("table-quarantined"))
        .findFirst()
        .orElseThrow();
  }

  private List<DeliveryRecord> attempts(long alertId, String channel) {
    return store.alerts().deliveries(alertId).stream()
        .filter(delivery -> delivery.channel().equals(channel))
        .toList();
  }

  private static List<String> rulesIn(List<JsonNode> bodies, String state) {
    return bodies.stream()
        .filter(body -> body.get("state").asText().equals(state))
        .map(body -> body.get("rule").asText())
        .toList();
  }

  private static AlertChannelSettings webhook(String name, URI url, Optional<String> secret) {
    return new AlertChannelSettings(
        name, AlertChannelType.WEBHOOK, Optional.of(url), secret.map(Secret::of), List.of());
  }

  private static AlertObservations.TableObservation table(
      TableKey key, TableStatus status, int health, int failures) {
    return new AlertObservations.TableObservation(
        key, status, health, failures, Optional.empty(), Map.of());
  }

  private static Map<String, String> query(String pathAndQuery) {
    String query = pathAndQuery.substring(pathAndQuery.indexOf('?') + 1);
    return Arrays.stream(query.split("&"))
        .map(pair -> pair.split("=", 2))
        .collect(
            Collectors.toMap(
                pair -> pair[0], pair -> URLDecoder.decode(pair[1], StandardCharsets.UTF_8)));
  }

  private static byte[] hmac(String key, String data) throws Exception {
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(key.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
    return mac.doFinal(data.getBytes(StandardCharsets.UTF_8));
  }

  private static int freePort() throws Exception {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}

package dev.floe.server.http;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.floe.core.alert.AlertChannelSettings;
import dev.floe.core.alert.AlertRule;
import dev.floe.core.maintenance.DurationText;
import dev.floe.server.alerts.AlertDelivery;
import dev.floe.server.alerts.AlertLoop;
import dev.floe.server.store.AlertRecord;
import dev.floe.server.store.AlertStore;
import dev.floe.server.store.DeliveryRecord;
import dev.floe.server.store.SilenceRecord;
import java.io.IOException;
import java.io.InputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The alert API (docs/keeper.md, "API contract"): {@code /api/v1/alerts} (list, one with its
 * delivery attempts, acknowledge), {@code /api/v1/silences} (list, add, remove) and {@code
 * /api/v1/channels} (list, test-send). A channel's target is its URL's host only, never a secret.
 */
final class AlertRoutes {

  static final String ALERTS = "/api/v1/alerts";
  static final String SILENCES = "/api/v1/silences";
  static final String CHANNELS = "/api/v1/channels";
  private static final int MAX_BODY_BYTES = 64 * 1024;

  private final AlertLoop loop;
  private final AlertStore store;
  private final AlertDelivery delivery;
  private final Clock clock;
  private final ObjectMapper json;

  AlertRoutes(
      AlertLoop loop, AlertStore store, AlertDelivery delivery, Clock clock, ObjectMapper json) {
    this.loop = requireNonNull(loop, "loop is null");
    this.store = requireNonNull(store, "store is null");
    this.delivery = requireNonNull(delivery, "delivery is null");
    this.clock = requireNonNull(clock, "clock is null");
    this.json = requireNonNull(json, "json is null");
  }

  static boolean handles(String path) {
    return List.of(ALERTS, SILENCES, CHANNELS).stream()
        .anyMatch(prefix -> path.equals(prefix) || path.startsWith(prefix + "/"));
  }

  WorkerRoutes.Response handle(
      String method, String path, Map<String, String> query, InputStream body)
      throws IOException, InterruptedException {
    if (path.equals(ALERTS)) {
      requireMethod(method, "GET");
      Optional<String> state = Optional.ofNullable(query.get("state"));
      if (state.isPresent()
          && !state.get().equals(AlertRecord.FIRING)
          && !state.get().equals(AlertRecord.RESOLVED)) {
        return bad("state must be firing or resolved, got '" + state.get() + "'");
      }
      List<SilenceRecord> silences = store.silences(clock.instant());
      List<Map<String, Object>> alerts = new ArrayList<>();
      for (AlertRecord alert : store.alerts(state, limit(query))) {
        alerts.add(summary(alert, silences));
      }
      return new WorkerRoutes.Response(200, Map.of("alerts", alerts));
    }
    if (path.startsWith(ALERTS + "/")) {
      List<String> parts = parts(path, ALERTS);
      long id = id(parts.get(0), "alert");
      if (parts.size() == 2 && parts.get(1).equals("acknowledge")) {
        requireMethod(method, "POST");
        Optional<AlertRecord> acknowledged = loop.acknowledge(id);
        return acknowledged
            .map(alert -> new WorkerRoutes.Response(200, detail(alert)))
            .orElseGet(() -> noAlert(id));
      }
      if (parts.size() != 1) {
        return notFound("no such resource: " + path);
      }
      requireMethod(method, "GET");
      return store
          .alert(id)
          .map(alert -> new WorkerRoutes.Response(200, detail(alert)))
          .orElseGet(() -> noAlert(id));
    }
    if (path.equals(SILENCES)) {
      if (method.equals("GET")) {
        List<Map<String, Object>> silences = new ArrayList<>();
        store.silences(clock.instant()).forEach(silence -> silences.add(silence(silence)));
        return new WorkerRoutes.Response(200, Map.of("silences", silences));
      }
      requireMethod(method, "POST");
      return addSilence(read(body));
    }
    if (path.startsWith(SILENCES + "/")) {
      List<String> parts = parts(path, SILENCES);
      requireMethod(method, "DELETE");
      long id = id(parts.get(0), "silence");
      return store.deleteSilence(id)
          ? new WorkerRoutes.Response(204, null)
          : notFound("no silence " + id + " (it may have ended and been removed)");
    }
    if (path.equals(CHANNELS)) {
      requireMethod(method, "GET");
      List<Map<String, Object>> channels = new ArrayList<>();
      for (AlertChannelSettings channel : delivery.channels()) {
        Map<String, Object> item = new LinkedHashMap<>();
        item.put("name", channel.name());
        item.put("type", channel.type().configName());
        item.put("target", channel.target());
        Optional<DeliveryRecord> last =
            store.channelDeliveries(channel.name(), 20).stream()
                .filter(attempt -> !attempt.status().equals(DeliveryRecord.PENDING))
                .findFirst();
        item.put("last_delivery_at", last.map(attempt -> attempt.at().toString()).orElse(null));
        item.put("last_error", last.flatMap(DeliveryRecord::error).orElse(null));
        channels.add(item);
      }
      return new WorkerRoutes.Response(200, Map.of("channels", channels));
    }
    List<String> parts = parts(path, CHANNELS);
    if (parts.size() == 2 && parts.get(1).equals("test")) {
      requireMethod(method, "POST");
      Optional<DeliveryRecord> attempt = delivery.test(parts.get(0));
      return attempt
          .map(found -> new WorkerRoutes.Response(200, delivery(found)))
          .orElseGet(
              () ->
                  notFound(
                      "no channel "
                          + parts.get(0)
                          + "; keeper.alerts.channels lists "
                          + (delivery.channels().isEmpty()
                              ? "none"
                              : delivery.channels().stream()
                                  .map(AlertChannelSettings::name)
                                  .collect(Collectors.joining(", ")))));
    }
    return notFound("no such resource: " + path);
  }

  private WorkerRoutes.Response addSilence(JsonNode body) {
    String rule = body.path("rule").asText("");
    if (AlertRule.named(rule).isEmpty()) {
      return bad(
          "rule must be one of "
              + Arrays.stream(AlertRule.values())
                  .map(AlertRule::ruleName)
                  .collect(Collectors.joining(", "))
              + ", got '"
              + rule
              + "'");
    }
    String subject = body.path("subject").asText("").trim();
    if (subject.isEmpty()) {
      return bad(
          "subject is required: the alert's subject (e.g. floe/shop.orders), or * for every"
              + " subject of the rule");
    }
    String forText = body.path("for").asText("");
    Optional<Duration> duration = DurationText.parse(forText).filter(d -> !d.isZero());
    if (duration.isEmpty()) {
      return bad("for must be a duration above zero such as 30m, 2h or 1d, got '" + forText + "'");
    }
    Instant now = clock.instant();
    SilenceRecord silence =
        store.insert(
            new SilenceRecord(
                0, rule, subject, now, now.plus(duration.get()), body.path("reason").asText("")));
    loop.wakeUp();
    return new WorkerRoutes.Response(201, silence(silence));
  }

  private Map<String, Object> summary(AlertRecord alert, List<SilenceRecord> silences) {
    Map<String, Object> item = new LinkedHashMap<>();
    Instant now = clock.instant();
    item.put("id", alert.id());
    item.put("rule", alert.rule());
    item.put("subject", alert.subject());
    item.put("state", alert.state());
    item.put("message", alert.message());
    item.put("fired_at", alert.firedAt().toString());
    item.put("resolved_at", alert.resolvedAt().map(Instant::toString).orElse(null));
    item.put("last_notified_at", alert.lastNotifiedAt().map(Instant::toString).orElse(null));
    item.put("acknowledged_at", alert.acknowledgedAt().map(Instant::toString).orElse(null));
    item.put("link", loop.link(alert.link()));
    item.put(
        "silenced",
        silences.stream().anyMatch(silence -> silence.holds(alert.rule(), alert.subject(), now)));
    item.put("deliveries", store.deliveries(alert.id()).size());
    return item;
  }

  private Map<String, Object> detail(AlertRecord alert) {
    Map<String, Object> item = summary(alert, store.silences(clock.instant()));
    List<Map<String, Object>> deliveries = new ArrayList<>();
    store.deliveries(alert.id()).forEach(attempt -> deliveries.add(delivery(attempt)));
    item.put("deliveries", deliveries);
    return item;
  }

  private static Map<String, Object> delivery(DeliveryRecord attempt) {
    Map<String, Object> item = new LinkedHashMap<>();
    item.put("channel", attempt.channel());
    item.put("attempt", attempt.attempt());
    item.put("at", attempt.at().toString());
    item.put("status", attempt.status());
    item.put("http_status", attempt.httpStatus().orElse(null));
    item.put("error", attempt.error().orElse(null));
    return item;
  }

  private static Map<String, Object> silence(SilenceRecord silence) {
    Map<String, Object> item = new LinkedHashMap<>();
    item.put("id", silence.id());
    item.put("rule", silence.rule());
    item.put("subject", silence.subject());
    item.put("created_at", silence.createdAt().toString());
    item.put("until", silence.until().toString());
    item.put("reason", silence.reason());
    return item;
  }

  private JsonNode read(InputStream body) throws IOException {
    byte[] bytes = body.readNBytes(MAX_BODY_BYTES + 1);
    if (bytes.length > MAX_BODY_BYTES) {
      throw new IllegalArgumentException("the body is larger than 64 KiB");
    }
    try {
      JsonNode node = json.readTree(bytes);
      if (node == null || !node.isObject()) {
        throw new IllegalArgumentException(
            "the body must be a JSON object {rule, subject, for, reason}");
      }
      return node;
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalArgumentException(
          "the body is not JSON: "
              + e.getOriginalMessage()
              + "; send {rule, subject, for, reason}");
    }
  }

  private static List<String> parts(String path, String prefix) {
    return Arrays.stream(path.substring(prefix.length() + 1).split("/"))
        .map(part -> URLDecoder.decode(part, StandardCharsets.UTF_8))
        .toList();
  }

  private static long id(String text, String what) {
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(what + " id must be a number, got '" + text + "'");
    }
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
    throw new IllegalArgumentException(
        "limit must be a number from 1 to 10000, got '" + text + "'");
  }

  private static void requireMethod(String method, String expected) {
    if (!method.equals(expected)) {
      throw new IllegalArgumentException(
          "method " + method + " is not allowed here; use " + expected);
    }
  }

  private static WorkerRoutes.Response noAlert(long id) {
    return notFound("no alert " + id + " (alerts are kept for keeper.history-retention)");
  }

  private static WorkerRoutes.Response notFound(String message) {
    return new WorkerRoutes.Response(404, Map.of("error", message));
  }

  private static WorkerRoutes.Response bad(String message) {
    return new WorkerRoutes.Response(400, Map.of("error", message));
  }
}

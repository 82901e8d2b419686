package dev.floe.server.alerts;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.floe.core.Secret;
import dev.floe.core.alert.AlertChannelSettings;
import dev.floe.core.alert.AlertChannelType;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

/** The vendor message shapes and their signatures. */
class AlertMessagesTest {

  private static final Instant SENT = Instant.parse("2026-12-02T08:00:00Z");
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Notification RESOLVED =
      new Notification(
          Optional.of(7L),
          "sync-lag",
          "orders",
          "resolved",
          "sync orders lags 10m",
          "https://floe.example.com/?sync=orders",
          SENT.minusSeconds(600),
          Optional.of(SENT));

  @Test
  void feishuIsSignedWithItsTimestampAndSecret() throws Exception {
    AlertMessages.Request request =
        AlertMessages.request(channel(AlertChannelType.FEISHU, Optional.of("fs")), RESOLVED, SENT);

    JsonNode body = JSON.readTree(request.body());
    assertThat(body.get("msg_type").asText()).isEqualTo("text");
    assertThat(body.at("/content/text").asText())
        .isEqualTo(
            "[RESOLVED] sync-lag orders\nsync orders lags 10m\nhttps://floe.example.com/?sync=orders");
    assertThat(body.get("timestamp").asText()).isEqualTo(Long.toString(SENT.getEpochSecond()));
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(
        new SecretKeySpec(
            (SENT.getEpochSecond() + "\nfs").getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
    assertThat(body.get("sign").asText())
        .isEqualTo(Base64.getEncoder().encodeToString(mac.doFinal(new byte[0])));
  }

  @Test
  void slackAndWecomGetTheirShapes() throws Exception {
    JsonNode slack =
        JSON.readTree(
            AlertMessages.request(channel(AlertChannelType.SLACK, Optional.empty()), RESOLVED, SENT)
                .body());
    assertThat(slack.get("text").asText()).startsWith("[RESOLVED] sync-lag orders\n");
    JsonNode wecom =
        JSON.readTree(
            AlertMessages.request(channel(AlertChannelType.WECOM, Optional.empty()), RESOLVED, SENT)
                .body());
    assertThat(wecom.get("msgtype").asText()).isEqualTo("markdown");
    assertThat(wecom.at("/markdown/content").asText())
        .isEqualTo(
            "### [RESOLVED] sync-lag orders\n\nsync orders lags 10m\n\n[Open in"
                + " Floe](https://floe.example.com/?sync=orders)");
  }

  @Test
  void aVendorsErrorCodeInA200IsARefusal() {
    AlertChannelSettings dingtalk = channel(AlertChannelType.DINGTALK, Optional.empty());
    assertThat(
            AlertMessages.refusal(dingtalk, "{\"errcode\":310000,\"errmsg\":\"sign not match\"}"))
        .contains("the service answered errcode 310000 sign not match");
    assertThat(AlertMessages.refusal(dingtalk, "{\"errcode\":0,\"errmsg\":\"ok\"}")).isEmpty();
    assertThat(
            AlertMessages.refusal(
                channel(AlertChannelType.FEISHU, Optional.empty()),
                "{\"code\":19021,\"msg\":\"sign match fail\"}"))
        .contains("the service answered code 19021 sign match fail");
  }

  private static AlertChannelSettings channel(AlertChannelType type, Optional<String> secret) {
    return new AlertChannelSettings(
        "c",
        type,
        Optional.of(URI.create("https://hooks.example/x")),
        secret.map(Secret::of),
        List.of());
  }
}

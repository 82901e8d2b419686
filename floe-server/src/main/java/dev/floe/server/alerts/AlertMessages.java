package dev.floe.server.alerts;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.floe.core.Secret;
import dev.floe.core.alert.AlertChannelSettings;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Instant;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The HTTP request each channel type gets for a notification: pure, given the time it is sent.
 * Generic webhooks get {@code {rule, subject, state, message, link, fired_at, resolved_at,
 * sent_at}} signed with {@code X-Floe-Signature: sha256=HEX} (HMAC-SHA256 of the body) when the
 * channel has a secret; Slack, DingTalk, Feishu/Lark and WeCom get their incoming-webhook shapes,
 * DingTalk and Feishu signed with their timestamp-and-secret schemes.
 */
public final class AlertMessages {

  /** The header of a signed generic webhook. */
  public static final String SIGNATURE_HEADER = "X-Floe-Signature";

  /** What to send: where, the body (JSON), and extra headers. */
  public record Request(URI uri, String body, Map<String, String> headers) {}

  private static final ObjectMapper JSON = new ObjectMapper();

  private AlertMessages() {}

  public static Request request(
      AlertChannelSettings channel, Notification notification, Instant sentAt) {
    URI url =
        channel
            .url()
            .orElseThrow(
                () -> new IllegalArgumentException("channel " + channel.name() + " has no url"));
    String text = text(notification);
    ObjectNode body = JSON.createObjectNode();
    Map<String, String> headers = new LinkedHashMap<>();
    switch (channel.type()) {
      case WEBHOOK -> {
        body.put("rule", notification.rule());
        body.put("subject", notification.subject());
        body.put("state", notification.state());
        body.put("message", notification.message());
        body.put("link", notification.link());
        body.put("fired_at", notification.firedAt().toString());
        body.put("resolved_at", notification.resolvedAt().map(Instant::toString).orElse(null));
        body.put("sent_at", sentAt.toString());
        String written = write(body);
        channel
            .secret()
            .ifPresent(
                secret ->
                    headers.put(
                        SIGNATURE_HEADER,
                        "sha256="
                            + HexFormat.of()
                                .formatHex(
                                    hmac(
                                        secret.reveal().getBytes(StandardCharsets.UTF_8),
                                        written.getBytes(StandardCharsets.UTF_8)))));
        return new Request(url, written, headers);
      }
      case SLACK -> body.put("text", text);
      case DINGTALK -> {
        body.put("msgtype", "markdown");
        ObjectNode markdown = body.putObject("markdown");
        markdown.put("title", notification.title());
        markdown.put("text", markdownText(notification));
        if (channel.secret().isPresent()) {
          url = dingTalkSigned(url, channel.secret().get(), sentAt);
        }
      }
      case FEISHU -> {
        if (channel.secret().isPresent()) {
          long timestamp = sentAt.getEpochSecond();
          body.put("timestamp", Long.toString(timestamp));
          body.put("sign", feishuSign(channel.secret().get(), timestamp));
        }
        body.put("msg_type", "text");
        body.putObject("content").put("text", text);
      }
      case WECOM -> {
        body.put("msgtype", "markdown");
        body.putObject("markdown").put("content", markdownText(notification));
      }
      case EMAIL -> throw new IllegalArgumentException("e-mail is not sent over HTTP");
      default -> throw new IllegalStateException("unknown channel type " + channel.type());
    }
    return new Request(url, write(body), headers);
  }

  /** Plain text: the title, the message and the link. */
  public static String text(Notification notification) {
    return notification.title() + "\n" + notification.message() + "\n" + notification.link();
  }

  private static String markdownText(Notification notification) {
    return "### "
        + notification.title()
        + "\n\n"
        + notification.message()
        + "\n\n[Open in Floe]("
        + notification.link()
        + ")";
  }

  /**
   * DingTalk's robot signature: {@code timestamp} (ms) and {@code sign}, the URL-encoded Base64
   * HMAC-SHA256 of {@code timestamp + "\n" + secret} keyed by the secret, added to the URL.
   */
  static URI dingTalkSigned(URI url, Secret secret, Instant sentAt) {
    long timestamp = sentAt.toEpochMilli();
    String sign =
        Base64.getEncoder()
            .encodeToString(
                hmac(
                    secret.reveal().getBytes(StandardCharsets.UTF_8),
                    (timestamp + "\n" + secret.reveal()).getBytes(StandardCharsets.UTF_8)));
    String separator = url.getRawQuery() == null ? "?" : "&";
    return URI.create(
        url
            + separator
            + "timestamp="
            + timestamp
            + "&sign="
            + URLEncoder.encode(sign, StandardCharsets.UTF_8));
  }

  /**
   * Feishu/Lark's bot signature: the Base64 HMAC-SHA256 of no data keyed by {@code timestamp + "\n"
   * + secret} (timestamp in seconds).
   */
  static String feishuSign(Secret secret, long timestampSeconds) {
    return Base64.getEncoder()
        .encodeToString(
            hmac(
                (timestampSeconds + "\n" + secret.reveal()).getBytes(StandardCharsets.UTF_8),
                new byte[0]));
  }

  static byte[] hmac(byte[] key, byte[] data) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      return mac.doFinal(data);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is not available in this JVM", e);
    }
  }

  /**
   * Whether a 2xx answer's body says the message was taken: DingTalk and WeCom answer {@code
   * errcode}, Feishu {@code code}, 0 when accepted; other types accept any 2xx.
   */
  static Optional<String> refusal(AlertChannelSettings channel, String answer) {
    String field =
        switch (channel.type()) {
          case DINGTALK, WECOM -> "errcode";
          case FEISHU -> "code";
          default -> null;
        };
    if (field == null) {
      return Optional.empty();
    }
    try {
      var node = JSON.readTree(answer);
      if (node != null && node.has(field) && node.get(field).asLong() != 0) {
        String detail = node.path(field.equals("code") ? "msg" : "errmsg").asText("");
        return Optional.of(
            "the service answered " + field + " " + node.get(field).asText() + " " + detail);
      }
      return Optional.empty();
    } catch (java.io.IOException e) {
      return Optional.empty();
    }
  }

  private static String write(ObjectNode body) {
    try {
      return JSON.writeValueAsString(body);
    } catch (java.io.IOException e) {
      throw new IllegalStateException("cannot write a JSON message", e);
    }
  }
}

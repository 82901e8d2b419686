package dev.floe.server.alerts;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.util.Optional;

/**
 * One message to send to a channel: an alert's firing (or repeat) or resolution, or a test.
 *
 * @param alertId the alert notified; empty for a channel's test message
 * @param state firing or resolved
 * @param link the absolute URL of the dashboard page of the subject
 */
public record Notification(
    Optional<Long> alertId,
    String rule,
    String subject,
    String state,
    String message,
    String link,
    Instant firedAt,
    Optional<Instant> resolvedAt) {
  public Notification {
    requireNonNull(alertId, "alertId is null");
    requireNonNull(rule, "rule is null");
    requireNonNull(subject, "subject is null");
    requireNonNull(state, "state is null");
    requireNonNull(message, "message is null");
    requireNonNull(link, "link is null");
    requireNonNull(firedAt, "firedAt is null");
    requireNonNull(resolvedAt, "resolvedAt is null");
  }

  /**
   * The one-line title every format starts with, e.g. {@code [FIRING] table-unhealthy floe/a.b}.
   */
  public String title() {
    return "[" + state.toUpperCase(java.util.Locale.ROOT) + "] " + rule + " " + subject;
  }
}

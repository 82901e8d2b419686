package dev.floe.server.alerts;

import static java.util.Objects.requireNonNull;

/**
 * A rule's condition holding now for one subject.
 *
 * @param message what holds, for people (names the subject and the threshold crossed)
 * @param link the dashboard path of the subject
 */
public record AlertCondition(AlertKey key, String message, String link) {
  public AlertCondition {
    requireNonNull(key, "key is null");
    requireNonNull(message, "message is null");
    requireNonNull(link, "link is null");
  }
}

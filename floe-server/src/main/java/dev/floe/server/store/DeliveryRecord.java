package dev.floe.server.store;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.util.Optional;

/**
 * One attempt to deliver a notification to a channel.
 *
 * @param id the store's id; 0 before it is stored
 * @param alertId the alert notified; empty for a channel's test message
 * @param attempt 1 for the first attempt, counting retries
 * @param at when it was queued (pending) or made (sent, failed)
 * @param status {@link #PENDING}, {@link #SENT} or {@link #FAILED}
 * @param httpStatus the receiver's answer, when there was one
 * @param error why it failed; never holds a secret
 */
public record DeliveryRecord(
    long id,
    Optional<Long> alertId,
    String channel,
    int attempt,
    Instant at,
    String status,
    Optional<Integer> httpStatus,
    Optional<String> error) {

  public static final String PENDING = "pending";
  public static final String SENT = "sent";
  public static final String FAILED = "failed";

  public DeliveryRecord {
    requireNonNull(alertId, "alertId is null");
    requireNonNull(channel, "channel is null");
    requireNonNull(at, "at is null");
    requireNonNull(status, "status is null");
    requireNonNull(httpStatus, "httpStatus is null");
    requireNonNull(error, "error is null");
  }

  public static DeliveryRecord pending(
      Optional<Long> alertId, String channel, int attempt, Instant at) {
    return new DeliveryRecord(
        0, alertId, channel, attempt, at, PENDING, Optional.empty(), Optional.empty());
  }

  public DeliveryRecord finished(
      Instant when, String newStatus, Optional<Integer> answer, Optional<String> why) {
    return new DeliveryRecord(id, alertId, channel, attempt, when, newStatus, answer, why);
  }

  public DeliveryRecord withId(long newId) {
    return new DeliveryRecord(newId, alertId, channel, attempt, at, status, httpStatus, error);
  }
}

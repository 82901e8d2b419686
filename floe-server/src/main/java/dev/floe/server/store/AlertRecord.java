package dev.floe.server.store;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.util.Optional;

/**
 * One alert: a (rule, subject) that fired, and, once its condition cleared, resolved. A (rule,
 * subject) that fires again after resolving is a new alert, so the history keeps each episode.
 *
 * @param id the store's id; 0 before it is stored
 * @param state {@link #FIRING} or {@link #RESOLVED}
 * @param link the dashboard path of the subject, e.g. {@code /tables/shop.orders?catalog=floe}
 * @param lastNotifiedAt when a notification was last queued for it; empty while none was (a
 *     silenced alert)
 */
public record AlertRecord(
    long id,
    String rule,
    String subject,
    String state,
    String message,
    String link,
    Instant firedAt,
    Optional<Instant> resolvedAt,
    Optional<Instant> lastNotifiedAt,
    Optional<Instant> acknowledgedAt) {

  public static final String FIRING = "firing";
  public static final String RESOLVED = "resolved";

  public AlertRecord {
    requireNonNull(rule, "rule is null");
    requireNonNull(subject, "subject is null");
    requireNonNull(state, "state is null");
    requireNonNull(message, "message is null");
    requireNonNull(link, "link is null");
    requireNonNull(firedAt, "firedAt is null");
    requireNonNull(resolvedAt, "resolvedAt is null");
    requireNonNull(lastNotifiedAt, "lastNotifiedAt is null");
    requireNonNull(acknowledgedAt, "acknowledgedAt is null");
  }

  public static AlertRecord fired(
      String rule, String subject, String message, String link, Instant at) {
    return new AlertRecord(
        0,
        rule,
        subject,
        FIRING,
        message,
        link,
        at,
        Optional.empty(),
        Optional.empty(),
        Optional.empty());
  }

  public boolean firing() {
    return state.equals(FIRING);
  }

  public AlertRecord withId(long newId) {
    return new AlertRecord(
        newId,
        rule,
        subject,
        state,
        message,
        link,
        firedAt,
        resolvedAt,
        lastNotifiedAt,
        acknowledgedAt);
  }

  public AlertRecord withMessage(String newMessage) {
    return new AlertRecord(
        id,
        rule,
        subject,
        state,
        newMessage,
        link,
        firedAt,
        resolvedAt,
        lastNotifiedAt,
        acknowledgedAt);
  }

  public AlertRecord resolved(Instant at) {
    return new AlertRecord(
        id,
        rule,
        subject,
        RESOLVED,
        message,
        link,
        firedAt,
        Optional.of(at),
        lastNotifiedAt,
        acknowledgedAt);
  }

  public AlertRecord notified(Instant at) {
    return new AlertRecord(
        id,
        rule,
        subject,
        state,
        message,
        link,
        firedAt,
        resolvedAt,
        Optional.of(at),
        acknowledgedAt);
  }

  public AlertRecord acknowledged(Instant at) {
    return new AlertRecord(
        id,
        rule,
        subject,
        state,
        message,
        link,
        firedAt,
        resolvedAt,
        lastNotifiedAt,
        Optional.of(at));
  }
}

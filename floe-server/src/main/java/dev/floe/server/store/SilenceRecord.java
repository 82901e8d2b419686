package dev.floe.server.store;

import static java.util.Objects.requireNonNull;

import java.time.Instant;

/**
 * Notifications of a rule's alerts held until a time.
 *
 * @param id the store's id; 0 before it is stored
 * @param subject the subject silenced, or {@link #EVERY_SUBJECT}
 */
public record SilenceRecord(
    long id, String rule, String subject, Instant createdAt, Instant until, String reason) {

  public static final String EVERY_SUBJECT = "*";

  public SilenceRecord {
    requireNonNull(rule, "rule is null");
    requireNonNull(subject, "subject is null");
    requireNonNull(createdAt, "createdAt is null");
    requireNonNull(until, "until is null");
    requireNonNull(reason, "reason is null");
  }

  /** Whether it holds the notifications of this alert at {@code now}. */
  public boolean holds(String alertRule, String alertSubject, Instant now) {
    return rule.equals(alertRule)
        && (subject.equals(EVERY_SUBJECT) || subject.equals(alertSubject))
        && now.isBefore(until);
  }

  public SilenceRecord withId(long newId) {
    return new SilenceRecord(newId, rule, subject, createdAt, until, reason);
  }
}

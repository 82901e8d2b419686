package dev.floe.server.alerts;

import static java.util.Objects.requireNonNull;

import dev.floe.core.alert.AlertRule;

/** What an alert is about: a rule and its subject (a table as CATALOG/NS.NAME, a group, ...). */
public record AlertKey(AlertRule rule, String subject) {
  public AlertKey {
    requireNonNull(rule, "rule is null");
    requireNonNull(subject, "subject is null");
  }
}

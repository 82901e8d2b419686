package dev.floe.core.alert;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The {@code keeper.alerts} section.
 *
 * @param reNotify how often a firing alert is notified again; zero: never
 * @param linkBase the dashboard's URL base for the links in messages; empty: the keeper's listen
 *     address
 * @param rules every rule's settings (a rule not configured has its defaults)
 * @param channels where notifications go
 * @param smtp the mail server of e-mail channels
 */
public record AlertSettings(
    Duration reNotify,
    Optional<String> linkBase,
    Map<AlertRule, AlertRuleSettings> rules,
    List<AlertChannelSettings> channels,
    Optional<SmtpSettings> smtp) {

  public static final Duration DEFAULT_RE_NOTIFY = Duration.ZERO;

  public AlertSettings {
    requireNonNull(reNotify, "reNotify is null");
    requireNonNull(linkBase, "linkBase is null");
    EnumMap<AlertRule, AlertRuleSettings> all = new EnumMap<>(AlertRule.class);
    for (AlertRule rule : AlertRule.values()) {
      all.put(rule, AlertRuleSettings.defaults(rule));
    }
    all.putAll(requireNonNull(rules, "rules is null"));
    rules = Map.copyOf(all);
    channels = List.copyOf(requireNonNull(channels, "channels is null"));
    requireNonNull(smtp, "smtp is null");
  }

  /** Every rule with its defaults, no channel. */
  public static AlertSettings defaults() {
    return new AlertSettings(
        DEFAULT_RE_NOTIFY, Optional.empty(), Map.of(), List.of(), Optional.empty());
  }

  public AlertRuleSettings rule(AlertRule rule) {
    return rules.get(rule);
  }
}

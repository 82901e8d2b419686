package dev.floe.core.alert;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.Map;

/**
 * One rule as configured under {@code keeper.alerts.rules.RULE}.
 *
 * @param thresholds the values written, by threshold key (a number, or milliseconds); a threshold
 *     not written has its default
 */
public record AlertRuleSettings(AlertRule rule, boolean enabled, Map<String, Long> thresholds) {

  public AlertRuleSettings {
    requireNonNull(rule, "rule is null");
    thresholds = Map.copyOf(requireNonNull(thresholds, "thresholds is null"));
  }

  public static AlertRuleSettings defaults(AlertRule rule) {
    return new AlertRuleSettings(rule, true, Map.of());
  }

  /** The value of a threshold: as written, else its default. */
  public long value(String key) {
    AlertThreshold threshold =
        rule.threshold(key)
            .orElseThrow(
                () -> new IllegalArgumentException(rule.ruleName() + " has no threshold " + key));
    return thresholds.getOrDefault(key, threshold.defaultValue());
  }

  public Duration duration(String key) {
    return Duration.ofMillis(value(key));
  }
}

package dev.floe.core.alert;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The keeper's built-in alert rules (docs/keeper.md, "Alerts"), each with its subject and
 * thresholds. The names are a contract: floe.yaml ({@code keeper.alerts.rules.NAME}), table
 * properties ({@code floe.keeper.alert.NAME.KEY}) and the API use them.
 */
public enum AlertRule {
  TABLE_UNHEALTHY(
      "table-unhealthy",
      "table",
      AlertThreshold.number(
          "health-below", 60, 1, 100, "fires while the table's health (0-100) is below this"),
      AlertThreshold.duration(
          "for", Duration.ofMinutes(30), "for at least this long without a break")),
  TABLE_QUARANTINED(
      "table-quarantined",
      "table",
      AlertThreshold.number(
          "failures",
          2,
          1,
          Long.MAX_VALUE,
          "fires while the table is quarantined or its last this many optimize runs failed")),
  CAPACITY_BELOW_TARGET("capacity-below-target", "worker group"),
  TASK_AGE(
      "task-age",
      "worker group",
      AlertThreshold.duration(
          "above",
          Duration.ofHours(1),
          "fires while the group's oldest queued task waits longer than this")),
  SYNC_STALLED(
      "sync-stalled",
      "sync",
      AlertThreshold.duration(
          "after",
          Duration.ofMinutes(1),
          "fires when the sync sent no report for this long, or reported failed")),
  SYNC_LAG(
      "sync-lag",
      "sync",
      AlertThreshold.duration(
          "above", Duration.ofMinutes(5), "fires while the sync's lag is above this")),
  VERIFICATION_DIFFERENT("verification-different", "verification"),
  TABLE_REWOUND(
      "table-rewound",
      "table",
      AlertThreshold.duration(
          "for",
          Duration.ofHours(24),
          "stays firing this long after the table's history was rewound, unless acknowledged")),
  CATALOG_UNREACHABLE("catalog-unreachable", "catalog");

  private final String ruleName;
  private final String subjectKind;
  private final List<AlertThreshold> thresholds;

  AlertRule(String ruleName, String subjectKind, AlertThreshold... thresholds) {
    this.ruleName = ruleName;
    this.subjectKind = subjectKind;
    this.thresholds = List.of(thresholds);
  }

  /** As written in floe.yaml, table properties and the API. */
  public String ruleName() {
    return ruleName;
  }

  /** What its subjects are: table, worker group, sync, verification or catalog. */
  public String subjectKind() {
    return subjectKind;
  }

  public List<AlertThreshold> thresholds() {
    return thresholds;
  }

  public Optional<AlertThreshold> threshold(String key) {
    return thresholds.stream().filter(threshold -> threshold.key().equals(key)).findFirst();
  }

  /** Whether table properties may override it ({@code floe.keeper.alert.RULE.KEY}). */
  public boolean ofTables() {
    return subjectKind.equals("table");
  }

  public static Optional<AlertRule> named(String name) {
    return Arrays.stream(values()).filter(rule -> rule.ruleName.equals(name)).findFirst();
  }
}

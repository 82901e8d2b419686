package dev.floe.server.alerts;

import static java.util.Objects.requireNonNull;

import dev.floe.core.alert.AlertRule;
import dev.floe.core.alert.AlertRuleSettings;
import dev.floe.core.alert.AlertSettings;
import dev.floe.core.alert.AlertThreshold;
import dev.floe.core.maintenance.DurationText;
import dev.floe.core.state.TableKey;
import dev.floe.server.store.TableStatus;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The built-in alert rules as one pure function: the facts seen now, the rules' settings and what
 * the loop remembers -> the conditions that hold now. No I/O, no clock.
 */
public final class AlertRules {

  /** The table property that opts a table out of every rule. */
  public static final String TABLE_ENABLED = "floe.keeper.alert.enabled";

  /** The prefix of the table properties that override a rule: {@code PREFIX RULE.KEY}. */
  public static final String TABLE_PREFIX = "floe.keeper.alert.";

  /**
   * What the loop carries from one evaluation to the next.
   *
   * @param firing the keys firing now; a firing key whose condition still holds stays firing
   *     (without waiting for {@code for} again)
   * @param pendingSince since when each condition with a {@code for} has held without a break
   * @param acknowledged per key, when its latest alert was acknowledged
   */
  public record Memory(
      Set<AlertKey> firing,
      Map<AlertKey, Instant> pendingSince,
      Map<AlertKey, Instant> acknowledged) {
    public Memory {
      firing = Set.copyOf(requireNonNull(firing, "firing is null"));
      pendingSince = Map.copyOf(requireNonNull(pendingSince, "pendingSince is null"));
      acknowledged = Map.copyOf(requireNonNull(acknowledged, "acknowledged is null"));
    }

    public static Memory empty() {
      return new Memory(Set.of(), Map.of(), Map.of());
    }
  }

  /**
   * The outcome of one evaluation.
   *
   * @param holding the conditions that hold now, one per key, in a stable order
   * @param pendingSince the next {@link Memory#pendingSince()}
   * @param problems table properties that could not be used, each a message naming the table, the
   *     property, the value and the fix
   */
  public record Evaluation(
      List<AlertCondition> holding, Map<AlertKey, Instant> pendingSince, List<String> problems) {
    public Evaluation {
      holding = List.copyOf(holding);
      pendingSince = Map.copyOf(pendingSince);
      problems = List.copyOf(problems);
    }
  }

  private AlertRules() {}

  public static Evaluation evaluate(
      AlertObservations observations, AlertSettings settings, Memory memory, Instant now) {
    requireNonNull(observations, "observations is null");
    requireNonNull(settings, "settings is null");
    requireNonNull(memory, "memory is null");
    requireNonNull(now, "now is null");
    List<AlertCondition> holding = new ArrayList<>();
    Map<AlertKey, Instant> pending = new HashMap<>();
    List<String> problems = new ArrayList<>();

    for (AlertObservations.TableObservation table : observations.tables()) {
      Map<String, String> properties = table.properties();
      if ("false".equalsIgnoreCase(properties.getOrDefault(TABLE_ENABLED, "true").trim())) {
        continue;
      }
      String subject = subject(table.key());
      String link = tableLink(table.key());
      Optional<Thresholds> unhealthy =
          thresholds(settings, AlertRule.TABLE_UNHEALTHY, table, problems);
      if (unhealthy.isPresent()) {
        long below = unhealthy.get().value("health-below");
        if (table.health() < below) {
          AlertKey key = new AlertKey(AlertRule.TABLE_UNHEALTHY, subject);
          Duration hold = unhealthy.get().duration("for");
          Instant since = memory.pendingSince().getOrDefault(key, now);
          pending.put(key, since);
          if (memory.firing().contains(key) || !since.plus(hold).isAfter(now)) {
            holding.add(
                new AlertCondition(
                    key,
                    "table "
                        + subject
                        + " has health "
                        + table.health()
                        + ", below "
                        + below
                        + " since "
                        + since,
                    link));
          }
        }
      }
      Optional<Thresholds> quarantined =
          thresholds(settings, AlertRule.TABLE_QUARANTINED, table, problems);
      if (quarantined.isPresent()) {
        long failures = quarantined.get().value("failures");
        boolean isQuarantined = table.status() == TableStatus.QUARANTINED;
        if (isQuarantined || table.consecutiveFailures() >= failures) {
          holding.add(
              new AlertCondition(
                  new AlertKey(AlertRule.TABLE_QUARANTINED, subject),
                  "table "
                      + subject
                      + (isQuarantined
                          ? " is quarantined after "
                              + table.consecutiveFailures()
                              + " failed runs in a row (release it with POST"
                              + " /api/v1/tables/"
                              + table.key().table()
                              + "/resume)"
                          : " failed its last " + table.consecutiveFailures() + " optimize runs")
                      + table.lastError().map(error -> "; last error: " + error).orElse(""),
                  link));
        }
      }
    }

    for (AlertObservations.Rewound rewound : observations.rewound()) {
      AlertObservations.TableObservation table =
          observations.tables().stream()
              .filter(candidate -> candidate.key().equals(rewound.key()))
              .findFirst()
              .orElse(null);
      if (table != null
          && "false".equalsIgnoreCase(table.properties().getOrDefault(TABLE_ENABLED, "true"))) {
        continue;
      }
      Optional<Thresholds> thresholds =
          table == null
              ? enabled(settings, AlertRule.TABLE_REWOUND).map(Thresholds::new)
              : thresholds(settings, AlertRule.TABLE_REWOUND, table, problems);
      if (thresholds.isEmpty()) {
        continue;
      }
      AlertKey key = new AlertKey(AlertRule.TABLE_REWOUND, subject(rewound.key()));
      boolean expired = !rewound.at().plus(thresholds.get().duration("for")).isAfter(now);
      boolean acknowledged =
          Optional.ofNullable(memory.acknowledged().get(key))
              .map(at -> !at.isBefore(rewound.at()))
              .orElse(false);
      if (!expired && !acknowledged) {
        holding.add(
            new AlertCondition(
                key,
                "table "
                    + key.subject()
                    + " was rewound at "
                    + rewound.at()
                    + ": "
                    + rewound.message(),
                tableLink(rewound.key())));
      }
    }

    if (enabled(settings, AlertRule.CAPACITY_BELOW_TARGET).isPresent()) {
      observations.groupsBelowTarget().stream()
          .sorted()
          .forEach(
              group ->
                  holding.add(
                      new AlertCondition(
                          new AlertKey(AlertRule.CAPACITY_BELOW_TARGET, group),
                          "worker group " + group + " is below its target of live workers",
                          "/workers")));
    }
    enabled(settings, AlertRule.TASK_AGE)
        .ifPresent(
            rule -> {
              Duration above = rule.duration("above");
              observations.oldestQueuedTask().entrySet().stream()
                  .sorted(Map.Entry.comparingByKey())
                  .forEach(
                      entry -> {
                        Duration age = Duration.between(entry.getValue(), now);
                        if (age.compareTo(above) > 0) {
                          holding.add(
                              new AlertCondition(
                                  new AlertKey(AlertRule.TASK_AGE, entry.getKey()),
                                  "worker group "
                                      + entry.getKey()
                                      + "'s oldest queued task has waited "
                                      + DurationText.format(truncate(age))
                                      + " (since "
                                      + entry.getValue()
                                      + "), above "
                                      + DurationText.format(above),
                                  "/workers"));
                        }
                      });
            });

    Optional<AlertRuleSettings> stalled = enabled(settings, AlertRule.SYNC_STALLED);
    Optional<AlertRuleSettings> lagging = enabled(settings, AlertRule.SYNC_LAG);
    for (SyncObservation sync :
        observations.syncs().stream()
            .sorted(Comparator.comparing(SyncObservation::name))
            .toList()) {
      String link = "/?sync=" + encode(sync.name());
      if (stalled.isPresent()) {
        Duration after = stalled.get().duration("after");
        Duration silent = Duration.between(sync.reportedAt(), now);
        if (sync.state().equals("failed")) {
          holding.add(
              new AlertCondition(
                  new AlertKey(AlertRule.SYNC_STALLED, sync.name()),
                  "sync " + sync.name() + " reported failed at " + sync.reportedAt(),
                  link));
        } else if (!sync.state().equals("stopped") && silent.compareTo(after) > 0) {
          holding.add(
              new AlertCondition(
                  new AlertKey(AlertRule.SYNC_STALLED, sync.name()),
                  "sync "
                      + sync.name()
                      + " has sent no report since "
                      + sync.reportedAt()
                      + " ("
                      + DurationText.format(truncate(silent))
                      + ", more than "
                      + DurationText.format(after)
                      + ")",
                  link));
        }
      }
      if (lagging.isPresent() && sync.lagMs() >= 0 && sync.state().equals("running")) {
        Duration above = lagging.get().duration("above");
        if (sync.lagMs() > above.toMillis()) {
          holding.add(
              new AlertCondition(
                  new AlertKey(AlertRule.SYNC_LAG, sync.name()),
                  "sync "
                      + sync.name()
                      + " lags "
                      + DurationText.format(truncate(Duration.ofMillis(sync.lagMs())))
                      + " behind its source, above "
                      + DurationText.format(above),
                  link));
        }
      }
    }

    if (enabled(settings, AlertRule.VERIFICATION_DIFFERENT).isPresent()) {
      observations.verifications().stream()
          .sorted(Comparator.comparing(VerificationObservation::name))
          .filter(run -> run.result().equals("different") || run.result().equals("failed"))
          .forEach(
              run ->
                  holding.add(
                      new AlertCondition(
                          new AlertKey(AlertRule.VERIFICATION_DIFFERENT, run.name()),
                          "verification "
                              + run.name()
                              + (run.result().equals("different")
                                  ? " found differences"
                                  : " failed")
                              + " in its run finished at "
                              + run.finishedAt(),
                          "/verifications?name=" + encode(run.name()))));
    }

    if (enabled(settings, AlertRule.CATALOG_UNREACHABLE).isPresent()) {
      observations.unreachableCatalogs().entrySet().stream()
          .sorted(Map.Entry.comparingByKey())
          .forEach(
              entry ->
                  holding.add(
                      new AlertCondition(
                          new AlertKey(AlertRule.CATALOG_UNREACHABLE, entry.getKey()),
                          "catalog " + entry.getKey() + " cannot be listed: " + entry.getValue(),
                          "/tables?catalog=" + encode(entry.getKey()))));
    }
    return new Evaluation(holding, pending, problems);
  }

  /** How an alert names a table: {@code CATALOG/NS.NAME}. */
  public static String subject(TableKey key) {
    return key.catalog() + "/" + key.table();
  }

  /** The dashboard page of a table. */
  public static String tableLink(TableKey key) {
    return "/tables/" + encode(key.table()) + "?catalog=" + encode(key.catalog());
  }

  private static Optional<AlertRuleSettings> enabled(AlertSettings settings, AlertRule rule) {
    AlertRuleSettings configured = settings.rule(rule);
    return configured.enabled() ? Optional.of(configured) : Optional.empty();
  }

  /**
   * The rule's thresholds for a table, with the table's overrides; empty when the rule is off for
   * it. An override that cannot be read is reported and the configured value used.
   */
  private static Optional<Thresholds> thresholds(
      AlertSettings settings,
      AlertRule rule,
      AlertObservations.TableObservation table,
      List<String> problems) {
    AlertRuleSettings configured = settings.rule(rule);
    String enabledProperty = TABLE_PREFIX + rule.ruleName() + ".enabled";
    Optional<String> enabled = Optional.ofNullable(table.properties().get(enabledProperty));
    boolean on = enabled.map(value -> !value.trim().equalsIgnoreCase("false")).orElse(true);
    if (!configured.enabled() || !on) {
      return Optional.empty();
    }
    Thresholds thresholds = new Thresholds(configured);
    for (AlertThreshold threshold : rule.thresholds()) {
      String property = TABLE_PREFIX + rule.ruleName() + "." + threshold.key();
      String text = table.properties().get(property);
      if (text == null) {
        continue;
      }
      Optional<Long> value = threshold.parse(text);
      if (value.isPresent()) {
        thresholds.overrides.put(threshold.key(), value.get());
      } else {
        problems.add(
            "table "
                + subject(table.key())
                + " has the property "
                + property
                + "='"
                + text
                + "', which is not "
                + threshold.range()
                + "; the rule uses "
                + (threshold.type() == AlertThreshold.Type.DURATION
                    ? DurationText.format(configured.duration(threshold.key()))
                    : Long.toString(configured.value(threshold.key())))
                + ". Fix the property or remove it.");
      }
    }
    return Optional.of(thresholds);
  }

  private static Duration truncate(Duration duration) {
    return Duration.ofSeconds(duration.toSeconds());
  }

  private static String encode(String text) {
    return URLEncoder.encode(text, StandardCharsets.UTF_8);
  }

  /** A rule's thresholds for one subject: the configured values, with a table's overrides. */
  private static final class Thresholds {
    private final AlertRuleSettings configured;
    private final Map<String, Long> overrides = new HashMap<>();

    Thresholds(AlertRuleSettings configured) {
      this.configured = configured;
    }

    long value(String key) {
      return overrides.getOrDefault(key, configured.value(key));
    }

    Duration duration(String key) {
      return Duration.ofMillis(value(key));
    }
  }
}

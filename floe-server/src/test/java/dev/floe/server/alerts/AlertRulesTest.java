package dev.floe.server.alerts;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.core.alert.AlertRule;
import dev.floe.core.alert.AlertRuleSettings;
import dev.floe.core.alert.AlertSettings;
import dev.floe.core.state.TableKey;
import dev.floe.server.store.TableStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The rules as a pure function: facts and settings in, the conditions that hold out. */
class AlertRulesTest {

  private static final Instant NOW = Instant.parse("2026-12-02T12:00:00Z");
  private static final TableKey ORDERS = new TableKey("floe", "shop.orders");
  private static final AlertSettings DEFAULTS = AlertSettings.defaults();

  @Test
  void anUnhealthyTableFiresOnlyAfterItsForHasPassed() {
    AlertObservations sick = tables(table(ORDERS, TableStatus.IDLE, 40, 0, Map.of()));

    AlertRules.Evaluation first =
        AlertRules.evaluate(sick, DEFAULTS, AlertRules.Memory.empty(), NOW);
    AlertKey key = new AlertKey(AlertRule.TABLE_UNHEALTHY, "floe/shop.orders");
    assertThat(first.holding()).isEmpty();
    assertThat(first.pendingSince()).containsEntry(key, NOW);

    AlertRules.Memory memory = new AlertRules.Memory(Set.of(), first.pendingSince(), Map.of());
    assertThat(
            AlertRules.evaluate(sick, DEFAULTS, memory, NOW.plus(Duration.ofMinutes(29))).holding())
        .isEmpty();
    AlertRules.Evaluation due =
        AlertRules.evaluate(sick, DEFAULTS, memory, NOW.plus(Duration.ofMinutes(30)));
    assertThat(due.holding())
        .containsExactly(
            new AlertCondition(
                key,
                "table floe/shop.orders has health 40, below 60 since " + NOW,
                "/tables/shop.orders?catalog=floe"));

    AlertObservations healthy = tables(table(ORDERS, TableStatus.IDLE, 90, 0, Map.of()));
    AlertRules.Evaluation cleared =
        AlertRules.evaluate(
            healthy,
            DEFAULTS,
            new AlertRules.Memory(Set.of(key), due.pendingSince(), Map.of()),
            NOW.plus(Duration.ofMinutes(31)));
    assertThat(cleared.holding()).isEmpty();
    assertThat(cleared.pendingSince()).isEmpty();
  }

  @Test
  void tablePropertiesOverrideThresholdsOrOptOut() {
    AlertObservations observations =
        tables(
            table(
                ORDERS,
                TableStatus.IDLE,
                50,
                0,
                Map.of(
                    "floe.keeper.alert.table-unhealthy.health-below", "40",
                    "floe.keeper.alert.table-unhealthy.for", "1m")),
            table(
                new TableKey("floe", "shop.quiet"),
                TableStatus.QUARANTINED,
                10,
                5,
                Map.of("floe.keeper.alert.enabled", "false")),
            table(
                new TableKey("floe", "shop.lines"),
                TableStatus.IDLE,
                30,
                0,
                Map.of("floe.keeper.alert.table-unhealthy.for", "soon")));

    AlertRules.Evaluation evaluation =
        AlertRules.evaluate(observations, DEFAULTS, AlertRules.Memory.empty(), NOW);

    assertThat(evaluation.pendingSince().keySet())
        .containsExactly(new AlertKey(AlertRule.TABLE_UNHEALTHY, "floe/shop.lines"));
    assertThat(evaluation.problems())
        .containsExactly(
            "table floe/shop.lines has the property floe.keeper.alert.table-unhealthy.for='soon',"
                + " which is not a duration of at least 1s such as 90s, 30m or 2h; the rule uses"
                + " 30m. Fix the property or remove it.");
    assertThat(evaluation.holding()).isEmpty();
  }

  @Test
  void aQuarantinedOrRepeatedlyFailingTableFiresAtOnce() {
    AlertObservations observations =
        tables(
            table(ORDERS, TableStatus.QUARANTINED, 90, 5, Map.of()),
            table(new TableKey("floe", "shop.lines"), TableStatus.BACKOFF, 90, 2, Map.of()),
            table(new TableKey("floe", "shop.users"), TableStatus.BACKOFF, 90, 1, Map.of()));

    assertThat(
            AlertRules.evaluate(observations, DEFAULTS, AlertRules.Memory.empty(), NOW).holding())
        .extracting(condition -> condition.key().subject())
        .containsExactly("floe/shop.orders", "floe/shop.lines");
  }

  @Test
  void workersSyncsVerificationsAndCatalogs() {
    AlertObservations observations =
        new AlertObservations(
            List.of(),
            Set.of("remote"),
            Map.of("local", NOW.minus(Duration.ofHours(2)), "remote", NOW.minusSeconds(60)),
            List.of(
                new SyncObservation("orders", "running", NOW.minusSeconds(10), 600_000),
                new SyncObservation("users", "running", NOW.minusSeconds(120), 0),
                new SyncObservation("items", "failed", NOW, -1),
                new SyncObservation("old", "stopped", NOW.minus(Duration.ofDays(1)), -1)),
            List.of(
                new VerificationObservation("orders", "different", NOW),
                new VerificationObservation("users", "equal", NOW)),
            List.of(new AlertObservations.Rewound(ORDERS, NOW.minusSeconds(5), "lost 2 snapshots")),
            Map.of("prod", "connection refused"));

    List<AlertCondition> holding =
        AlertRules.evaluate(observations, DEFAULTS, AlertRules.Memory.empty(), NOW).holding();

    assertThat(holding)
        .extracting(AlertCondition::key)
        .containsExactly(
            new AlertKey(AlertRule.TABLE_REWOUND, "floe/shop.orders"),
            new AlertKey(AlertRule.CAPACITY_BELOW_TARGET, "remote"),
            new AlertKey(AlertRule.TASK_AGE, "local"),
            new AlertKey(AlertRule.SYNC_STALLED, "items"),
            new AlertKey(AlertRule.SYNC_LAG, "orders"),
            new AlertKey(AlertRule.SYNC_STALLED, "users"),
            new AlertKey(AlertRule.VERIFICATION_DIFFERENT, "orders"),
            new AlertKey(AlertRule.CATALOG_UNREACHABLE, "prod"));
    assertThat(holding.get(4).message())
        .isEqualTo("sync orders lags 10m behind its source, above 5m");
    assertThat(holding.get(0).message())
        .isEqualTo(
            "table floe/shop.orders was rewound at " + NOW.minusSeconds(5) + ": lost 2 snapshots");
  }

  @Test
  void aRewoundTableStopsFiringWhenAcknowledgedOrAfterItsFor() {
    AlertObservations observations =
        new AlertObservations(
            List.of(),
            Set.of(),
            Map.of(),
            List.of(),
            List.of(),
            List.of(new AlertObservations.Rewound(ORDERS, NOW, "lost 1 snapshot")),
            Map.of());
    AlertKey key = new AlertKey(AlertRule.TABLE_REWOUND, "floe/shop.orders");

    assertThat(
            AlertRules.evaluate(
                    observations,
                    DEFAULTS,
                    AlertRules.Memory.empty(),
                    NOW.plus(Duration.ofHours(23)))
                .holding())
        .hasSize(1);
    assertThat(
            AlertRules.evaluate(
                    observations,
                    DEFAULTS,
                    AlertRules.Memory.empty(),
                    NOW.plus(Duration.ofHours(24)))
                .holding())
        .isEmpty();
    assertThat(
            AlertRules.evaluate(
                    observations,
                    DEFAULTS,
                    new AlertRules.Memory(Set.of(key), Map.of(), Map.of(key, NOW.plusSeconds(1))),
                    NOW.plusSeconds(2))
                .holding())
        .isEmpty();
  }

  @Test
  void aRuleTurnedOffNeverHolds() {
    AlertSettings off =
        new AlertSettings(
            Duration.ZERO,
            Optional.empty(),
            Map.of(
                AlertRule.CATALOG_UNREACHABLE,
                new AlertRuleSettings(AlertRule.CATALOG_UNREACHABLE, false, Map.of()),
                AlertRule.SYNC_LAG,
                new AlertRuleSettings(AlertRule.SYNC_LAG, true, Map.of("above", 1_000L))),
            List.of(),
            Optional.empty());
    AlertObservations observations =
        new AlertObservations(
            List.of(),
            Set.of(),
            Map.of(),
            List.of(new SyncObservation("orders", "running", NOW, 2_000)),
            List.of(),
            List.of(),
            Map.of("prod", "down"));

    assertThat(AlertRules.evaluate(observations, off, AlertRules.Memory.empty(), NOW).holding())
        .extracting(AlertCondition::key)
        .containsExactly(new AlertKey(AlertRule.SYNC_LAG, "orders"));
  }

  private static AlertObservations tables(AlertObservations.TableObservation... tables) {
    return new AlertObservations(
        List.of(tables), Set.of(), Map.of(), List.of(), List.of(), List.of(), Map.of());
  }

  private static AlertObservations.TableObservation table(
      TableKey key, TableStatus status, int health, int failures, Map<String, String> properties) {
    return new AlertObservations.TableObservation(
        key, status, health, failures, Optional.empty(), properties);
  }
}

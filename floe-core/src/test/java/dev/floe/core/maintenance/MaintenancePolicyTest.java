package dev.floe.core.maintenance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.floe.core.error.ErrorCategory;
import dev.floe.core.error.FloeException;
import java.time.Duration;
import java.util.Map;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class MaintenancePolicyTest {

  @Test
  void defaultsAreDocumented() {
    MaintenancePolicy policy = MaintenancePolicy.defaults();

    assertThat(policy.maxSnapshotAge()).isEqualTo(Duration.ofDays(1));
    assertThat(policy.minSnapshots()).isEqualTo(10);
    assertThat(policy.keepFlinkCheckpoints()).isTrue();
    assertThat(policy.orphanMinAge()).isEqualTo(Duration.ofDays(3));
    assertThat(policy.retainedMetadataVersions()).isEmpty();
    assertThat(policy.gcEnabled()).isTrue();
    assertThat(policy.unsafeOrphanAgeAccepted()).isFalse();
  }

  @Test
  void floePropertiesWinOverIcebergOnes() {
    MaintenancePolicy policy =
        MaintenancePolicy.fromProperties(
            "shop.orders",
            Map.of(
                "floe.expire.max-snapshot-age", "12h",
                "history.expire.max-snapshot-age-ms", "1000",
                "floe.expire.min-snapshots", "3",
                "history.expire.min-snapshots-to-keep", "7",
                "floe.expire.keep-flink-checkpoints", "false",
                "floe.orphan.min-age", "P2D",
                "floe.metadata.retained-versions", "5",
                "gc.enabled", "FALSE"));

    assertThat(policy)
        .isEqualTo(
            new MaintenancePolicy(
                Duration.ofHours(12),
                3,
                false,
                Duration.ofDays(2),
                OptionalInt.of(5),
                false,
                false));
  }

  @Test
  void icebergPropertiesAreHonouredWhenFloeOnesAreAbsent() {
    MaintenancePolicy policy =
        MaintenancePolicy.fromProperties(
            "shop.orders",
            Map.of(
                "history.expire.max-snapshot-age-ms", "60000",
                "history.expire.min-snapshots-to-keep", "7",
                "write.metadata.previous-versions-max", "20"));

    assertThat(policy.maxSnapshotAge()).isEqualTo(Duration.ofMinutes(1));
    assertThat(policy.minSnapshots()).isEqualTo(7);
    assertThat(policy.retainedMetadataVersions()).hasValue(20);
  }

  @Test
  void invalidValuesNameTableKeyAndValue() {
    assertThatThrownBy(
            () ->
                MaintenancePolicy.fromProperties(
                    "shop.orders", Map.of("floe.expire.min-snapshots", "0")))
        .isInstanceOf(FloeException.class)
        .hasMessage(
            "Table shop.orders: property floe.expire.min-snapshots is '0'; it must be a whole"
                + " number of at least 1. Nothing was changed. Fix the property or remove it to"
                + " use the default.");
    assertThatThrownBy(
            () ->
                MaintenancePolicy.fromProperties(
                    "shop.orders", Map.of("floe.expire.max-snapshot-age", "soon")))
        .hasMessage(
            "Table shop.orders: property floe.expire.max-snapshot-age is 'soon'; it must be a"
                + " duration such as 30m, 12h or 3d. Nothing was changed. Fix the property or"
                + " remove it to use the default.");
    assertThatThrownBy(
            () -> MaintenancePolicy.fromProperties("shop.orders", Map.of("gc.enabled", "maybe")))
        .hasMessageContaining("property gc.enabled is 'maybe'; it must be true or false.");
    assertThatThrownBy(
            () ->
                MaintenancePolicy.fromProperties(
                    "shop.orders", Map.of("history.expire.max-snapshot-age-ms", "-5")))
        .hasMessageContaining(
            "property history.expire.max-snapshot-age-ms is '-5'; it must be a whole number of"
                + " milliseconds, 0 or more.");
  }

  @Test
  void gcDisabledIsRefusedWithTheOverride() {
    MaintenancePolicy policy =
        MaintenancePolicy.fromProperties("shop.orders", Map.of("gc.enabled", "false"));

    assertThatThrownBy(
            () -> policy.requireGcEnabled("shop.orders", MaintenanceAction.CLEAN_ORPHANS))
        .isInstanceOf(FloeException.class)
        .hasMessage(
            "Table shop.orders has gc.enabled=false: its files may be shared with another table,"
                + " so Floe will not remove orphan files. Nothing was changed. If the table owns"
                + " all its files, set the table property gc.enabled=true.")
        .extracting(e -> ((FloeException) e).category())
        .isEqualTo(ErrorCategory.BAD_INPUT);
  }

  @Test
  void gcEnabledIsReadAgainFromTheCurrentProperties() {
    assertThatThrownBy(
            () ->
                MaintenancePolicy.requireGcEnabled(
                    "shop.orders", Map.of("gc.enabled", "false"), MaintenanceAction.CLEAN_METADATA))
        .hasMessage(
            "Table shop.orders has gc.enabled=false: its files may be shared with another table,"
                + " so Floe will not clean metadata files. Nothing was changed. If the table owns"
                + " all its files, set the table property gc.enabled=true.");
    MaintenancePolicy.requireGcEnabled("shop.orders", Map.of(), MaintenanceAction.EXPIRE_SNAPSHOTS);
  }

  @Test
  void orphanAgeBelowOneHourMustBeAccepted() {
    MaintenancePolicy policy = MaintenancePolicy.defaults().withOrphanMinAge(Duration.ofMinutes(5));

    assertThat(policy.orphanAgeBelowSafeMinimum()).isTrue();
    assertThatThrownBy(() -> policy.requireSafeOrphanAge("shop.orders"))
        .isInstanceOf(FloeException.class)
        .hasMessage(
            "Table shop.orders: floe.orphan.min-age is 5m, below the safe minimum of 1h: files a"
                + " writer has written but not yet committed would be deleted. Nothing was"
                + " changed. Use 1h or more.");
    policy.acceptingUnsafeOrphanAge().requireSafeOrphanAge("shop.orders");
    assertThat(policy.acceptingUnsafeOrphanAge().withMinSnapshots(2).unsafeOrphanAgeAccepted())
        .isTrue();
    MaintenancePolicy.defaults().withOrphanMinAge(Duration.ofHours(1)).requireSafeOrphanAge("t");
  }

  @Test
  void durationsInShortAndIsoForms() {
    assertThat(DurationText.parse("500ms")).hasValue(Duration.ofMillis(500));
    assertThat(DurationText.parse("30s")).hasValue(Duration.ofSeconds(30));
    assertThat(DurationText.parse("15m")).hasValue(Duration.ofMinutes(15));
    assertThat(DurationText.parse(" 12h ")).hasValue(Duration.ofHours(12));
    assertThat(DurationText.parse("3d")).hasValue(Duration.ofDays(3));
    assertThat(DurationText.parse("PT1H")).hasValue(Duration.ofHours(1));
    assertThat(DurationText.parse("-1h")).isEmpty();
    assertThat(DurationText.parse("PT-1H")).isEmpty();
    assertThat(DurationText.parse("3 weeks")).isEmpty();
    assertThat(DurationText.format(Duration.ofDays(3))).isEqualTo("3d");
    assertThat(DurationText.format(Duration.ofMinutes(90))).isEqualTo("90m");
    assertThat(DurationText.format(Duration.ofMillis(1500))).isEqualTo("1500ms");
  }
}

package dev.floe.core.optimize;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.floe.core.error.ErrorCategory;
import dev.floe.core.error.FloeException;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OptimizePolicyTest {

  @Test
  void recordsTheDefaults() {
    OptimizePolicy policy = OptimizePolicy.fromProperties("db.t", Map.of());

    assertThat(policy)
        .isEqualTo(
            new OptimizePolicy(
                true,
                512L * 1024 * 1024,
                0.75,
                12,
                Duration.ofHours(1),
                8,
                0.1,
                0.2,
                2048L * 1024 * 1024,
                Duration.ZERO,
                10L * 1024 * 1024 * 1024,
                2048L * 1024 * 1024,
                64L * 1024 * 1024,
                Duration.ofMinutes(3),
                Duration.ofHours(1),
                true));
    assertThat(policy.smallFileThreshold()).isEqualTo(384L * 1024 * 1024);
  }

  @Test
  void takesTheTargetSizeFromIcebergThenFromFloe() {
    assertThat(
            OptimizePolicy.fromProperties(
                    "db.t", Map.of("write.target-file-size-bytes", "134217728"))
                .targetFileSizeBytes())
        .isEqualTo(134217728);
    assertThat(
            OptimizePolicy.fromProperties(
                    "db.t",
                    Map.of(
                        "write.target-file-size-bytes",
                        "134217728",
                        "floe.optimize.target-file-size-bytes",
                        "2097152"))
                .targetFileSizeBytes())
        .isEqualTo(2097152);
  }

  @Test
  void readsEveryProperty() {
    OptimizePolicy policy =
        OptimizePolicy.fromProperties(
            "db.t",
            Map.ofEntries(
                Map.entry("floe.optimize.enabled", "false"),
                Map.entry("floe.optimize.target-file-size-bytes", "4194304"),
                Map.entry("floe.optimize.small-file-ratio", "0.5"),
                Map.entry("floe.optimize.minor.min-small-files", "3"),
                Map.entry("floe.optimize.minor.max-interval-ms", "0"),
                Map.entry("floe.optimize.deletes.min-delete-files", "2"),
                Map.entry("floe.optimize.deletes.min-ratio", "0.3"),
                Map.entry("floe.optimize.deletes.rewrite-file-ratio", "1"),
                Map.entry("floe.optimize.deletes.convert-min-partition-bytes", "0"),
                Map.entry("floe.optimize.full.interval-ms", "86400000"),
                Map.entry("floe.optimize.budget-bytes", "1000"),
                Map.entry("floe.optimize.max-group-bytes", "8388608"),
                Map.entry("floe.optimize.spill-memory-bytes", "2097152"),
                Map.entry("floe.optimize.retry.backoff-ms", "1000"),
                Map.entry("floe.optimize.retry.max-backoff-ms", "5000"),
                Map.entry("floe.optimize.cluster-by-key", "false")));

    assertThat(policy)
        .isEqualTo(
            new OptimizePolicy(
                false,
                4194304,
                0.5,
                3,
                Duration.ZERO,
                2,
                0.3,
                1.0,
                0,
                Duration.ofDays(1),
                1000,
                8388608,
                2097152,
                Duration.ofSeconds(1),
                Duration.ofSeconds(5),
                false));
  }

  @Test
  void convertsOnlyInPartitionsOfAtLeastFourTargetSizesByDefault() {
    OptimizePolicy policy =
        OptimizePolicy.fromProperties(
            "db.t", Map.of("write.target-file-size-bytes", String.valueOf(128L << 20)));

    assertThat(policy.deletesConvertMinPartitionBytes()).isEqualTo(512L << 20);
    assertThat(policy.convertsLargeFiles((512L << 20) - 1)).isFalse();
    assertThat(policy.convertsLargeFiles(512L << 20)).isTrue();
    assertThat(
            OptimizePolicy.fromProperties(
                    "db.t", Map.of("floe.optimize.deletes.convert-min-partition-bytes", "0"))
                .convertsLargeFiles(0))
        .isTrue();
  }

  @Test
  void rejectsANegativeConvertThreshold() {
    assertThatThrownBy(
            () ->
                OptimizePolicy.fromProperties(
                    "db.orders", Map.of("floe.optimize.deletes.convert-min-partition-bytes", "-1")))
        .hasMessageStartingWith(
            "Table db.orders has floe.optimize.deletes.convert-min-partition-bytes=-1, which must"
                + " be >= 0.");
  }

  @Test
  void rejectsAValueOutOfRangeNamingTableAndProperty() {
    assertThatThrownBy(
            () ->
                OptimizePolicy.fromProperties(
                    "db.orders", Map.of("floe.optimize.small-file-ratio", "1.5")))
        .isInstanceOf(FloeException.class)
        .satisfies(
            e -> assertThat(((FloeException) e).category()).isEqualTo(ErrorCategory.BAD_INPUT))
        .hasMessage(
            "Table db.orders has floe.optimize.small-file-ratio=1.5, which must be in (0, 1]. Fix"
                + " it with ALTER TABLE ... SET TBLPROPERTIES or remove it to use the default (see"
                + " docs/optimize.md).");
  }

  @Test
  void rejectsANonNumber() {
    assertThatThrownBy(
            () ->
                OptimizePolicy.fromProperties(
                    "db.orders", Map.of("floe.optimize.budget-bytes", "10GB")))
        .hasMessage(
            "Table db.orders has floe.optimize.budget-bytes=10GB, which must be a whole number. Fix"
                + " it with ALTER TABLE ... SET TBLPROPERTIES or remove it to use the default (see"
                + " docs/optimize.md).");
  }

  @Test
  void rejectsATooSmallTarget() {
    assertThatThrownBy(
            () ->
                OptimizePolicy.fromProperties(
                    "db.orders", Map.of("write.target-file-size-bytes", "1000")))
        .hasMessageStartingWith(
            "Table db.orders has floe.optimize.target-file-size-bytes=1000, which must be >="
                + " 1048576.");
  }

  @Test
  void rejectsABadBoolean() {
    assertThatThrownBy(
            () ->
                OptimizePolicy.fromProperties("db.orders", Map.of("floe.optimize.enabled", "yes")))
        .hasMessageStartingWith(
            "Table db.orders has floe.optimize.enabled=yes, which must be true or false.");
  }

  @Test
  void rejectsAnUnknownKey() {
    assertThatThrownBy(
            () -> OptimizePolicy.fromProperties("db.orders", Map.of("floe.optimize.budget", "1")))
        .hasMessageStartingWith(
            "Table db.orders has an unknown property 'floe.optimize.budget'. Known optimize"
                + " properties: floe.optimize.enabled, ");
  }

  @Test
  void overridesTheBudget() {
    assertThat(OptimizePolicy.defaults(1 << 20).withBudgetBytes(5).budgetBytes()).isEqualTo(5);
  }
}

package dev.floe.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class OptimizerSettingsTest {

  private static final Duration LEASE = Duration.ofSeconds(30);
  private static final WorkerGroupSettings LOCAL =
      WorkerGroupSettings.processes("local", 2, 1, 512L << 20);
  private static final WorkerGroupSettings CLUSTER =
      WorkerGroupSettings.flink("cluster", 4, 1, URI.create("http://flink-jm:8081"));

  @Test
  void withoutGroupsTheOneGroupIsThreadsNamedDefault() {
    OptimizerSettings optimizer = new OptimizerSettings(3, 0.5, LEASE);

    assertThat(optimizer.groups()).isEmpty();
    assertThat(optimizer.capacityGrace()).isEqualTo(OptimizerSettings.DEFAULT_CAPACITY_GRACE);
    assertThat(optimizer.effectiveGroups())
        .containsExactly(WorkerGroupSettings.threads("default", 3));
    assertThat(optimizer.defaultGroupName()).isEqualTo("default");
    assertThat(optimizer.group("DEFAULT")).contains(WorkerGroupSettings.threads("default", 3));
    assertThat(optimizer.group("local")).isEmpty();
  }

  @Test
  void theDefaultGroupIsTheNamedOneElseTheFirst() {
    assertThat(settings(List.of(LOCAL, CLUSTER), Optional.empty()).defaultGroupName())
        .isEqualTo("local");
    assertThat(settings(List.of(LOCAL, CLUSTER), Optional.of("Cluster")).defaultGroupName())
        .isEqualTo("cluster");
    assertThat(settings(List.of(LOCAL, CLUSTER), Optional.empty()).effectiveGroups())
        .containsExactly(LOCAL, CLUSTER);
    assertThat(settings(List.of(LOCAL, CLUSTER), Optional.empty()).group("CLUSTER"))
        .contains(CLUSTER);
  }

  @Test
  void inconsistentGroupsAreRefused() {
    assertThatThrownBy(
            () ->
                settings(
                    List.of(LOCAL, WorkerGroupSettings.external("LOCAL", 1)), Optional.empty()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("two groups are named LOCAL");
    assertThatThrownBy(
            () ->
                settings(
                    List.of(
                        WorkerGroupSettings.threads("a", 1), WorkerGroupSettings.threads("b", 1)),
                    Optional.empty()))
        .hasMessage("more than one group is of kind threads");
    assertThatThrownBy(() -> settings(List.of(LOCAL), Optional.of("remote")))
        .hasMessage("defaultGroup remote is not a group");
    assertThatThrownBy(
            () -> new OptimizerSettings(2, 0.5, LEASE, List.of(), Optional.empty(), Duration.ZERO))
        .hasMessage("capacityGrace is PT0S, not above zero");
  }

  private static OptimizerSettings settings(
      List<WorkerGroupSettings> groups, Optional<String> defaultGroup) {
    return new OptimizerSettings(
        2, 0.5, LEASE, groups, defaultGroup, OptimizerSettings.DEFAULT_CAPACITY_GRACE);
  }
}

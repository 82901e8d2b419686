package dev.floe.core.maintenance;

import static dev.floe.core.maintenance.Snapshots.T0;
import static dev.floe.core.maintenance.Snapshots.snapshot;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class HistoryWatchTest {

  private final HistoryWatch watch = new HistoryWatch();

  private static HistoryObservation observe(
      String metadata, long current, List<SnapshotFacts> all) {
    return HistoryObservation.of(
        "shop.orders", T0.plus(Duration.ofDays(1)), metadata, OptionalLong.of(current), all);
  }

  private static Set<Long> ids(List<SnapshotFacts> snapshots) {
    return snapshots.stream().map(SnapshotFacts::id).collect(Collectors.toSet());
  }

  @Test
  void descendantIsIntact() {
    List<SnapshotFacts> before = List.of(snapshot(1, null), snapshot(2, 1L));
    List<SnapshotFacts> after = List.of(snapshot(1, null), snapshot(2, 1L), snapshot(3, 2L));

    HistoryVerdict verdict =
        watch.compare(
            observe("m2", 2, before), observe("m3", 3, after), List.of("m1", "m2"), ids(after));

    assertThat(verdict.status()).isEqualTo(HistoryVerdict.Status.INTACT);
    assertThat(verdict.lost()).isEmpty();
  }

  @Test
  void staleMetadataWrittenBackIsARewindNamingTheLostSnapshots() {
    List<SnapshotFacts> before =
        List.of(snapshot(1, null), snapshot(2, 1L), snapshot(3, 2L), snapshot(4, 3L));
    // The stale writer's metadata knew only 1-2; then a new commit 5 landed on 2.
    List<SnapshotFacts> after = List.of(snapshot(1, null), snapshot(2, 1L), snapshot(5, 2L));

    HistoryVerdict verdict =
        watch.compare(
            observe("m4", 4, before), observe("m6", 5, after), List.of("m1", "m2"), ids(after));

    assertThat(verdict.status()).isEqualTo(HistoryVerdict.Status.REWOUND);
    assertThat(verdict.lost()).extracting(ObservedSnapshot::id).containsExactly(4L, 3L);
    assertThat(verdict.lost().get(0).addedRecords()).isEqualTo(40);
    assertThat(verdict.lost().get(0).committedAt()).isEqualTo(T0.plus(Duration.ofHours(4)));
    assertThat(verdict.explanation())
        .isEqualTo(
            "the table's history was rewound: the previous current snapshot 4 is no longer an"
                + " ancestor of the current snapshot 5; 2 committed snapshot(s) dropped out of"
                + " history");
  }

  @Test
  void rollbackToAnOlderSnapshotIsARewind() {
    List<SnapshotFacts> all = List.of(snapshot(1, null), snapshot(2, 1L), snapshot(3, 2L));

    HistoryVerdict verdict =
        watch.compare(
            observe("m3", 3, all), observe("m4", 2, all), List.of("m1", "m2", "m3"), ids(all));

    assertThat(verdict.status()).isEqualTo(HistoryVerdict.Status.REWOUND);
    assertThat(verdict.lost()).extracting(ObservedSnapshot::id).containsExactly(3L);
  }

  @Test
  void expiryOfThePreviousSnapshotIsNotARewind() {
    List<SnapshotFacts> before = List.of(snapshot(1, null), snapshot(2, 1L));
    // 3, 4, 5 committed on top of 2, then 1-3 expired: 4's parent 3 is gone.
    List<SnapshotFacts> after = List.of(snapshot(4, 3L), snapshot(5, 4L));

    HistoryVerdict verdict =
        watch.compare(
            observe("m2", 2, before),
            observe("m9", 5, after),
            List.of("m2", "m3", "m8"),
            ids(after));

    assertThat(verdict.status()).isEqualTo(HistoryVerdict.Status.INTACT);
  }

  @Test
  void expiryThatHidesTheEvidenceIsUnverifiable() {
    List<SnapshotFacts> before = List.of(snapshot(1, null), snapshot(2, 1L));
    List<SnapshotFacts> after = List.of(snapshot(4, 3L), snapshot(5, 4L));

    HistoryVerdict verdict =
        watch.compare(observe("m2", 2, before), observe("m9", 5, after), List.of("m8"), ids(after));

    assertThat(verdict.status()).isEqualTo(HistoryVerdict.Status.UNVERIFIABLE);
  }

  @Test
  void observationsSurviveTheStateFileFormat() {
    HistoryObservation observation =
        observe(
            "file:/w/t/metadata/00004-x.metadata.json",
            4,
            List.of(snapshot(1, null), snapshot(2, 1L), snapshot(3, 2L), snapshot(4, 3L)));

    String text = HistoryObservationFormat.write(observation);

    assertThat(text)
        .startsWith(
            "floe-history 1\ntable shop.orders\nobserved-at 2026-11-02T00:00:00Z\n"
                + "metadata-location file:/w/t/metadata/00004-x.metadata.json\n"
                + "current-snapshot-id 4\nancestry-truncated false\n"
                + "snapshot 4 4 1793505600000 40 400\n");
    assertThat(HistoryObservationFormat.parse(text, "f")).isEqualTo(observation);
  }

  @Test
  void aDamagedStateFileIsExplained() {
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () ->
                HistoryObservationFormat.parse(
                    "floe-history 1\ntable t\nsnapshot 1 x\n", "/d/t.history"))
        .hasMessage(
            "The history state file /d/t.history is damaged at line 3: a snapshot line needs 5"
                + " fields. Delete it to start observing the table afresh (the next run records a"
                + " new first observation).");
  }
}

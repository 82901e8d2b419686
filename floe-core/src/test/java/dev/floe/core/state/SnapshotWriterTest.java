package dev.floe.core.state;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.core.sync.SyncSummary;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SnapshotWriterTest {

  @Test
  void theWriterIsToldByFloesSummaryKeys() {
    assertThat(SnapshotWriter.of(Map.of(SyncSummary.SYNC_ID, "u-1", "added-records", "3")))
        .isEqualTo(SnapshotWriter.SYNC);
    assertThat(SnapshotWriter.of(Map.of(SnapshotWriter.OPTIMIZE_KIND, "minor")))
        .isEqualTo(SnapshotWriter.OPTIMIZE);
    assertThat(
            SnapshotWriter.of(Map.of(SnapshotWriter.MAINTENANCE_ACTION, "remove-dangling-deletes")))
        .isEqualTo(SnapshotWriter.MAINTENANCE);
    assertThat(SnapshotWriter.of(Map.of("spark.app.id", "x"))).isEqualTo(SnapshotWriter.OTHER);
    assertThat(SnapshotWriter.OTHER.apiName()).isEqualTo("other");
  }
}

package dev.floe.core.maintenance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.core.maintenance.DanglingDeletePlanner.DataFileFacts;
import dev.floe.core.maintenance.DanglingDeletePlanner.DeleteFileFacts;
import dev.floe.core.maintenance.DanglingDeletePlanner.DeleteKind;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class DanglingDeletePlannerTest {

  private static DeleteFileFacts delete(
      String name, String partition, DeleteKind kind, long sequence, Optional<String> target) {
    return new DeleteFileFacts(name, partition, kind, sequence, false, target, 1);
  }

  @Test
  void deletesOlderThanEveryLiveDataFileOfTheirPartitionDangle() {
    List<DataFileFacts> data =
        List.of(new DataFileFacts("/d/p1-a", "p=1", 5), new DataFileFacts("/d/p2-a", "p=2", 2));
    List<DeleteFileFacts> deletes =
        List.of(
            delete("pos-old", "p=1", DeleteKind.POSITION, 4, Optional.empty()),
            delete("pos-same", "p=1", DeleteKind.POSITION, 5, Optional.empty()),
            delete("eq-same", "p=1", DeleteKind.EQUALITY, 5, Optional.empty()),
            delete("eq-newer", "p=1", DeleteKind.EQUALITY, 6, Optional.empty()),
            delete("eq-p2", "p=2", DeleteKind.EQUALITY, 3, Optional.empty()),
            delete("eq-empty-partition", "p=3", DeleteKind.EQUALITY, 9, Optional.empty()),
            delete(
                "pos-gone-target", "p=2", DeleteKind.POSITION, 9, Optional.of("file:/d/rewritten")),
            delete("pos-live-target", "p=2", DeleteKind.POSITION, 9, Optional.of("file:///d/p2-a")),
            new DeleteFileFacts("eq-global", "", DeleteKind.EQUALITY, 3, true, Optional.empty(), 1),
            new DeleteFileFacts(
                "eq-global-old", "", DeleteKind.EQUALITY, 2, true, Optional.empty(), 1));

    List<DeleteFileFacts> dangling = new DanglingDeletePlanner().plan(data, deletes);

    assertThat(dangling)
        .extracting(DeleteFileFacts::location)
        .containsExactly(
            "pos-old", "eq-same", "eq-empty-partition", "pos-gone-target", "eq-global-old");
  }
}

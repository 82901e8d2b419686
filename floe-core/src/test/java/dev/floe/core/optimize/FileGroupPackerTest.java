package dev.floe.core.optimize;

import static dev.floe.core.optimize.States.MIB;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FileGroupPackerTest {

  private final FileGroupPacker packer = new FileGroupPacker();
  private final PartitionKey partition = new PartitionKey(0, "d=1");
  // target 8 MiB, small below 6 MiB, groups of at most 16 MiB
  private final OptimizePolicy policy =
      OptimizePolicy.fromProperties(
          "db.t",
          Map.of(
              "floe.optimize.target-file-size-bytes", String.valueOf(8 * MIB),
              "floe.optimize.max-group-bytes", String.valueOf(16 * MIB)));

  private static CandidateFile file(String path, long mib, long sequence, boolean deletes) {
    return new CandidateFile(path, mib * MIB, sequence, mib * MIB / 8, deletes);
  }

  private PartitionTask task(TaskKind kind, long limit) {
    return new PartitionTask(partition, kind, "test", 0, 0, 0, 0, limit, kind == TaskKind.DELETES);
  }

  @Test
  void minorBinPacksSmallFilesIntoGroupsOfAtMostTheGroupSize() {
    List<CandidateFile> files = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      files.add(file("f" + i, 3, i, false));
    }
    files.add(file("large", 10, 0, true));

    List<FileGroup> groups = packer.pack(task(TaskKind.MINOR, Long.MAX_VALUE), files, policy);

    assertThat(groups).hasSize(2);
    assertThat(groups)
        .allSatisfy(group -> assertThat(group.inputBytes()).isLessThanOrEqualTo(16 * MIB));
    assertThat(groups).allSatisfy(group -> assertThat(group.convert()).isEmpty());
    assertThat(groups.stream().mapToInt(group -> group.rewrite().size()).sum()).isEqualTo(10);
  }

  @Test
  void aCutTaskTakesTheOldestFilesWithinItsLimit() {
    List<CandidateFile> files =
        List.of(file("new", 1, 9, false), file("old", 1, 1, false), file("mid", 1, 5, false));

    List<FileGroup> groups = packer.pack(task(TaskKind.MINOR, 2 * MIB), files, policy);

    assertThat(groups)
        .singleElement()
        .satisfies(
            group ->
                assertThat(group.rewrite())
                    .extracting(CandidateFile::path)
                    .containsExactly("old", "mid"));
  }

  @Test
  void deleteRewriteRewritesSmallFilesAndConvertsLargeFilesWithDeletes() {
    List<CandidateFile> files =
        List.of(
            file("small-a", 1, 1, true),
            file("small-b", 2, 2, false),
            file("large-deleted", 10, 1, true),
            file("large-clean", 10, 5, false));

    List<FileGroup> groups = packer.pack(task(TaskKind.DELETES, Long.MAX_VALUE), files, policy);

    assertThat(groups).hasSize(2);
    assertThat(groups.get(0).rewrite())
        .extracting(CandidateFile::path)
        .containsExactly("small-a", "small-b");
    assertThat(groups.get(1).convert())
        .extracting(CandidateFile::path)
        .containsExactly("large-deleted");
    assertThat(groups.get(1).inputBytes()).isEqualTo(10 * MIB / 8);
  }

  @Test
  void deleteRewriteOfASmallPartitionRewritesLargeFilesWithDeletesInsteadOfConverting() {
    List<CandidateFile> files =
        List.of(
            file("small-a", 1, 1, true),
            file("large-deleted", 10, 1, true),
            file("large-clean", 10, 5, false));
    PartitionTask task =
        new PartitionTask(partition, TaskKind.DELETES, "test", 0, 0, 0, 0, Long.MAX_VALUE, false);

    List<FileGroup> groups = packer.pack(task, files, policy);

    assertThat(groups)
        .singleElement()
        .satisfies(
            group -> {
              assertThat(group.rewrite())
                  .extracting(CandidateFile::path)
                  .containsExactlyInAnyOrder("small-a", "large-deleted");
              assertThat(group.convert()).isEmpty();
              assertThat(group.inputBytes()).isEqualTo(11 * MIB);
            });
  }

  @Test
  void oneSmallFileWithoutDeletesIsLeftAlone() {
    assertThat(
            packer.pack(
                task(TaskKind.MINOR, Long.MAX_VALUE), List.of(file("a", 1, 1, false)), policy))
        .isEmpty();
    assertThat(
            packer.pack(
                task(TaskKind.MINOR, Long.MAX_VALUE), List.of(file("a", 1, 1, true)), policy))
        .hasSize(1);
  }

  @Test
  void fullRewriteTakesEveryFile() {
    List<FileGroup> groups =
        packer.pack(
            task(TaskKind.FULL, Long.MAX_VALUE),
            List.of(file("a", 7, 1, false), file("b", 7, 2, false)),
            policy);

    assertThat(groups)
        .singleElement()
        .satisfies(
            group ->
                assertThat(group.rewrite())
                    .extracting(CandidateFile::path)
                    .containsExactly("a", "b"));
  }
}

package dev.floe.core.maintenance;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class OrphanPlannerTest {

  private static final Instant NOW = Instant.parse("2026-11-29T12:00:00Z");
  private static final Instant OLD = NOW.minus(Duration.ofDays(10));

  private final OrphanPlanner planner = new OrphanPlanner();

  @Test
  void spellingsOfOneFileAreEqual() {
    FileLocation a = FileLocation.parse("file:/w/t/data/a.parquet");
    assertThat(FileLocation.parse("file:///w/t/data/a.parquet")).isEqualTo(a);
    assertThat(FileLocation.parse("/w/t/data/a.parquet")).isEqualTo(a);
    assertThat(FileLocation.parse("file:/w//t/data/a.parquet/")).isEqualTo(a);
    assertThat(FileLocation.parse("S3A://bucket/w/x"))
        .isEqualTo(new FileLocation("s3", Optional.of("bucket"), "/w/x"));
    assertThat(
            FileLocation.parse("s3n://bucket/w/x")
                .compatibleWith(FileLocation.parse("s3://bucket/w/x")))
        .isTrue();
    assertThat(
            FileLocation.parse("hdfs:/w/x")
                .compatibleWith(FileLocation.parse("hdfs://nn1:8020/w/x")))
        .isTrue();
    assertThat(
            FileLocation.parse("hdfs://nn2:8020/w/x")
                .compatibleWith(FileLocation.parse("hdfs://nn1:8020/w/x")))
        .isFalse();
  }

  @Test
  void aLiveFileListedUnderAnotherSpellingIsNeverAnOrphan() {
    ReachableLocations reachable =
        new ReachableLocations(
            List.of("file:/w/t/data/a.parquet", "hdfs:/w/t/data/b.parquet", "s3://bk/t/c.parquet"));
    List<ListedFile> listed =
        List.of(
            new ListedFile("file:///w/t/data/a.parquet", 10, OLD),
            new ListedFile("/w/t/data/a.parquet", 10, OLD),
            new ListedFile("hdfs://nn1:8020/w/t/data/b.parquet", 20, OLD),
            new ListedFile("s3a://bk/t/c.parquet", 30, OLD),
            new ListedFile("file:/w/t/data/orphan.parquet", 40, OLD));

    OrphanPlan plan = planner.plan(listed, reachable, Duration.ofDays(3), NOW);

    assertThat(plan.referencedCount()).isEqualTo(4);
    assertThat(plan.conflicts()).isEmpty();
    assertThat(plan.deletable())
        .extracting(ListedFile::location)
        .containsExactly("file:/w/t/data/orphan.parquet");
    assertThat(plan.deletableBytes()).isEqualTo(40);
  }

  @Test
  void anUnmatchableAuthorityBlocksTheWholeRun() {
    ReachableLocations reachable =
        new ReachableLocations(List.of("hdfs://nn1:8020/w/t/data/b.parquet"));
    List<ListedFile> listed =
        List.of(
            new ListedFile("hdfs://nn2:8020/w/t/data/b.parquet", 20, OLD),
            new ListedFile("hdfs://nn2:8020/w/t/data/orphan.parquet", 40, OLD));

    OrphanPlan plan = planner.plan(listed, reachable, Duration.ofDays(3), NOW);

    assertThat(plan.conflicts())
        .containsExactly(
            new PathConflict(
                "hdfs://nn2:8020/w/t/data/b.parquet", "hdfs://nn1:8020/w/t/data/b.parquet"));
    assertThat(plan.orphans()).hasSize(1);
    assertThat(plan.deletable()).isEmpty();
    assertThat(
            MaintenancePreview.ofOrphans(MaintenanceAction.CLEAN_ORPHANS, "ns.t", plan).blockers())
        .containsExactly(
            "path conflict: listed hdfs://nn2:8020/w/t/data/b.parquet but the metadata references"
                + " hdfs://nn1:8020/w/t/data/b.parquet");
  }

  @Test
  void anUnmatchableSchemeBlocksTheWholeRun() {
    OrphanPlan plan =
        planner.plan(
            List.of(new ListedFile("gs://bk/t/a.parquet", 1, OLD)),
            new ReachableLocations(List.of("s3://bk/t/a.parquet")),
            Duration.ofDays(3),
            NOW);

    assertThat(plan.conflicts()).hasSize(1);
    assertThat(plan.deletable()).isEmpty();
  }

  @Test
  void youngUnreferencedFilesAreKept() {
    List<ListedFile> listed =
        List.of(
            new ListedFile("/w/t/data/in-flight.parquet", 5, NOW.minus(Duration.ofHours(2))),
            new ListedFile("/w/t/data/edge.parquet", 5, NOW.minus(Duration.ofDays(3))),
            new ListedFile(
                "/w/t/data/old.parquet", 5, NOW.minus(Duration.ofDays(3)).minusMillis(1)));

    OrphanPlan plan =
        planner.plan(listed, new ReachableLocations(List.of()), Duration.ofDays(3), NOW);

    assertThat(plan.deletable())
        .extracting(ListedFile::location)
        .containsExactly("/w/t/data/old.parquet");
    assertThat(plan.tooYoung())
        .extracting(ListedFile::location)
        .containsExactly("/w/t/data/edge.parquet", "/w/t/data/in-flight.parquet");
    assertThat(plan.cutoff()).isEqualTo(NOW.minus(Duration.ofDays(3)));
  }

  @Test
  void filesWhoseAgeTheListingDoesNotReportAreKept() {
    OrphanPlan plan =
        planner.plan(
            List.of(new ListedFile("/w/t/data/no-time.parquet", 5, Instant.EPOCH)),
            new ReachableLocations(List.of()),
            Duration.ofDays(3),
            NOW);

    assertThat(plan.deletable()).isEmpty();
    assertThat(plan.tooYoung()).hasSize(1);
  }

  @Test
  void metadataCleanupKeepsCurrentRetainedVersionsAndReachableFiles() {
    String dir = "file:/w/t/metadata/";
    List<ListedFile> listed =
        List.of(
            new ListedFile(dir + "00001-a.metadata.json", 1, OLD),
            new ListedFile(dir + "00002-b.metadata.json", 2, OLD),
            new ListedFile(dir + "00003-c.metadata.json", 3, OLD),
            new ListedFile(dir + "00004-d.metadata.json", 4, OLD),
            new ListedFile(dir + "00005-failed.metadata.json", 5, OLD),
            new ListedFile(dir + "00006-young.metadata.json", 6, NOW),
            new ListedFile(dir + "snap-1.avro", 7, OLD),
            new ListedFile(dir + "snap-2-gone.avro", 8, OLD),
            new ListedFile(dir + "m1.avro", 9, OLD),
            new ListedFile(dir + "version-hint.text", 10, OLD),
            new ListedFile(dir + "notes.txt", 11, OLD));

    OrphanPlan plan =
        new MetadataCleanupPlanner()
            .plan(
                listed,
                "/w/t/metadata/00004-d.metadata.json",
                List.of(
                    dir + "00001-a.metadata.json",
                    dir + "00002-b.metadata.json",
                    dir + "00003-c.metadata.json"),
                1,
                List.of(dir + "snap-1.avro", dir + "m1.avro"),
                Duration.ofDays(3),
                NOW);

    assertThat(plan.deletable())
        .extracting(ListedFile::location)
        .containsExactly(
            dir + "00001-a.metadata.json",
            dir + "00002-b.metadata.json",
            dir + "00005-failed.metadata.json",
            dir + "snap-2-gone.avro");
    assertThat(plan.tooYoung())
        .extracting(ListedFile::location)
        .containsExactly(dir + "00006-young.metadata.json");
  }
}

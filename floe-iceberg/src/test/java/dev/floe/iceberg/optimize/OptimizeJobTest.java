package dev.floe.iceberg.optimize;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.core.config.CatalogSettings;
import dev.floe.core.optimize.OptimizeFailures;
import dev.floe.core.optimize.OptimizePlan;
import dev.floe.core.optimize.OptimizePolicy;
import dev.floe.core.optimize.OptimizeResult;
import dev.floe.core.optimize.PartitionOutcome;
import dev.floe.core.optimize.TableState;
import dev.floe.core.optimize.TaskKind;
import dev.floe.iceberg.CatalogFactory;
import dev.floe.iceberg.FloeCatalog;
import dev.floe.iceberg.optimize.UpsertWriter.Change;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OptimizeJobTest {

  static final Map<String, String> SMALL_TARGET =
      Map.of(OptimizePolicy.TARGET_FILE_SIZE_BYTES, "1048576");

  @TempDir Path directory;
  private FloeCatalog catalog;

  @BeforeEach
  void open() {
    catalog = new CatalogFactory().open(CatalogSettings.embedded(), directory.resolve("lake"));
  }

  @AfterEach
  void close() {
    catalog.close();
  }

  private Table table(String name, PartitionSpec spec, Map<String, String> properties) {
    return UpsertTables.create(catalog.catalog(), name, spec, properties);
  }

  record Run(TableState before, OptimizePlan plan, OptimizeResult result) {}

  private Run optimize(Table table) {
    table.refresh();
    OptimizePolicy policy = OptimizePolicy.fromProperties(table.name(), table.properties());
    OptimizeJob job = new OptimizeJob(directory.resolve("spill"));
    OptimizeJob.Preview preview =
        job.preview(table.name(), table, policy, OptimizeFailures.none(), Instant.now());
    OptimizeResult result = job.run(table, preview);
    table.refresh();
    return new Run(preview.state(), preview.plan(), result);
  }

  private static List<Change> inserts(long from, long to, String payload) {
    List<Change> changes = new ArrayList<>();
    for (long id = from; id < to; id++) {
      changes.add(Change.upsert(id, payload + id));
    }
    return changes;
  }

  @Test
  void minorCompactionMergesSmallFilesAndKeepsEveryRow() {
    Table table = table("minor", PartitionSpec.unpartitioned(), SMALL_TARGET);
    UpsertWriter writer = new UpsertWriter(table);
    for (int commit = 0; commit < 15; commit++) {
      writer.append(inserts(commit * 100L, commit * 100L + 100, "v"));
    }

    Run run = optimize(table);

    assertThat(run.before().totals().smallFiles()).isEqualTo(15);
    assertThat(run.plan().tasks())
        .singleElement()
        .satisfies(
            task -> {
              assertThat(task.kind()).isEqualTo(TaskKind.MINOR);
              assertThat(task.reason())
                  .isEqualTo("15 small files >= 12 (floe.optimize.minor.min-small-files)");
            });
    assertThat(run.result().succeeded()).isTrue();
    assertThat(run.result().partitions().get(0).filesRewritten()).isEqualTo(15);
    assertThat(run.result().partitions().get(0).filesAdded()).isEqualTo(1);
    assertThat(UpsertTables.read(table)).isEqualTo(writer.expected());
    assertThat(table.currentSnapshot().summary()).containsEntry("floe.optimize.kind", "minor");
    TableState after =
        new OptimizeScanner()
            .scan("minor", table, OptimizePolicy.fromProperties("minor", table.properties()));
    assertThat(after.totals().dataFiles()).isEqualTo(1);
    assertThat(after.healthScore()).isEqualTo(100);
  }

  @Test
  void appliesEqualityAndPositionDeletesAndRemovesTheDeleteFiles() {
    Table table = table("deletes", UpsertTables.PARTITIONED, SMALL_TARGET);
    UpsertWriter writer = new UpsertWriter(table);
    writer.commit(inserts(0, 400, "v"));
    for (int commit = 0; commit < 10; commit++) {
      List<Change> changes = new ArrayList<>();
      for (long id = commit * 30L; id < commit * 30L + 30; id++) {
        changes.add(Change.upsert(id, "u" + commit));
        changes.add(Change.upsert(id, "w" + commit)); // same commit: a position delete
      }
      changes.add(Change.delete(399 - commit));
      writer.commit(changes);
    }
    Map<Long, String> expected = writer.expected();
    assertThat(UpsertTables.read(table)).isEqualTo(expected);

    Run run = optimize(table);

    assertThat(run.plan().tasks())
        .hasSize(4)
        .allSatisfy(task -> assertThat(task.kind()).isEqualTo(TaskKind.DELETES));
    assertThat(run.result().succeeded()).isTrue();
    assertThat(UpsertTables.read(table)).isEqualTo(expected);
    TableState after =
        new OptimizeScanner()
            .scan("deletes", table, OptimizePolicy.fromProperties("deletes", table.properties()));
    assertThat(after.totals().deleteFiles()).as(run.result().toString()).isZero();
    assertThat(after.totals().dataFiles()).isEqualTo(4);
    assertThat(run.result().partitions().stream().mapToLong(PartitionOutcome::rowsDeleted).sum())
        .isEqualTo(400 + 10 * 60 - expected.size());
  }

  @Test
  void convertsEqualityDeletesOfALargeFileToPositionsAndRewritesTheSmallOnes() {
    Map<String, String> properties = new java.util.HashMap<>(SMALL_TARGET);
    properties.put(OptimizePolicy.DELETES_CONVERT_MIN_PARTITION_BYTES, "0");
    Table table = table("convert", PartitionSpec.unpartitioned(), properties);
    UpsertWriter writer = new UpsertWriter(table);
    writer.append(randomRows(0, 60_000));
    for (int commit = 0; commit < 8; commit++) {
      writer.commit(
          List.of(Change.upsert(commit * 7L, "new" + commit), Change.delete(commit * 7L + 1)));
    }
    Map<Long, String> expected = writer.expected();

    Run run = optimize(table);

    assertThat(run.before().totals().largeFiles()).isEqualTo(1);
    PartitionOutcome outcome = run.result().partitions().get(0);
    assertThat(outcome.kind()).isEqualTo(TaskKind.DELETES);
    assertThat(outcome.filesConverted()).isEqualTo(1);
    assertThat(outcome.deleteFilesAdded()).isEqualTo(1);
    assertThat(outcome.filesRewritten()).isEqualTo(8);
    assertThat(outcome.deleteFilesRemoved()).isEqualTo(8);
    assertThat(UpsertTables.read(table)).isEqualTo(expected);
    TableState after = scan(table);
    assertThat(after.totals().equalityDeleteFiles()).isZero();
    assertThat(after.totals().positionDeleteFiles()).isEqualTo(1);
    assertThat(after.totals().positionDeleteRecords()).isEqualTo(16);
  }

  @Test
  void rewritesTheLargeFileOfASmallPartitionSoThatNoDeleteIsLeftForScans() {
    Table table = table("small-partition", PartitionSpec.unpartitioned(), SMALL_TARGET);
    UpsertWriter writer = new UpsertWriter(table);
    writer.append(randomRows(0, 60_000));
    for (int commit = 0; commit < 8; commit++) {
      writer.commit(
          List.of(Change.upsert(commit * 7L, "new" + commit), Change.delete(commit * 7L + 1)));
    }
    Map<Long, String> expected = writer.expected();

    Run run = optimize(table);

    assertThat(run.before().totals().largeFiles()).isEqualTo(1);
    assertThat(run.plan().tasks().get(0).convertsLargeFiles()).isFalse();
    PartitionOutcome outcome = run.result().partitions().get(0);
    assertThat(outcome.kind()).isEqualTo(TaskKind.DELETES);
    assertThat(outcome.filesConverted()).isZero();
    assertThat(outcome.deleteFilesAdded()).isZero();
    assertThat(outcome.filesRewritten()).isEqualTo(9);
    assertThat(outcome.rowsDeleted()).isEqualTo(16);
    assertThat(UpsertTables.read(table)).isEqualTo(expected);
    assertThat(scan(table).totals().deleteFiles()).isZero();
  }

  @Test
  void appliesManyEqualityDeletesThroughTheDiskWithTheSmallestSpillBuffer() {
    Map<String, String> properties = new java.util.HashMap<>(SMALL_TARGET);
    properties.put(OptimizePolicy.SPILL_MEMORY_BYTES, "1048576");
    Table table = table("spill", PartitionSpec.unpartitioned(), properties);
    UpsertWriter writer = new UpsertWriter(table);
    writer.commit(inserts(0, 40_000, "v"));
    List<Change> deletes = new ArrayList<>();
    for (long id = 0; id < 40_000; id += 2) {
      deletes.add(Change.delete(id));
    }
    for (int commit = 0; commit < 8; commit++) {
      writer.commit(commit == 0 ? deletes : List.of(Change.upsert(1, "again" + commit)));
    }

    Run run = optimize(table);

    assertThat(run.result().succeeded()).isTrue();
    assertThat(UpsertTables.read(table)).isEqualTo(writer.expected()).hasSize(20_000);
    assertThat(scan(table).totals().deleteFiles()).isZero();
  }

  @Test
  void equalityDeletesCommittedAfterPlanningStayValidAndDoNotConflict() {
    Table table = table("concurrent", UpsertTables.PARTITIONED, SMALL_TARGET);
    UpsertWriter writer = new UpsertWriter(table);
    for (int commit = 0; commit < 12; commit++) {
      writer.commit(inserts(commit * 10L, commit * 10L + 10, "v"));
    }
    OptimizePolicy policy = OptimizePolicy.fromProperties(table.name(), table.properties());
    OptimizeJob job = new OptimizeJob(directory.resolve("spill"));
    OptimizeJob.Preview preview =
        job.preview("t", table, policy, OptimizeFailures.none(), Instant.now());
    OptimizePlan plan = preview.plan();

    // The streaming writer commits between planning and committing: updates and deletes of keys
    // in the files being compacted.
    writer.commit(List.of(Change.upsert(0, "after"), Change.delete(1), Change.upsert(2, "after")));
    OptimizeResult result = job.run(table, preview);

    assertThat(result.succeeded()).as(result.toString()).isTrue();
    assertThat(UpsertTables.read(table)).isEqualTo(writer.expected());
    assertThat(UpsertTables.read(table)).containsEntry(0L, "after").doesNotContainKey(1L);
  }

  @Test
  void aGenuineConflictFailsOnlyItsGroupAndDeletesItsOutput() throws Exception {
    Table table = table("conflict", UpsertTables.PARTITIONED, SMALL_TARGET);
    UpsertWriter writer = new UpsertWriter(table);
    for (int commit = 0; commit < 12; commit++) {
      writer.commit(inserts(commit * 10L, commit * 10L + 10, "v"));
    }
    OptimizePolicy policy = OptimizePolicy.fromProperties(table.name(), table.properties());
    OptimizeJob job = new OptimizeJob(directory.resolve("spill"));
    OptimizeJob.Preview preview =
        job.preview("t", table, policy, OptimizeFailures.none(), Instant.now());
    OptimizePlan plan = preview.plan();
    assertThat(plan.tasks()).hasSize(4);
    // Another engine deletes a row by position in a file the plan replaces, in partition p1.
    org.apache.iceberg.DataFile victim = dataFileOf(table, "part=p1");
    table.newRowDelta().addDeletes(UpsertTables.positionDelete(table, victim, 0)).commit();
    Map<Long, String> expected = UpsertTables.read(table);
    long filesInP1 = filesUnder(table, "part=p1");

    OptimizeResult result = job.run(table, preview);

    assertThat(result.partitions())
        .filteredOn(outcome -> outcome.partition().path().equals("part=p1"))
        .singleElement()
        .satisfies(
            outcome -> {
              assertThat(outcome.failed()).isEqualTo(1);
              assertThat(outcome.committed()).isZero();
              assertThat(outcome.problems().get(0))
                  .startsWith("conflict or failure committing")
                  .endsWith("output deleted, retried on a later run");
            });
    assertThat(result.partitions())
        .filteredOn(outcome -> !outcome.partition().path().equals("part=p1"))
        .hasSize(3)
        .allSatisfy(outcome -> assertThat(outcome.committed()).isEqualTo(1));
    assertThat(filesUnder(table, "part=p1")).isEqualTo(filesInP1);
    assertThat(UpsertTables.read(table)).isEqualTo(expected);
    Instant now = Instant.now();
    assertThat(
            result.updateFailures(dev.floe.core.optimize.OptimizeFailures.none(), now).failures())
        .containsOnlyKeys(
            new dev.floe.core.optimize.PartitionKey(UpsertTables.PARTITIONED.specId(), "part=p1"));

    // The next run, once the backoff is over, completes the partition.
    Run next = optimize(table);
    assertThat(next.result().succeeded()).isTrue();
    assertThat(UpsertTables.read(table)).isEqualTo(expected);
  }

  @Test
  void aRewriteThatLosesTheCatalogRaceToAFasterWriterIsCommittedAgainWithItsOutput() {
    Table table = table("racing", PartitionSpec.unpartitioned(), SMALL_TARGET);
    UpsertWriter writer = new UpsertWriter(table);
    for (int commit = 0; commit < 12; commit++) {
      writer.append(inserts(commit * 10L, commit * 10L + 10, "v"));
    }
    // The writer commits before every attempt of the rewrite, more often than Iceberg's own
    // retries (commit.retry.num-retries, 4 by default: 5 attempts) allow for.
    Table writersTable = catalog.catalog().loadTable(TableIdentifier.of("db", "racing"));
    UpsertWriter streaming = new UpsertWriter(writersTable);
    long[] next = {1_000};
    RacingWriterOperations racing =
        racing(
            table,
            race -> {
              streaming.append(inserts(next[0], next[0] + 5, "w"));
              next[0] += 5;
            },
            8);

    OptimizeResult result = optimize(table, racing);

    assertThat(result.succeeded()).as(result.toString()).isTrue();
    assertThat(racing.lost()).isEqualTo(8);
    table.refresh();
    assertThat(table.currentSnapshot().summary()).containsEntry("floe.optimize.kind", "minor");
    Map<Long, String> expected = new java.util.HashMap<>(writer.expected());
    expected.putAll(streaming.expected());
    assertThat(UpsertTables.read(table)).isEqualTo(expected);
  }

  @Test
  void aPositionDeleteThatWinsARaceIsStillSeenByTheNextAttempt() throws Exception {
    Table table = table("racing-delete", PartitionSpec.unpartitioned(), SMALL_TARGET);
    UpsertWriter writer = new UpsertWriter(table);
    for (int commit = 0; commit < 12; commit++) {
      writer.append(inserts(commit * 10L, commit * 10L + 10, "v"));
    }
    DataFile first =
        table.snapshots().iterator().next().addedDataFiles(table.io()).iterator().next();
    // Iceberg's own retries make 5 swaps of one attempt of the committer: the winner of the 5th,
    // the first attempt's last, deletes row 0 of a file the rewrite replaces. The second attempt
    // validates from the snapshot before the first, so it must see that delete and give up rather
    // than bring the row back.
    Table writersTable = catalog.catalog().loadTable(TableIdentifier.of("db", "racing-delete"));
    UpsertWriter streaming = new UpsertWriter(writersTable);
    long[] next = {1_000};
    RacingWriterOperations racing =
        racing(
            table,
            race -> {
              if (race == 5) {
                writersTable
                    .newRowDelta()
                    .addDeletes(UpsertTables.positionDelete(writersTable, first, 0))
                    .commit();
              } else {
                streaming.append(inserts(next[0], next[0] + 5, "w"));
                next[0] += 5;
              }
            },
            7);

    OptimizeResult result = optimize(table, racing);

    assertThat(result.succeeded()).as(result.toString()).isFalse();
    // the second attempt's validation refused it before any swap: races 6 and 7 never came
    assertThat(racing.lost()).isEqualTo(5);
    Map<Long, String> expected = new java.util.HashMap<>(writer.expected());
    expected.remove(0L);
    expected.putAll(streaming.expected());
    assertThat(UpsertTables.read(table)).isEqualTo(expected);
    table.refresh();
    assertThat(table.snapshots())
        .noneMatch(
            snapshot -> org.apache.iceberg.DataOperations.REPLACE.equals(snapshot.operation()));
  }

  /** The table's operations, with a writer's commit landing before each of the first swaps. */
  private static RacingWriterOperations racing(
      Table table, java.util.function.IntConsumer writer, int races) {
    return new RacingWriterOperations(
        ((org.apache.iceberg.HasTableOperations) table).operations(), writer, races);
  }

  /** Previews and runs the optimize job on the table through the racing operations. */
  private OptimizeResult optimize(Table table, RacingWriterOperations racing) {
    Table keepers = new org.apache.iceberg.BaseTable(racing, table.name());
    OptimizePolicy policy = OptimizePolicy.fromProperties(table.name(), table.properties());
    OptimizeJob job = new OptimizeJob(directory.resolve("spill"));
    return job.run(
        keepers, job.preview("t", keepers, policy, OptimizeFailures.none(), Instant.now()));
  }

  @Test
  void aCommitWhoseStateIsUnknownKeepsItsOutput() {
    Table table = table("unknown", PartitionSpec.unpartitioned(), SMALL_TARGET);
    UpsertWriter writer = new UpsertWriter(table);
    for (int commit = 0; commit < 12; commit++) {
      writer.append(inserts(commit * 10L, commit * 10L + 10, "v"));
    }
    Table flaky =
        new org.apache.iceberg.BaseTable(
            new CommitStateUnknownOperations(
                ((org.apache.iceberg.HasTableOperations) table).operations()),
            table.name());
    OptimizePolicy policy = OptimizePolicy.fromProperties(table.name(), table.properties());
    OptimizeJob job = new OptimizeJob(directory.resolve("spill"));
    OptimizeJob.Preview preview =
        job.preview("t", flaky, policy, OptimizeFailures.none(), Instant.now());
    OptimizePlan plan = preview.plan();

    OptimizeResult result = job.run(flaky, preview);

    PartitionOutcome outcome = result.partitions().get(0);
    assertThat(outcome.unknown()).isEqualTo(1);
    assertThat(outcome.problems().get(0)).contains("output kept");
    // It had landed: the new file is live and was not deleted.
    table.refresh();
    assertThat(table.currentSnapshot().summary()).containsEntry("floe.optimize.kind", "minor");
    assertThat(UpsertTables.read(table)).isEqualTo(writer.expected());
    assertThat(
            result
                .updateFailures(dev.floe.core.optimize.OptimizeFailures.none(), Instant.now())
                .failures())
        .isEmpty();
  }

  @Test
  void scannerSummarisesPartitionsWithoutReadingData() {
    Table table = table("scan", UpsertTables.PARTITIONED, SMALL_TARGET);
    UpsertWriter writer = new UpsertWriter(table);
    writer.commit(inserts(0, 8, "v"));
    writer.commit(List.of(Change.upsert(0, "x"), Change.upsert(0, "y"), Change.delete(4)));

    TableState state = scan(table);

    assertThat(state.snapshot()).isPresent();
    assertThat(state.partitions())
        .extracting(p -> p.partition().path())
        .containsExactly("part=p0", "part=p1", "part=p2", "part=p3");
    dev.floe.core.optimize.PartitionState p0 = state.partitions().get(0);
    assertThat(p0.smallFiles()).isEqualTo(2);
    assertThat(p0.dataRecords()).isEqualTo(2 + 2);
    // first commit: equality deletes for 0 and 4; second: equality delete for 0 and for 4,
    // a position delete for the first "0" written in the same commit
    assertThat(p0.equalityDeleteFiles()).isEqualTo(2);
    assertThat(p0.equalityDeleteRecords()).isEqualTo(4);
    assertThat(p0.positionDeleteFiles()).isEqualTo(1);
    assertThat(p0.positionDeleteRecords()).isEqualTo(1);
    assertThat(state.lastOptimize()).isEmpty();
  }

  @Test
  void groupsRewrittenOnOtherThreadsCommitOneByOneAndAnAbandonedGroupLeavesNoFile()
      throws Exception {
    Table table = table("split", UpsertTables.PARTITIONED, SMALL_TARGET);
    UpsertWriter writer = new UpsertWriter(table);
    for (int commit = 0; commit < 12; commit++) {
      writer.commit(inserts(commit * 10L, commit * 10L + 10, "v"));
    }
    OptimizePolicy policy = OptimizePolicy.fromProperties(table.name(), table.properties());
    OptimizeJob job = new OptimizeJob(directory.resolve("spill"));
    OptimizeJob.Preview preview =
        job.preview("t", table, policy, OptimizeFailures.none(), Instant.now());
    OptimizeResult result;
    try (OptimizeJob.Run run = job.start(table, preview)) {
      assertThat(run.tasks()).hasSize(4);
      java.util.concurrent.ExecutorService workers =
          java.util.concurrent.Executors.newFixedThreadPool(2);
      List<java.util.concurrent.Future<GroupResult>> rewritten = new ArrayList<>();
      for (OptimizeJob.GroupTask task : run.tasks()) {
        rewritten.add(workers.submit(() -> run.rewrite(task)));
      }
      List<GroupResult> results = new ArrayList<>();
      for (java.util.concurrent.Future<GroupResult> future : rewritten) {
        results.add(future.get());
      }
      workers.shutdown();
      // The last group's worker lost its lease: its files are removed, never committed.
      OptimizeJob.GroupTask lost = run.tasks().get(3);
      long written = results.get(3).added().size() + results.get(3).addedDeletes().size();
      assertThat(written).isPositive();
      run.abandon(lost, "lease expired", results.get(3));
      for (int i = 0; i < 3; i++) {
        assertThat(run.commit(run.tasks().get(i), results.get(i)).outcome())
            .isEqualTo(dev.floe.core.optimize.GroupOutcome.COMMITTED);
      }
      assertThat(run.settled()).isTrue();
      result = run.finish();
    }

    assertThat(UpsertTables.read(table)).isEqualTo(writer.expected());
    assertThat(result.succeeded()).isFalse();
    String lostPartition = preview.plan().tasks().get(3).partition().path();
    assertThat(result.partitions())
        .filteredOn(outcome -> outcome.partition().path().equals(lostPartition))
        .singleElement()
        .satisfies(
            outcome -> {
              assertThat(outcome.failed()).isEqualTo(1);
              assertThat(outcome.problems())
                  .containsExactly("lease expired; nothing committed, retried on a later run");
            });
    assertThat(result.partitions()).filteredOn(PartitionOutcome::succeeded).hasSize(3);
    // Every data or delete file on disk is referenced by some snapshot: the abandoned output
    // is gone.
    java.util.Set<Path> referenced = new java.util.HashSet<>();
    for (org.apache.iceberg.Snapshot snapshot : table.snapshots()) {
      snapshot.addedDataFiles(table.io()).forEach(f -> referenced.add(local(f.location())));
      snapshot.addedDeleteFiles(table.io()).forEach(f -> referenced.add(local(f.location())));
    }
    try (java.util.stream.Stream<Path> files =
        java.nio.file.Files.walk(local(table.location()).resolve("data"))) {
      assertThat(
              files
                  .filter(java.nio.file.Files::isRegularFile)
                  .filter(f -> !f.toString().endsWith(".crc")))
          .isNotEmpty()
          .allSatisfy(file -> assertThat(referenced).contains(file));
    }
  }

  private TableState scan(Table table) {
    table.refresh();
    return new OptimizeScanner()
        .scan(table.name(), table, OptimizePolicy.fromProperties(table.name(), table.properties()));
  }

  private static List<Change> randomRows(long from, long to) {
    java.util.Random random = new java.util.Random(from);
    List<Change> changes = new ArrayList<>();
    for (long id = from; id < to; id++) {
      changes.add(
          Change.upsert(
              id, Long.toHexString(random.nextLong()) + Long.toHexString(random.nextLong())));
    }
    return changes;
  }

  private static org.apache.iceberg.DataFile dataFileOf(Table table, String partitionPath) {
    try (org.apache.iceberg.io.CloseableIterable<org.apache.iceberg.FileScanTask> tasks =
        table.newScan().planFiles()) {
      for (org.apache.iceberg.FileScanTask task : tasks) {
        if (task.file().location().contains("/" + partitionPath + "/")) {
          return task.file();
        }
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    throw new AssertionError("no data file in " + partitionPath);
  }

  private static Path local(String location) {
    return Path.of(java.net.URI.create(location));
  }

  private static long filesUnder(Table table, String partitionPath) throws java.io.IOException {
    Path data =
        Path.of(java.net.URI.create(table.location())).resolve("data").resolve(partitionPath);
    try (java.util.stream.Stream<Path> files = java.nio.file.Files.list(data)) {
      return files.count();
    }
  }

  @Test
  void clustersRowsByKeySoThatALaterDeleteRewritesOnlyTheFileHoldingItsKeys() {
    Map<Long, Long> rewrittenFiles = new java.util.HashMap<>();
    for (boolean cluster : List.of(true, false)) {
      Map<String, String> properties = new java.util.HashMap<>(SMALL_TARGET);
      properties.put(OptimizePolicy.CLUSTER_BY_KEY, Boolean.toString(cluster));
      // compacted files of about the target size are large (small files are always rewritten)
      properties.put(OptimizePolicy.SMALL_FILE_RATIO, "0.3");
      Table table = table("cluster-" + cluster, PartitionSpec.unpartitioned(), properties);
      UpsertWriter writer = new UpsertWriter(table);
      // 12 files, each with keys from the whole range (commit c holds c, c + 12, c + 24, ...)
      int commits = 12;
      long keys = 120_000;
      for (int commit = 0; commit < commits; commit++) {
        List<Change> rows = new ArrayList<>();
        java.util.Random random = new java.util.Random(commit);
        for (long id = commit; id < keys; id += commits) {
          rows.add(Change.upsert(id, Long.toHexString(random.nextLong()) + random.nextLong()));
        }
        writer.append(rows);
      }
      Run first = optimize(table);
      assertThat(first.result().succeeded()).isTrue();
      List<org.apache.iceberg.DataFile> compacted = dataFiles(table);
      assertThat(compacted).hasSizeGreaterThanOrEqualTo(3);
      long large = compacted.stream().filter(file -> file.fileSizeInBytes() >= 314_573).count();
      assertThat(large).as("compacted files of at least 0.3 MiB").isGreaterThanOrEqualTo(2);
      if (cluster) {
        // key ranges of the output files do not overlap
        compacted.sort(java.util.Comparator.comparing(file -> bound(file.lowerBounds())));
        for (int i = 1; i < compacted.size(); i++) {
          assertThat(bound(compacted.get(i).lowerBounds()))
              .isGreaterThan(bound(compacted.get(i - 1).upperBounds()));
        }
      }

      // Streaming updates and deletes of the newest keys only.
      for (int commit = 0; commit < 8; commit++) {
        long id = keys - 1 - commit * 3;
        writer.commit(List.of(Change.upsert(id, "new" + commit), Change.delete(id - 1)));
      }
      Run second = optimize(table);

      PartitionOutcome outcome = second.result().partitions().get(0);
      assertThat(outcome.kind()).isEqualTo(TaskKind.DELETES);
      assertThat(UpsertTables.read(table)).isEqualTo(writer.expected());
      assertThat(scan(table).totals().deleteFiles()).isZero();
      rewrittenFiles.put(cluster ? 1L : 0L, outcome.filesRewritten() - 8);
      if (!cluster) {
        // in file order every compacted file spans every key: each takes the deletes
        assertThat(outcome.filesRewritten() - 8).isEqualTo(compacted.size());
        assertThat(outcome.filesRewritten() - 8).isGreaterThan(1);
      }
    }
    // key-ordered: only the file holding the newest keys is rewritten with the 8 new small ones
    assertThat(rewrittenFiles.get(1L)).isEqualTo(1);
  }

  private static List<org.apache.iceberg.DataFile> dataFiles(Table table) {
    List<org.apache.iceberg.DataFile> files = new ArrayList<>();
    try (org.apache.iceberg.io.CloseableIterable<org.apache.iceberg.FileScanTask> tasks =
        table.newScan().includeColumnStats().planFiles()) {
      tasks.forEach(task -> files.add(task.file().copy()));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return files;
  }

  private static long bound(Map<Integer, java.nio.ByteBuffer> bounds) {
    return org.apache.iceberg.types.Conversions.fromByteBuffer(
        org.apache.iceberg.types.Types.LongType.get(), bounds.get(1));
  }

  @Test
  void writesInTheTableSortOrderThroughSpilledRuns() throws Exception {
    Map<String, String> properties = new java.util.HashMap<>(SMALL_TARGET);
    properties.put(OptimizePolicy.SPILL_MEMORY_BYTES, "1048576");
    Table table = table("sorted", PartitionSpec.unpartitioned(), properties);
    table.replaceSortOrder().asc("payload").commit();
    UpsertWriter writer = new UpsertWriter(table);
    for (int commit = 0; commit < 12; commit++) {
      writer.append(randomRows(commit * 1000L, commit * 1000L + 1000));
    }

    Run run = optimize(table);

    assertThat(run.result().succeeded()).isTrue();
    assertThat(UpsertTables.read(table)).isEqualTo(writer.expected());
    List<String> payloads = new ArrayList<>();
    try (org.apache.iceberg.io.CloseableIterable<org.apache.iceberg.FileScanTask> tasks =
        table.newScan().planFiles()) {
      List<org.apache.iceberg.FileScanTask> files = new ArrayList<>();
      tasks.forEach(files::add);
      assertThat(files).hasSize(1);
      try (org.apache.iceberg.io.CloseableIterable<org.apache.iceberg.data.Record> rows =
          ParquetFiles.read(table, files.get(0).file(), table.schema())) {
        rows.forEach(row -> payloads.add((String) row.getField("payload")));
      }
    }
    assertThat(payloads).hasSize(12_000).isSorted();
  }
}

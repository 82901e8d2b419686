package dev.floe.iceberg.optimize;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.floe.core.config.CatalogSettings;
import dev.floe.core.error.ErrorCategory;
import dev.floe.core.error.FloeException;
import dev.floe.core.optimize.CandidateFile;
import dev.floe.core.optimize.GroupOutcome;
import dev.floe.core.optimize.OptimizeFailures;
import dev.floe.core.optimize.OptimizePolicy;
import dev.floe.core.optimize.OptimizeResult;
import dev.floe.core.optimize.PartitionKey;
import dev.floe.core.optimize.PartitionOutcome;
import dev.floe.core.optimize.TableState;
import dev.floe.iceberg.CatalogFactory;
import dev.floe.iceberg.FloeCatalog;
import dev.floe.iceberg.optimize.UpsertWriter.Change;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.hadoop.HadoopFileIO;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.util.ContentFileUtil;
import org.apache.iceberg.util.JsonUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A file-group task that travels: portable task to JSON and back, rewritten by a {@link
 * PortableRewriter} with its own FileIO, the result to JSON and back into the keeper's run, and
 * committed there. Real format-v2 tables in the embedded catalog.
 */
class PortableTaskTest {

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

  @Test
  void aTaskRewrittenElsewhereThroughJsonCommitsExactlyTheWritersRows() throws Exception {
    Table table = upsertedTable("travel", Map.of());
    UpsertWriter writer = writeUpsertsAndDeletes(table);
    Map<Long, String> expected = writer.expected();
    Path workerSpill = directory.resolve("worker-spill");

    OptimizeResult result;
    List<DataFile> received = new ArrayList<>();
    try (OptimizeJob.Run run = start(table)) {
      assertThat(run.tasks()).hasSize(4);
      for (OptimizeJob.GroupTask task : run.tasks()) {
        PortableTask portable = run.portable(task);
        String taskJson = PortableTaskCodec.toJson(portable);

        // The worker: only the JSON, its own FileIO.
        PortableTask arrived = PortableTaskCodec.fromJson(taskJson);
        assertThat(arrived).isEqualTo(portable);
        String resultJson;
        try (FileIO io = PortableRewriter.fileIo(arrived.io(), Map.of())) {
          assertThat(io).isNotSameAs(table.io());
          Table opened = PortableRewriter.open(arrived, io);
          GroupResult rewritten = new PortableRewriter().rewrite(arrived, opened, workerSpill);
          resultJson = GroupResultCodec.toJson(arrived, rewritten, opened.specs());
        }

        // The keeper.
        GroupResult decoded = run.decode(task, resultJson);
        assertThat(decoded.replaced())
            .extracting(DataFile::location)
            .containsExactlyInAnyOrderElementsOf(paths(task.group().rewrite()));
        assertThat(decoded.added())
            .isNotEmpty()
            .allSatisfy(
                file -> {
                  assertThat(file.lowerBounds()).containsKey(1);
                  assertThat(file.upperBounds()).containsKey(1);
                  assertThat(file.recordCount()).isPositive();
                });
        received.addAll(decoded.added());
        assertThat(run.commit(task, decoded).outcome()).isEqualTo(GroupOutcome.COMMITTED);
      }
      result = run.finish();
    }

    assertThat(result.succeeded()).as(result.toString()).isTrue();
    assertThat(UpsertTables.read(table)).isEqualTo(expected);
    assertThat(result.partitions().stream().mapToLong(PartitionOutcome::rowsDeleted).sum())
        .isEqualTo(400 + 10 * 60 - expected.size());
    TableState after = scan(table);
    assertThat(after.totals().dataFiles()).isEqualTo(4);
    assertThat(after.totals().deleteFiles()).isZero();
    List<DataFile> live = liveDataFiles(table);
    assertThat(live)
        .extracting(DataFile::location)
        .containsExactlyInAnyOrderElementsOf(received.stream().map(DataFile::location).toList());
    assertThat(live)
        .allSatisfy(
            file -> {
              assertThat(file.lowerBounds()).containsKeys(1, 2, 3);
              assertThat(file.upperBounds()).containsKeys(1, 2, 3);
              assertThat(file.columnSizes()).containsKeys(1, 2, 3);
            });
  }

  @Test
  void theConvertedLargeFilesPositionDeletesTravelToo() {
    Map<String, String> properties = new HashMap<>(OptimizeJobTest.SMALL_TARGET);
    properties.put(OptimizePolicy.DELETES_CONVERT_MIN_PARTITION_BYTES, "0");
    Table table =
        UpsertTables.create(
            catalog.catalog(), "convert", PartitionSpec.unpartitioned(), properties);
    UpsertWriter writer = new UpsertWriter(table);
    writer.append(randomRows(0, 60_000));
    for (int commit = 0; commit < 8; commit++) {
      writer.commit(
          List.of(Change.upsert(commit * 7L, "new" + commit), Change.delete(commit * 7L + 1)));
    }

    OptimizeResult result;
    try (OptimizeJob.Run run = start(table)) {
      List<OptimizeJob.GroupTask> converting =
          run.tasks().stream().filter(task -> !task.group().convert().isEmpty()).toList();
      assertThat(converting).singleElement();
      for (OptimizeJob.GroupTask task : run.tasks()) {
        GroupResult decoded = run.decode(task, rewriteElsewhere(run, task));
        if (converting.contains(task)) {
          String large = task.group().convert().get(0).path();
          assertThat(decoded.converted()).extracting(DataFile::location).containsExactly(large);
          assertThat(decoded.addedDeletes())
              .singleElement()
              .satisfies(
                  delete -> {
                    assertThat(delete.content()).isEqualTo(FileContent.POSITION_DELETES);
                    assertThat(ContentFileUtil.referencedDataFile(delete)).hasToString(large);
                    assertThat(delete.recordCount()).isEqualTo(16);
                  });
        }
        assertThat(run.commit(task, decoded).outcome()).isEqualTo(GroupOutcome.COMMITTED);
      }
      result = run.finish();
    }

    PartitionOutcome outcome = result.partitions().get(0);
    assertThat(outcome.filesConverted()).isEqualTo(1);
    assertThat(outcome.deleteFilesAdded()).isEqualTo(1);
    assertThat(outcome.deleteFilesRemoved()).isEqualTo(8);
    assertThat(UpsertTables.read(table)).isEqualTo(writer.expected());
    TableState after = scan(table);
    assertThat(after.totals().equalityDeleteFiles()).isZero();
    assertThat(after.totals().positionDeleteFiles()).isEqualTo(1);
  }

  @Test
  void aTaskWhoseMetadataFileIsGoneFailsNamingIt() throws Exception {
    Map<String, String> properties = new HashMap<>();
    properties.put(TableProperties.METADATA_DELETE_AFTER_COMMIT_ENABLED, "true");
    properties.put(TableProperties.METADATA_PREVIOUS_VERSIONS_MAX, "1");
    Table table = upsertedTable("gone", properties);
    UpsertWriter writer = writeAFew(table);

    try (OptimizeJob.Run run = start(table)) {
      OptimizeJob.GroupTask task = run.tasks().get(0);
      PortableTask portable =
          PortableTaskCodec.fromJson(PortableTaskCodec.toJson(run.portable(task)));
      // The writer goes on; the table drops its old metadata files.
      writer.commit(List.of(Change.upsert(1, "later")));
      writer.commit(List.of(Change.upsert(2, "later")));
      assertThat(local(portable.metadataLocation())).doesNotExist();

      String message =
          "Cannot run task 0 of "
              + table.name()
              + " ("
              + portable.operationId()
              + "): its metadata file "
              + portable.metadataLocation()
              + " does not exist. The table's old metadata files may have been removed since the"
              + " run started (write.metadata.delete-after-commit.enabled), or this worker's"
              + " FileIO does not reach the table's storage; a later run plans the table again.";
      try (FileIO io = PortableRewriter.fileIo(portable.io(), Map.of())) {
        assertThatThrownBy(
                () -> new PortableRewriter().rewrite(portable, io, directory.resolve("spill")))
            .isInstanceOf(FloeException.class)
            .hasMessage(message)
            .satisfies(
                e ->
                    assertThat(((FloeException) e).category())
                        .isEqualTo(ErrorCategory.SOURCE_UNAVAILABLE));
      }
      // The keeper's own threads run the same path.
      assertThatThrownBy(() -> run.rewrite(task)).hasMessage(message);
    }
  }

  @Test
  void aTaskNamingAFileThatIsNotInItsSnapshotFailsNamingIt() {
    Table table = upsertedTable("stray", Map.of());
    writeAFew(table);

    try (OptimizeJob.Run run = start(table)) {
      PortableTask planned = run.portable(run.tasks().get(0));
      List<CandidateFile> rewrite = new ArrayList<>(planned.rewrite());
      rewrite.add(new CandidateFile("file:/elsewhere/stray.parquet", 100, 1, 10, false));
      PortableTask stray =
          new PortableTask(
              planned.table(),
              planned.metadataLocation(),
              planned.snapshotId(),
              planned.partition(),
              rewrite,
              planned.convert(),
              planned.settings(),
              planned.operationId(),
              planned.taskId(),
              planned.io());

      assertThatThrownBy(
              () -> new PortableRewriter().rewrite(stray, table.io(), directory.resolve("spill")))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage(
              "task 0 of "
                  + table.name()
                  + " names data file file:/elsewhere/stray.parquet, which is not in partition "
                  + planned.partition().path()
                  + " at snapshot "
                  + planned.snapshotId());
    }
  }

  @Test
  void discardRemovesALateResultsFilesButNeverOneTheTableReferences() throws Exception {
    Table table = upsertedTable("discard", Map.of());
    UpsertWriter writer = writeAFew(table);
    Map<Long, String> expected = writer.expected();

    try (OptimizeJob.Run run = start(table)) {
      OptimizeJob.GroupTask late = run.tasks().get(0);
      GroupResult lateResult = run.decode(late, rewriteElsewhere(run, late));
      List<String> written = new ArrayList<>();
      lateResult.added().forEach(file -> written.add(file.location()));
      lateResult.addedDeletes().forEach(file -> written.add(file.location()));
      assertThat(written).isNotEmpty().allSatisfy(path -> assertThat(local(path)).exists());

      assertThat(run.discard(lateResult)).containsExactlyInAnyOrderElementsOf(written);

      assertThat(written).allSatisfy(path -> assertThat(local(path)).doesNotExist());
      assertThat(UpsertTables.read(table)).isEqualTo(expected);
      assertThat(run.settled()).isFalse();

      // A result that was committed: discarding it deletes nothing.
      OptimizeJob.GroupTask committed = run.tasks().get(1);
      GroupResult result = run.rewrite(committed);
      assertThat(run.commit(committed, result).outcome()).isEqualTo(GroupOutcome.COMMITTED);
      assertThat(run.discard(result)).isEmpty();
      assertThat(result.added()).allSatisfy(file -> assertThat(local(file.location())).exists());
      assertThat(UpsertTables.read(table)).isEqualTo(expected);
    }
  }

  @Test
  void theCodecsRefuseANewerFormat() throws Exception {
    Table table = upsertedTable("format", Map.of());
    writeAFew(table);

    try (OptimizeJob.Run run = start(table)) {
      OptimizeJob.GroupTask task = run.tasks().get(0);
      ObjectNode taskJson = object(PortableTaskCodec.toJson(run.portable(task)));
      taskJson.put("format", 2);
      assertThatThrownBy(() -> PortableTaskCodec.fromJson(taskJson.toString()))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage(
              "portable task has format 2, newer than this Floe reads (1); run the same Floe"
                  + " version on the keeper and its workers");
      taskJson.remove("format");
      assertThatThrownBy(() -> PortableTaskCodec.fromJson(taskJson))
          .hasMessage("portable task has no \"format\" number; this Floe reads format 1");

      ObjectNode resultJson = object(rewriteElsewhere(run, task));
      resultJson.put("format", 2);
      assertThatThrownBy(() -> run.decode(task, resultJson))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage(
              "optimize task result has format 2, newer than this Floe reads (1); run the same"
                  + " Floe version on the keeper and its workers");
    }
  }

  @Test
  void decodingRefusesAResultThatIsNotTheTasks() throws Exception {
    Table table = upsertedTable("refuse", Map.of());
    writeAFew(table);

    try (OptimizeJob.Run run = start(table)) {
      OptimizeJob.GroupTask task = run.tasks().get(0);
      OptimizeJob.GroupTask other = run.tasks().get(1);
      String json = rewriteElsewhere(run, task);

      ObjectNode foreign = object(json);
      ((ArrayNode) foreign.get("rewritten")).add("file:/elsewhere/a.parquet");
      assertThatThrownBy(() -> run.decode(task, foreign))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage(
              "optimize task result names file:/elsewhere/a.parquet, which is not in the group of"
                  + " task 0 of "
                  + table.name());

      String firstOfOther = other.group().rewrite().get(0).path();
      ObjectNode wrongGroup = object(json);
      ((ArrayNode) wrongGroup.get("rewritten")).add(firstOfOther);
      assertThatThrownBy(() -> run.decode(task, wrongGroup))
          .hasMessage(
              "optimize task result names "
                  + firstOfOther
                  + ", which is not in the group of task 0 of "
                  + table.name());

      String operationId = run.portable(task).operationId();
      assertThatThrownBy(() -> run.decode(other, json))
          .hasMessage(
              "optimize task result is for task 0 of "
                  + table.name()
                  + " ("
                  + operationId
                  + "), not task 1 of "
                  + table.name()
                  + " ("
                  + operationId
                  + ")");

      // The worker's files are never committed: remove them.
      assertThat(run.discard(run.decode(task, json))).isNotEmpty();
    }
  }

  @Test
  void secretFileIoPropertiesNeverTravel() {
    Map<String, String> properties = new HashMap<>();
    properties.put("s3.secret-access-key", "SECRET-VALUE-1");
    properties.put("s3.access-key-id", "ACCESS-KEY-VALUE");
    properties.put("s3.session-token", "TOKEN-VALUE");
    properties.put("jdbc.password", "PASSWORD-VALUE");
    properties.put("gcs.oauth2.Credential", "CREDENTIAL-VALUE");
    properties.put("uri", "jdbc:postgresql://db:5432/lake?user=floe&password=URI-PASSWORD");
    properties.put("s3.endpoint", "http://minio:9000");
    properties.put("warehouse", "s3://lake/warehouse");
    HadoopFileIO io = new HadoopFileIO(new Configuration());
    io.initialize(properties);

    PortableTask.FileIoDescription description = PortableTask.FileIoDescription.of(io);
    PortableTask task =
        new PortableTask(
            "lake.db.orders",
            "s3://lake/warehouse/db/orders/metadata/00001.metadata.json",
            42L,
            PartitionKey.unpartitioned(0),
            List.of(new CandidateFile("s3://lake/a.parquet", 10, 1, 4, true)),
            List.of(new CandidateFile("s3://lake/b.parquet", 5000, 2, 40, true)),
            new RewriteSettings(1048576, 67108864, 0.2, true),
            "floe-optimize-1",
            3,
            description);
    String json = PortableTaskCodec.toJson(task);

    assertThat(description.implementation()).isEqualTo(HadoopFileIO.class.getName());
    assertThat(description.properties())
        .containsOnlyKeys("s3.endpoint", "warehouse")
        .containsEntry("s3.endpoint", "http://minio:9000");
    for (String secret :
        List.of("SECRET-VALUE-1", "ACCESS-KEY-VALUE", "TOKEN-VALUE", "PASSWORD-VALUE")) {
      assertThat(json).doesNotContain(secret);
    }
    assertThat(json)
        .doesNotContain("CREDENTIAL-VALUE")
        .doesNotContain("URI-PASSWORD")
        .doesNotContain("secret-access-key")
        .doesNotContain("jdbc.password");
    // Round trip, unpartitioned and with a file to convert.
    assertThat(PortableTaskCodec.fromJson(json)).isEqualTo(task);
    // A task of a keeper from before cluster_by_key is rewritten in file order, as it was then.
    String older = json.replace(",\"cluster_by_key\":true", "");
    assertThat(older).isNotEqualTo(json).doesNotContain("cluster_by_key");
    assertThat(PortableTaskCodec.fromJson(older).settings().clusterByKey()).isFalse();

    // A worker adds its own secrets to the description.
    try (FileIO workerIo =
        PortableRewriter.fileIo(
            PortableTaskCodec.fromJson(json).io(), Map.of("s3.secret-access-key", "from-env"))) {
      assertThat(workerIo).isInstanceOf(HadoopFileIO.class);
      assertThat(workerIo.properties())
          .containsEntry("s3.secret-access-key", "from-env")
          .containsEntry("warehouse", "s3://lake/warehouse");
    }
  }

  // ---- helpers

  private Table upsertedTable(String name, Map<String, String> extra) {
    Map<String, String> properties = new HashMap<>(OptimizeJobTest.SMALL_TARGET);
    properties.put(OptimizePolicy.MINOR_MIN_SMALL_FILES, "2");
    properties.putAll(extra);
    return UpsertTables.create(catalog.catalog(), name, UpsertTables.PARTITIONED, properties);
  }

  /**
   * Many small files with equality deletes: 400 inserts, then 10 commits of upserts (twice in the
   * same commit: a position delete too) and a delete each.
   */
  private static UpsertWriter writeUpsertsAndDeletes(Table table) {
    UpsertWriter writer = new UpsertWriter(table);
    List<Change> inserts = new ArrayList<>();
    for (long id = 0; id < 400; id++) {
      inserts.add(Change.upsert(id, "v" + id));
    }
    writer.commit(inserts);
    for (int commit = 0; commit < 10; commit++) {
      List<Change> changes = new ArrayList<>();
      for (long id = commit * 30L; id < commit * 30L + 30; id++) {
        changes.add(Change.upsert(id, "u" + commit));
        changes.add(Change.upsert(id, "w" + commit));
      }
      changes.add(Change.delete(399 - commit));
      writer.commit(changes);
    }
    return writer;
  }

  /**
   * A few small files per partition with equality and position deletes, quick to write; the table
   * must plan with 2 small files ({@link #upsertedTable}).
   */
  private static UpsertWriter writeAFew(Table table) {
    UpsertWriter writer = new UpsertWriter(table);
    List<Change> inserts = new ArrayList<>();
    for (long id = 0; id < 40; id++) {
      inserts.add(Change.upsert(id, "v" + id));
    }
    writer.commit(inserts);
    writer.commit(
        List.of(
            Change.upsert(1, "u"), Change.upsert(1, "w"), Change.delete(2), Change.upsert(7, "u")));
    writer.commit(List.of(Change.upsert(4, "u"), Change.upsert(5, "u"), Change.upsert(6, "u")));
    return writer;
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

  private OptimizeJob.Run start(Table table) {
    table.refresh();
    OptimizePolicy policy = OptimizePolicy.fromProperties(table.name(), table.properties());
    OptimizeJob job = new OptimizeJob(directory.resolve("spill"));
    OptimizeJob.Preview preview =
        job.preview(table.name(), table, policy, OptimizeFailures.none(), Instant.now());
    return job.start(table, preview);
  }

  /** What a worker in another process answers for {@code task}, with a FileIO of its own. */
  private String rewriteElsewhere(OptimizeJob.Run run, OptimizeJob.GroupTask task) {
    PortableTask portable =
        PortableTaskCodec.fromJson(PortableTaskCodec.toJson(run.portable(task)));
    try (FileIO io = PortableRewriter.fileIo(portable.io(), Map.of())) {
      Table opened = PortableRewriter.open(portable, io);
      GroupResult result =
          new PortableRewriter().rewrite(portable, opened, directory.resolve("worker-spill"));
      return GroupResultCodec.toJson(portable, result, opened.specs());
    }
  }

  private static ObjectNode object(String json) throws IOException {
    return (ObjectNode) JsonUtil.mapper().readTree(json);
  }

  private static List<String> paths(List<CandidateFile> files) {
    return files.stream().map(CandidateFile::path).toList();
  }

  private TableState scan(Table table) {
    table.refresh();
    return new OptimizeScanner()
        .scan(table.name(), table, OptimizePolicy.fromProperties(table.name(), table.properties()));
  }

  private static List<DataFile> liveDataFiles(Table table) {
    table.refresh();
    List<DataFile> files = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().includeColumnStats().planFiles()) {
      tasks.forEach(task -> files.add(task.file()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return files;
  }

  private static Path local(String location) {
    return Path.of(URI.create(location));
  }
}

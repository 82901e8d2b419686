package dev.floe.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.floe.core.Secret;
import dev.floe.core.WorkerToken;
import dev.floe.core.config.CatalogSettings;
import dev.floe.core.config.KeeperSettings;
import dev.floe.core.config.ListenAddress;
import dev.floe.core.config.OptimizerSettings;
import dev.floe.core.config.WorkerGroupSettings;
import dev.floe.core.error.FloeException;
import dev.floe.core.optimize.OptimizePolicy;
import dev.floe.core.state.TableKey;
import dev.floe.core.sync.SyncSummary;
import dev.floe.iceberg.optimize.UpsertTables;
import dev.floe.iceberg.optimize.UpsertWriter;
import dev.floe.iceberg.optimize.UpsertWriter.Change;
import dev.floe.server.maintenance.IcebergMaintenanceJobs;
import dev.floe.server.store.TableRecord;
import dev.floe.server.workers.WorkerLauncher;
import dev.floe.testing.Poll;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The keeper service on a real embedded catalog and real Iceberg tables, through its API. */
class KeeperServiceITCase {

  private static final Duration WITHIN = Duration.ofSeconds(90);
  private static final Duration EVERY = Duration.ofMillis(200);

  /** Small files and fast retries, so the keeper has work within seconds. */
  private static final Map<String, String> KEPT =
      Map.of(
          OptimizePolicy.TARGET_FILE_SIZE_BYTES, "1048576",
          OptimizePolicy.RETRY_BACKOFF_MS, "100",
          OptimizePolicy.RETRY_MAX_BACKOFF_MS, "200",
          // stragglers below the count triggers are compacted 3 s after the last optimize, so
          // a table that went quiet is finished off without any further commit
          OptimizePolicy.MINOR_MAX_INTERVAL_MS, "3000");

  /** How often the streaming writer of the live-table test commits. */
  private static final Duration WRITER_PERIOD = Duration.ofMillis(333);

  @TempDir Path directory;

  @Test
  void aTableCreatedWhileServingIsDiscoveredAndADroppedOneForgotten() throws Exception {
    try (KeeperFixture keeper =
        new KeeperFixture(directory, KeeperFixture.settings(5, Optional.empty()))) {
      UpsertTables.create(keeper.catalog.catalog(), "fresh", PartitionSpec.unpartitioned(), KEPT);
      Poll.until("db.fresh is listed", WITHIN, EVERY, () -> keeper.table("db.fresh").isPresent());

      keeper.catalog.catalog().dropTable(TableIdentifier.of("db", "fresh"));
      Poll.until("db.fresh is forgotten", WITHIN, EVERY, () -> keeper.table("db.fresh").isEmpty());

      List<String> kinds = new ArrayList<>();
      keeper
          .get("/api/v1/events?table=db.fresh&catalog=floe")
          .get("events")
          .forEach(event -> kinds.add(event.get("kind").asText()));
      assertThat(kinds).containsSubsequence("table_dropped", "table_discovered");
      assertThat(keeper.request("GET", "/api/v1/tables/db.fresh", Optional.empty()).statusCode())
          .isEqualTo(404);
    }
  }

  @Test
  void optimizeNowRewritesWhatTheThresholdsLeave() throws Exception {
    try (KeeperFixture keeper =
        new KeeperFixture(directory, KeeperFixture.settings(5, Optional.empty()))) {
      // No time trigger and count thresholds out of reach: the keeper plans nothing by itself.
      Map<String, String> properties = new HashMap<>(KEPT);
      properties.put(OptimizePolicy.MINOR_MAX_INTERVAL_MS, "0");
      properties.put(OptimizePolicy.MINOR_MIN_SMALL_FILES, "100");
      properties.put(OptimizePolicy.DELETES_MIN_DELETE_FILES, "100");
      properties.put(OptimizePolicy.DELETES_MIN_RATIO, "1");
      Table table =
          UpsertTables.create(
              keeper.catalog.catalog(), "few", PartitionSpec.unpartitioned(), properties);
      // three small appended files, one row of the first deleted by a position delete
      Map<Long, String> expected = new HashMap<>();
      DataFile first = null;
      for (int file = 0; file < 3; file++) {
        List<org.apache.iceberg.data.Record> rows = new ArrayList<>();
        for (long id = file * 100L; id < file * 100L + 100; id++) {
          rows.add(UpsertTables.row(id, "v" + id));
          expected.put(id, "v" + id);
        }
        DataFile written = appendFile(table, rows);
        first = first == null ? written : first;
      }
      table.newRowDelta().addDeletes(UpsertTables.positionDelete(table, first, 0)).commit();
      expected.remove(0L);
      String location = currentMetadata(table);
      Poll.until(
          "the keeper scans db.few and leaves it idle",
          WITHIN,
          EVERY,
          () -> {
            if (keeper.table("db.few").isEmpty()) {
              return false;
            }
            JsonNode detail = keeper.get("/api/v1/tables/db.few");
            assertThat(detail.get("last_optimized_at").isNull())
                .as("below every threshold, the keeper leaves db.few alone: %s", detail)
                .isTrue();
            return detail.get("state").asText().equals("idle")
                && location.equals(detail.path("metadata_location").asText());
          });
      int snapshotsBefore = snapshotCount(table);

      HttpResponse<String> asked =
          keeper.request("POST", "/api/v1/tables/db.few/optimize", Optional.empty());

      assertThat(asked.statusCode()).as(asked.body()).isBetween(200, 299);
      Poll.until(
          "optimize now leaves db.few with one data file and no delete file",
          WITHIN,
          EVERY,
          () -> {
            JsonNode entry = keeper.table("db.few").orElseThrow();
            return entry.get("state").asText().equals("idle")
                && entry.get("data_files").asLong() == 1
                && entry.get("delete_files").asLong() == 0;
          });
      table.refresh();
      assertThat(snapshotCount(table)).isGreaterThan(snapshotsBefore);
      assertThat(UpsertTables.read(table)).isEqualTo(expected);
    }
  }

  /** Appends the rows as one data file of the unpartitioned table; returns it. */
  private static DataFile appendFile(Table table, List<org.apache.iceberg.data.Record> rows)
      throws IOException {
    org.apache.iceberg.io.DataWriter<org.apache.iceberg.data.Record> writer =
        new org.apache.iceberg.data.GenericAppenderFactory(table.schema(), table.spec())
            .newDataWriter(
                table
                    .encryption()
                    .encrypt(
                        table
                            .io()
                            .newOutputFile(
                                table
                                    .locationProvider()
                                    .newDataLocation(
                                        "append-" + java.util.UUID.randomUUID() + ".parquet"))),
                org.apache.iceberg.FileFormat.PARQUET,
                null);
    try (writer) {
      rows.forEach(writer::write);
    }
    table.newAppend().appendFile(writer.toDataFile()).commit();
    return writer.toDataFile();
  }

  @Test
  void aRecentlyChangedTableIsSeenBetweenRefreshes() throws Exception {
    KeeperSettings settings =
        KeeperFixture.settings(5, Optional.empty()).toBuilder()
            .refreshInterval(Duration.ofMinutes(10))
            .build();
    try (KeeperFixture keeper = new KeeperFixture(directory, settings)) {
      Map<String, String> properties = new HashMap<>(KEPT);
      properties.put(OptimizePolicy.ENABLED, "false"); // no run of the keeper's own in between
      Table table =
          UpsertTables.create(
              keeper.catalog.catalog(), "hot", PartitionSpec.unpartitioned(), properties);
      UpsertWriter writer = new UpsertWriter(table);
      TableKey key = new TableKey("floe", "db.hot");
      keeper.service.discovery().refresh(); // discovered and evaluated
      awaitEvaluatedAt(keeper, key, table, Duration.ofSeconds(30));

      writer.commit(List.of(Change.upsert(1, "a")));
      assertThat(keeper.service.discovery().hotTables()).isZero();
      keeper.service.discovery().refresh(); // a refresh sees the change: the table is hot now
      awaitEvaluatedAt(keeper, key, table, Duration.ofSeconds(30));
      assertThat(keeper.service.discovery().hotTables()).isEqualTo(1);

      // No refresh comes for 10 minutes: only the poll of hot tables can see these commits.
      for (int commit = 0; commit < 3; commit++) {
        writer.commit(List.of(Change.upsert(2 + commit, "b")));
        awaitEvaluatedAt(keeper, key, table, Duration.ofSeconds(15));
      }
      assertThat(UpsertTables.read(table)).isEqualTo(writer.expected());
    }
  }

  /** Until the keeper's record of the table holds the table's current metadata location. */
  private static void awaitEvaluatedAt(
      KeeperFixture keeper, TableKey key, Table table, Duration within) throws Exception {
    table.refresh();
    String current =
        ((org.apache.iceberg.HasTableOperations) table)
            .operations()
            .current()
            .metadataFileLocation();
    Poll.until(
        key + " evaluated at " + current,
        within,
        EVERY,
        () ->
            keeper
                .service
                .registry()
                .get(key)
                .flatMap(TableRecord::metadataLocation)
                .equals(Optional.of(current)));
  }

  @Test
  void aStreamingUpsertTableIsKeptHealthyAndKeepsEveryRow() throws Exception {
    try (KeeperFixture keeper =
        new KeeperFixture(directory, KeeperFixture.settings(5, Optional.empty()))) {
      Table table =
          UpsertTables.create(keeper.catalog.catalog(), "live", UpsertTables.PARTITIONED, KEPT);
      UpsertWriter writer = new UpsertWriter(table);
      Random random = new Random(7);
      // Three commits a second (a streaming job checkpointing every 333 ms, keeper-live's rate):
      // upserts and deletes of keys spread over every partition, at least 30 commits and until
      // the keeper has committed a rewrite in between (a count and a condition, not a time: a
      // loaded machine takes longer). Not back to back: a writer whose next commit starts as its
      // last one lands leaves no moment in which any other commit to the table can land (Iceberg
      // commits optimistically, and the keeper's commit reads and writes more than the writer's).
      long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
      long nextCommit = System.nanoTime();
      int keeperRewritesWhileWriting = 0;
      while (writer.commits() < 30 || keeperRewritesWhileWriting == 0) {
        long early = nextCommit - System.nanoTime();
        if (early > 0) {
          Thread.sleep(early / 1_000_000); // the writer's rate, not a wait for a condition
        }
        nextCommit += WRITER_PERIOD.toNanos();
        assertThat(System.nanoTime())
            .as("the keeper commits a rewrite within 3 minutes of streaming writes")
            .isLessThan(deadline);
        List<Change> changes = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
          long id = random.nextInt(2_000);
          changes.add(
              random.nextInt(10) == 0
                  ? Change.delete(id)
                  : Change.upsert(id, "v" + writer.commits()));
        }
        writer.commit(changes);
        keeperRewritesWhileWriting = rewrites(table);
      }

      try {
        Poll.until(
            "the keeper brings db.live above health 90 and leaves it idle",
            Duration.ofMinutes(3),
            Duration.ofMillis(500),
            () -> {
              JsonNode entry = keeper.table("db.live").orElseThrow();
              return entry.get("health").asInt() > 90 && entry.get("state").asText().equals("idle");
            });
      } catch (AssertionError e) {
        throw new AssertionError(
            e.getMessage() + "; now: " + keeper.get("/api/v1/tables/db.live"), e);
      }
      assertThat(UpsertTables.read(table)).isEqualTo(writer.expected());
      JsonNode detail = keeper.get("/api/v1/tables/db.live");
      assertThat(detail.get("last_optimized_at").isNull()).isFalse();
      assertThat(detail.get("runs")).isNotEmpty();
      // the newest run may be the metadata clean the optimize commit made due
      List<String> kinds = new ArrayList<>();
      detail.get("runs").forEach(run -> kinds.add(run.get("kind").asText()));
      assertThat(kinds).contains("optimize");
    }
  }

  @Test
  void aTableWithACorruptFileIsQuarantinedWhileAnotherIsOptimized() throws Exception {
    try (KeeperFixture keeper =
        new KeeperFixture(directory, KeeperFixture.settings(3, Optional.empty()))) {
      // Written and corrupted while optimize is off for it, so the keeper cannot compact the file
      // away first; then turned on.
      Map<String, String> off = new HashMap<>(KEPT);
      off.put(OptimizePolicy.ENABLED, "false");
      Table broken =
          UpsertTables.create(
              keeper.catalog.catalog(), "broken", PartitionSpec.unpartitioned(), off);
      UpsertWriter brokenWriter = new UpsertWriter(broken);
      for (int commit = 0; commit < 15; commit++) {
        brokenWriter.append(inserts(commit * 100L, commit * 100L + 100));
      }
      corrupt(firstDataFile(broken));
      broken.updateProperties().set(OptimizePolicy.ENABLED, "true").commit();
      Table healthy =
          UpsertTables.create(
              keeper.catalog.catalog(), "healthy", PartitionSpec.unpartitioned(), KEPT);
      UpsertWriter healthyWriter = new UpsertWriter(healthy);
      for (int commit = 0; commit < 15; commit++) {
        healthyWriter.append(inserts(commit * 100L, commit * 100L + 100));
      }

      Poll.until(
          "db.broken is quarantined",
          WITHIN,
          EVERY,
          () ->
              keeper.table("db.broken").orElseThrow().get("state").asText().equals("quarantined"));
      JsonNode quarantined = keeper.table("db.broken").orElseThrow();
      assertThat(quarantined.get("consecutive_failures").asInt()).isEqualTo(3);
      assertThat(quarantined.get("last_error").asText()).contains("rewrite failed");
      Poll.until(
          "db.healthy is optimized",
          WITHIN,
          EVERY,
          () -> !keeper.table("db.healthy").orElseThrow().get("last_optimized_at").isNull());
      assertThat(UpsertTables.read(healthy)).isEqualTo(healthyWriter.expected());

      // Quarantine holds: no further attempts while it lasts.
      int runs = keeper.get("/api/v1/tables/db.broken").get("runs").size();
      keeper.service.discovery().refresh();
      keeper.service.discovery().refresh();
      assertThat(keeper.get("/api/v1/tables/db.broken").get("runs").size()).isEqualTo(runs);

      HttpResponse<String> released =
          keeper.request("POST", "/api/v1/tables/db.broken/resume", Optional.empty());
      assertThat(released.statusCode()).isEqualTo(202);
      List<String> kinds = new ArrayList<>();
      keeper
          .get("/api/v1/events?table=db.broken")
          .get("events")
          .forEach(event -> kinds.add(event.get("kind").asText()));
      assertThat(kinds).contains("table_released", "table_quarantined", "optimize_failed");
    }
  }

  @Test
  void theDashboardsViewsAnswerForARealTable() throws Exception {
    try (KeeperFixture keeper =
        new KeeperFixture(directory, KeeperFixture.settings(5, Optional.empty()))) {
      Map<String, String> off = new HashMap<>(KEPT);
      off.put(OptimizePolicy.ENABLED, "false");
      Table table =
          UpsertTables.create(
              keeper.catalog.catalog(), "viewed", PartitionSpec.unpartitioned(), off);
      UpsertWriter writer = new UpsertWriter(table);
      for (int commit = 0; commit < 3; commit++) {
        writer.append(inserts(commit * 100L, commit * 100L + 100));
      }
      long watermark = 1_764_590_400_000L; // 2025-12-01T12:00:00Z
      table
          .newAppend()
          .set(SyncSummary.SYNC_ID, "sync-1")
          .set(SyncSummary.SOURCE_WATERMARK_MS, Long.toString(watermark))
          .commit();

      Poll.until(
          "db.viewed is evaluated with its sync watermark",
          WITHIN,
          EVERY,
          () ->
              keeper
                  .table("db.viewed")
                  .map(
                      entry ->
                          !entry.get("source_watermark_at").isNull()
                              && entry.get("data_files").asInt() == 3)
                  .orElse(false));

      JsonNode page = keeper.get("/api/v1/tables?q=VIEW&state=disabled&limit=1&sort=-health");
      assertThat(page.get("total").asInt()).isEqualTo(1);
      JsonNode summary = page.get("tables").get(0);
      assertThat(summary.get("source_watermark_at").asText()).isEqualTo("2025-12-01T12:00:00Z");
      assertThat(summary.get("freshness_ms").asLong())
          .isGreaterThan(System.currentTimeMillis() - watermark - 60_000);
      assertThat(keeper.get("/api/v1/tables?state=idle").get("total").asInt()).isZero();
      HttpResponse<String> badSort =
          keeper.request("GET", "/api/v1/tables?sort=size", Optional.empty());
      assertThat(badSort.statusCode()).isEqualTo(400);
      assertThat(badSort.body()).contains("sort must be one of", "got 'size'");

      JsonNode overview = keeper.get("/api/v1/overview");
      assertThat(overview.get("tables_by_state").get("disabled").asInt()).isEqualTo(1);
      assertThat(overview.get("tables_by_health").size()).isEqualTo(4);
      assertThat(overview.get("groups").get(0).get("target").asInt()).isEqualTo(2);
      assertThat(overview.get("events")).isNotEmpty();
      assertThat(overview.get("alerts_firing").asInt()).isZero();

      JsonNode samples = keeper.get("/api/v1/tables/db.viewed/history").get("samples");
      assertThat(samples).isNotEmpty();
      JsonNode last = samples.get(samples.size() - 1);
      assertThat(last.get("data_files").asInt()).isEqualTo(3);
      assertThat(last.get("health").asInt()).isBetween(0, 100);
      assertThat(
              keeper
                  .get("/api/v1/tables/db.viewed/history?since=2999-01-01T00:00:00Z")
                  .get("samples"))
          .isEmpty();

      JsonNode snapshots =
          keeper.get("/api/v1/tables/db.viewed/snapshots?limit=3").get("snapshots");
      assertThat(snapshots).hasSize(3);
      assertThat(snapshots.get(0).get("writer").asText()).isEqualTo("sync");
      assertThat(snapshots.get(1).get("writer").asText()).isEqualTo("other");
      assertThat(snapshots.get(1).get("added_data_files").asInt()).isEqualTo(1);
      assertThat(snapshots.get(1).get("added_records").asInt()).isEqualTo(100);
      assertThat(snapshots.get(0).get("parent_id").asLong())
          .isEqualTo(snapshots.get(1).get("snapshot_id").asLong());

      JsonNode files = keeper.get("/api/v1/tables/db.viewed/files");
      assertThat(files.get("target_file_size").asLong()).isEqualTo(1_048_576L);
      long counted = 0;
      for (JsonNode bucket : files.get("histogram")) {
        counted += bucket.get("files").asLong();
        assertThat(bucket.get("max_bytes").asLong())
            .isEqualTo(2 * bucket.get("min_bytes").asLong());
      }
      assertThat(counted).isEqualTo(3);
    }
  }

  @Test
  void withATokenEveryRequestButHealthNeedsIt() throws Exception {
    try (KeeperFixture keeper =
        new KeeperFixture(
            directory, KeeperFixture.settings(5, Optional.of(Secret.of(KeeperFixture.TOKEN))))) {
      assertThat(keeper.request("GET", "/api/v1/tables", Optional.empty()).statusCode())
          .isEqualTo(401);
      assertThat(keeper.request("GET", "/metrics", Optional.of("wrong")).statusCode())
          .isEqualTo(401);
      HttpResponse<String> denied = keeper.request("GET", "/api/v1/events", Optional.of("s3cret"));
      assertThat(denied.statusCode()).isEqualTo(401);
      assertThat(denied.body()).doesNotContain(KeeperFixture.TOKEN);
      assertThat(keeper.request("GET", "/api/v1/health", Optional.empty()).statusCode())
          .isEqualTo(200);
      assertThat(
              keeper
                  .request("GET", "/api/v1/tables", Optional.of(KeeperFixture.TOKEN))
                  .statusCode())
          .isEqualTo(200);
      HttpResponse<String> badName =
          keeper.request("POST", "/api/v1/tables/nodot/pause", Optional.of(KeeperFixture.TOKEN));
      assertThat(badName.statusCode()).isEqualTo(400);
      assertThat(badName.body()).contains("is not a table name");
      assertThat(
              keeper
                  .request("GET", "/api/v1/tables/db.missing", Optional.of(KeeperFixture.TOKEN))
                  .statusCode())
          .isEqualTo(404);
      assertThat(
              keeper.get("/api/v1/openapi.json").get("paths").has("/api/v1/tables/{table}/resume"))
          .isTrue();

      // The worker token opens the worker protocol's calls and nothing else.
      String worker = WorkerToken.derive(Secret.of(KeeperFixture.TOKEN)).reveal();
      assertThat(worker).hasSize(64).doesNotContain(KeeperFixture.TOKEN);
      HttpResponse<String> registered =
          keeper.request("POST", "/api/v1/workers", Optional.of(worker));
      assertThat(registered.statusCode()).as(registered.body()).isEqualTo(201);
      String id = new ObjectMapper().readTree(registered.body()).get("worker_id").asText();
      assertThat(
              keeper
                  .request("POST", "/api/v1/workers/" + id + "/heartbeat", Optional.of(worker))
                  .statusCode())
          .isEqualTo(200);
      assertThat(keeper.request("GET", "/api/v1/workers", Optional.of(worker)).statusCode())
          .isEqualTo(401);
      assertThat(keeper.request("GET", "/api/v1/tables", Optional.of(worker)).statusCode())
          .isEqualTo(401);
      assertThat(
              keeper
                  .request("POST", "/api/v1/tables/db.viewed/pause", Optional.of(worker))
                  .statusCode())
          .isEqualTo(401);
      assertThat(
              keeper.request("DELETE", "/api/v1/workers/" + id, Optional.of(worker)).statusCode())
          .isEqualTo(204);
    }
  }

  @Test
  void aNonLoopbackAddressWithoutATokenIsRefused() {
    KeeperSettings open = KeeperFixture.settings(5, Optional.empty());
    KeeperSettings exposed = open.toBuilder().listen(new ListenAddress("0.0.0.0", 8420)).build();
    assertThatThrownBy(
            () ->
                KeeperService.create(
                    directory,
                    CatalogSettings.embedded(),
                    exposed,
                    Clock.systemUTC(),
                    new IcebergMaintenanceJobs(),
                    WorkerLauncher.NONE))
        .isInstanceOf(FloeException.class)
        .hasMessage(
            "keeper.listen is 0.0.0.0:8420, which other machines can reach, and no"
                + " keeper.api-token is set. Set keeper.api-token (e.g. api-token:"
                + " ${env:FLOE_KEEPER_TOKEN}) or listen on 127.0.0.1.");
  }

  @Test
  void aFlinkGroupWithoutAWayToSubmitFlinkJobsIsRefused() {
    KeeperSettings settings =
        KeeperFixture.settings(
            5,
            Optional.empty(),
            new OptimizerSettings(
                1,
                0.5,
                Duration.ofSeconds(10),
                List.of(
                    WorkerGroupSettings.flink("cluster", 2, 1, URI.create("http://flink-jm:8081"))),
                Optional.empty(),
                Duration.ofMinutes(2)));
    assertThatThrownBy(
            () ->
                KeeperService.create(
                    directory,
                    CatalogSettings.embedded(),
                    settings,
                    Clock.systemUTC(),
                    new IcebergMaintenanceJobs(),
                    WorkerLauncher.NONE))
        .isInstanceOf(FloeException.class)
        .hasMessage(
            "keeper.optimizer.groups has kind flink (cluster), but this keeper cannot submit"
                + " Flink jobs (it was built without Flink's client). Run it with floe serve, or"
                + " use kind processes or external.");
  }

  @Test
  void everyTableGaugeEqualsTheApiAfterChanges() throws Exception {
    try (KeeperFixture keeper =
        new KeeperFixture(directory, KeeperFixture.settings(5, Optional.empty()))) {
      Table table =
          UpsertTables.create(keeper.catalog.catalog(), "gauged", UpsertTables.PARTITIONED, KEPT);
      UpsertWriter writer = new UpsertWriter(table);
      for (int commit = 0; commit < 3; commit++) {
        writer.commit(inserts(commit * 10L, commit * 10L + 10));
        int version = metadataVersion(currentMetadata(table));
        // The keeper's own optimize commit may land right after the writer's: evaluated at this
        // commit's metadata version or a later one.
        Poll.until(
            "the keeper evaluated commit " + commit,
            WITHIN,
            EVERY,
            () -> {
              HttpResponse<String> detail =
                  keeper.request("GET", "/api/v1/tables/db.gauged", Optional.empty());
              if (detail.statusCode() != 200) {
                return false;
              }
              JsonNode evaluated =
                  new ObjectMapper().readTree(detail.body()).get("metadata_location");
              return !evaluated.isNull() && metadataVersion(evaluated.asText()) >= version;
            });
        assertGaugesEqualApi(keeper, "db.gauged");
      }
      Poll.until(
          "the keeper optimized db.gauged",
          WITHIN,
          EVERY,
          () ->
              keeper.table("db.gauged").orElseThrow().get("state").asText().equals("idle")
                  && !keeper.table("db.gauged").orElseThrow().get("last_optimized_at").isNull());
      assertGaugesEqualApi(keeper, "db.gauged");
      String metrics = keeper.request("GET", "/metrics", Optional.empty()).body();
      assertThat(metrics).contains("floe_runs_total{kind=\"optimize\",result=\"succeeded\"}");
      assertThat(metrics).contains("floe_worker_slots 2.0");
      assertThat(metrics).contains("jvm_memory_used_bytes");
    }
  }

  /**
   * Polls until two API reads agree (the keeper may be changing the table) and every gauge of the
   * table in a scrape taken between them equals the API's value.
   */
  private static void assertGaugesEqualApi(KeeperFixture keeper, String name) throws Exception {
    Map<String, String> fields =
        Map.of(
            "floe_table_health", "health",
            "floe_table_data_files", "data_files",
            "floe_table_small_files", "small_files",
            "floe_table_delete_files", "delete_files",
            "floe_table_backlog_bytes", "backlog_bytes",
            "floe_table_consecutive_failures", "consecutive_failures");
    List<String> mismatches = new ArrayList<>();
    Poll.until(
        "the gauges of " + name + " equal the API (" + mismatches + ")",
        WITHIN,
        EVERY,
        () -> {
          mismatches.clear();
          JsonNode entry = keeper.table(name).orElseThrow();
          String metrics = keeper.request("GET", "/metrics", Optional.empty()).body();
          if (!entry.equals(keeper.table(name).orElseThrow())) {
            mismatches.add("changed while read");
            return false;
          }
          for (Map.Entry<String, String> field : fields.entrySet()) {
            double api = entry.get(field.getValue()).asDouble();
            double gauge = gauge(metrics, field.getKey(), name);
            if (api != gauge) {
              mismatches.add(field.getKey() + " " + gauge + " != " + api);
            }
          }
          String state =
              "floe_table_state{catalog=\"floe\",state=\""
                  + entry.get("state").asText()
                  + "\",table=\""
                  + name
                  + "\"} 1.0";
          if (!metrics.contains(state)) {
            mismatches.add("no " + state);
          }
          return mismatches.isEmpty();
        });
  }

  private static double gauge(String metrics, String metric, String table) {
    Matcher matcher =
        Pattern.compile(
                "^"
                    + metric
                    + "\\{catalog=\"floe\",table=\""
                    + Pattern.quote(table)
                    + "\"\\} (\\S+)$",
                Pattern.MULTILINE)
            .matcher(metrics);
    assertThat(matcher.find()).as(metric + " of " + table + " in\n" + metrics).isTrue();
    return Double.parseDouble(matcher.group(1));
  }

  private static int snapshotCount(Table table) {
    int count = 0;
    for (org.apache.iceberg.Snapshot ignored : table.snapshots()) {
      count++;
    }
    return count;
  }

  private static String currentMetadata(Table table) {
    table.refresh();
    return ((org.apache.iceberg.HasTableOperations) table)
        .operations()
        .current()
        .metadataFileLocation();
  }

  /** The version in a metadata file's name, {@code NNNNN-uuid.metadata.json}. */
  private static int metadataVersion(String location) {
    String name = location.substring(location.lastIndexOf('/') + 1);
    return Integer.parseInt(name.substring(0, name.indexOf('-')));
  }

  private static List<Change> inserts(long from, long to) {
    List<Change> changes = new ArrayList<>();
    for (long id = from; id < to; id++) {
      changes.add(Change.upsert(id, "v" + id));
    }
    return changes;
  }

  private static DataFile firstDataFile(Table table) throws IOException {
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      return tasks.iterator().next().file();
    }
  }

  /** Overwrites a data file with bytes that are no Parquet: every read of it fails. */
  private static void corrupt(DataFile file) throws IOException {
    Path path = Path.of(URI.create(file.location()));
    try (OutputStream out = Files.newOutputStream(path)) {
      out.write("not parquet".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }
  }

  /** The rewrites (the keeper's commits: operation replace) in the table's history. */
  private static int rewrites(Table table) {
    table.refresh();
    int rewrites = 0;
    for (org.apache.iceberg.Snapshot snapshot : table.snapshots()) {
      if (org.apache.iceberg.DataOperations.REPLACE.equals(snapshot.operation())) {
        rewrites++;
      }
    }
    return rewrites;
  }
}

package dev.floe.iceberg.optimize;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.core.config.CatalogSettings;
import dev.floe.core.optimize.OptimizeFailures;
import dev.floe.core.optimize.OptimizePolicy;
import dev.floe.core.optimize.OptimizeResult;
import dev.floe.core.optimize.PartitionOutcome;
import dev.floe.iceberg.CatalogFactory;
import dev.floe.iceberg.FloeCatalog;
import dev.floe.iceberg.optimize.UpsertWriter.Change;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A streaming upsert writer (inserts, updates and deletes of the same keys, a commit every few
 * hundred milliseconds, equality deletes and same-commit position deletes as Flink writes them)
 * runs while the optimizer runs again and again on the same table. At the end, the table holds
 * exactly the writer's rows, and no optimize group ever conflicted with the writer.
 */
class OptimizeUnderStreamingWritesITCase {

  @TempDir Path directory;

  @Test
  void unpartitioned() throws Exception {
    run(PartitionSpec.unpartitioned(), 40);
  }

  @Test
  void partitioned() throws Exception {
    run(UpsertTables.PARTITIONED, 40);
  }

  @Test
  @Tag("slow")
  void partitionedLong() throws Exception {
    run(UpsertTables.PARTITIONED, 600);
  }

  /** The writer makes {@code commits} commits as fast as it can; the optimizer runs meanwhile. */
  private void run(PartitionSpec spec, int commits) throws Exception {
    try (FloeCatalog catalog =
        new CatalogFactory().open(CatalogSettings.embedded(), directory.resolve("lake"))) {
      Table writerTable =
          UpsertTables.create(
              catalog.catalog(),
              "stream",
              spec,
              Map.of(
                  OptimizePolicy.TARGET_FILE_SIZE_BYTES, "1048576",
                  OptimizePolicy.MINOR_MIN_SMALL_FILES, "4",
                  OptimizePolicy.DELETES_MIN_DELETE_FILES, "3",
                  TableProperties.COMMIT_NUM_RETRIES, "50",
                  TableProperties.COMMIT_MIN_RETRY_WAIT_MS, "10",
                  TableProperties.COMMIT_MAX_RETRY_WAIT_MS, "200"));
      UpsertWriter writer = new UpsertWriter(writerTable);
      AtomicBoolean stop = new AtomicBoolean();
      ExecutorService threads = Executors.newSingleThreadExecutor();
      Future<?> writerDone =
          threads.submit(
              () -> {
                Random random = new Random(42);
                for (int i = 0; i < commits && !stop.get(); i++) {
                  writer.commit(changes(random));
                }
                return null;
              });
      Table optimizerTable = catalog.catalog().loadTable(TableIdentifier.of("db", "stream"));
      OptimizeJob optimizer = new OptimizeJob(directory.resolve("spill"));
      List<OptimizeResult> results = new ArrayList<>();
      Instant started = Instant.now();
      // A cap, not a wait: the writer normally finishes long before (about 2 commits/s on 2 busy
      // cores).
      Instant deadline = started.plus(Duration.ofSeconds(120 + 2L * commits));
      try {
        while (!writerDone.isDone() && Instant.now().isBefore(deadline)) {
          results.add(optimize(optimizerTable, optimizer));
        }
      } finally {
        stop.set(true);
        writerDone.get(60, TimeUnit.SECONDS);
        threads.shutdown();
      }
      double seconds = Duration.between(started, Instant.now()).toMillis() / 1000.0;
      int optimizeRuns = results.size();
      results.add(optimize(optimizerTable, optimizer));
      System.out.printf(
          "%s: %d writer commits in %.1f s (%.1f/s), %d optimize runs meanwhile, %d groups"
              + " committed%n",
          spec.isUnpartitioned() ? "unpartitioned" : "partitioned",
          writer.commits(),
          seconds,
          writer.commits() / seconds,
          optimizeRuns,
          results.stream()
              .flatMap(result -> result.partitions().stream())
              .mapToInt(PartitionOutcome::committed)
              .sum());

      assertThat(UpsertTables.read(optimizerTable)).isEqualTo(writer.expected());
      assertThat(writer.commits()).isEqualTo(commits);
      List<PartitionOutcome> outcomes =
          results.stream().flatMap(result -> result.partitions().stream()).toList();
      assertThat(outcomes.stream().mapToInt(PartitionOutcome::committed).sum())
          .as("optimize groups committed while the writer ran")
          .isGreaterThan(1);
      assertThat(outcomes)
          .allSatisfy(outcome -> assertThat(outcome.failed()).as(outcome.toString()).isZero());
    }
  }

  private static OptimizeResult optimize(Table table, OptimizeJob optimizer) {
    table.refresh();
    OptimizePolicy policy = OptimizePolicy.fromProperties(table.name(), table.properties());
    return optimizer.run(
        table,
        optimizer.preview(table.name(), table, policy, OptimizeFailures.none(), Instant.now()));
  }

  /** 10-30 changes on keys 0-199: upserts, deletes, and the same key twice in one commit. */
  private static List<Change> changes(Random random) {
    List<Change> changes = new ArrayList<>();
    int count = 10 + random.nextInt(21);
    for (int i = 0; i < count; i++) {
      long id = random.nextInt(200);
      int kind = random.nextInt(10);
      if (kind < 2) {
        changes.add(Change.delete(id));
      } else {
        changes.add(Change.upsert(id, "v" + random.nextInt(1_000_000)));
        if (kind == 9) {
          changes.add(Change.upsert(id, "w" + random.nextInt(1_000_000)));
        }
      }
    }
    return changes;
  }
}

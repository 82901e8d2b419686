package dev.floe.iceberg.maintenance;

import static dev.floe.iceberg.maintenance.LakeTables.row;
import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.core.error.ErrorCategory;
import dev.floe.core.error.FloeException;
import dev.floe.core.maintenance.MaintenancePolicy;
import dev.floe.iceberg.FloeCatalog;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A streaming writer commits through its own catalog connection while expiry (as aggressive as
 * possible: every snapshot old, keep one) and orphan removal run over and over: every commit's
 * files survive and the table reads every row.
 */
class ConcurrentMaintenanceTest {

  @TempDir Path dataDirectory;

  @Test
  void aWriterCommittingDuringExpiryAndOrphanRemovalLosesNothing() throws Exception {
    int commits = 8;
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try (FloeCatalog maintenance = LakeTables.open(dataDirectory);
        FloeCatalog writing = LakeTables.open(dataDirectory)) {
      LakeTables.create(maintenance, "shop.orders", true);
      LakeTables.append(
          maintenance.catalog().loadTable(TableIdentifier.parse("shop.orders")),
          List.of(row(0, "seed", 1)));
      Future<?> writer =
          pool.submit(
              () -> {
                Table table = writing.catalog().loadTable(TableIdentifier.parse("shop.orders"));
                for (int i = 1; i <= commits; i++) {
                  LakeTables.append(table, List.of(row(i, "w" + i, 1 + i % 3)));
                }
                return null;
              });
      Table table = maintenance.catalog().loadTable(TableIdentifier.parse("shop.orders"));
      int rounds = 0;
      while (!writer.isDone() || rounds < 2) {
        try {
          new SnapshotExpirer()
              .previewAndCommit(
                  "shop.orders",
                  table,
                  MaintenancePolicy.defaults().withMinSnapshots(1),
                  Instant.now().plus(Duration.ofDays(2)));
        } catch (CommitFailedException e) {
          // Lost the race to the writer: nothing was deleted; try again.
        }
        try {
          cleanOrphans(table);
        } catch (FloeException e) {
          // The listing kept failing while the writer deleted its own retried files: nothing
          // was deleted.
          assertThat(e.category()).isEqualTo(ErrorCategory.SOURCE_UNAVAILABLE);
        }
        LakeTables.assertEveryReferencedFileExists(table);
        rounds++;
      }
      writer.get(2, TimeUnit.MINUTES);
      cleanOrphans(table);

      List<String> expected = new ArrayList<>();
      expected.add("0:seed:1");
      for (int i = 1; i <= commits; i++) {
        expected.add(i + ":w" + i + ":" + (1 + i % 3));
      }
      expected.sort(null);
      table.refresh();
      assertThat(LakeTables.rows(table)).isEqualTo(expected);
      LakeTables.assertEveryReferencedFileExists(table);
    } finally {
      pool.shutdownNow();
    }
  }

  private static void cleanOrphans(Table table) {
    new OrphanFileCleaner()
        .previewAndCommit(
            "shop.orders",
            table,
            MaintenancePolicy.defaults().withOrphanMinAge(Duration.ofHours(1)),
            Instant.now());
  }
}

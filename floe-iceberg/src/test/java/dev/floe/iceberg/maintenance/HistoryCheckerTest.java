package dev.floe.iceberg.maintenance;

import static dev.floe.iceberg.maintenance.LakeTables.row;
import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.core.maintenance.HistoryVerdict;
import dev.floe.core.maintenance.MaintenancePolicy;
import dev.floe.core.maintenance.ObservedSnapshot;
import dev.floe.core.state.TableKey;
import dev.floe.iceberg.FloeCatalog;
import dev.floe.iceberg.state.FileTableStateStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HistoryCheckerTest {

  private static final TableIdentifier ORDERS = TableIdentifier.parse("shop.orders");
  private static final TableKey KEY = new TableKey("floe", "shop.orders");

  @TempDir Path dataDirectory;

  /**
   * The case study's incident: a metastore hook holds a cached copy of the table's metadata; a
   * writer commits; the hook then writes its stale copy back through the catalog (a valid
   * compare-and-swap against the current pointer, but with old contents), silently dropping the
   * writer's commit.
   */
  static void writeStaleMetadataBack(FloeCatalog hookCatalog, TableMetadata stale) {
    TableOperations operations =
        ((HasTableOperations) hookCatalog.catalog().loadTable(ORDERS)).operations();
    TableMetadata hooked =
        TableMetadata.buildFrom(stale)
            .setProperties(Map.of("hook.last-synced", "2026-11-29"))
            .build();
    operations.commit(operations.current(), hooked);
  }

  @Test
  void staleMetadataWrittenBackIsReportedAsARewindWithTheLostSnapshot() {
    HistoryChecker checker = new HistoryChecker(new FileTableStateStore(dataDirectory));
    try (FloeCatalog writer = LakeTables.open(dataDirectory);
        FloeCatalog hook = LakeTables.open(dataDirectory)) {
      Table table = LakeTables.create(writer, "shop.orders", false);
      LakeTables.append(table, List.of(row(1, "a", 1), row(2, "b", 1)));
      TableMetadata cachedByHook =
          ((HasTableOperations) hook.catalog().loadTable(ORDERS)).operations().current();
      LakeTables.append(table, List.of(row(3, "c", 1), row(4, "d", 1), row(5, "e", 1)));
      long lost = table.currentSnapshot().snapshotId();

      HistoryChecker.Check first = checker.check(KEY, table, Instant.now());
      writeStaleMetadataBack(hook, cachedByHook);
      Table reloaded = writer.catalog().loadTable(ORDERS);
      HistoryChecker.Check second = checker.check(KEY, reloaded, Instant.now());
      HistoryChecker.Check third = checker.check(KEY, reloaded, Instant.now());

      assertThat(first.verdict()).isEmpty();
      assertThat(LakeTables.rows(reloaded)).containsExactly("1:a:1", "2:b:1");
      HistoryVerdict verdict = second.verdict().orElseThrow();
      assertThat(verdict.status()).isEqualTo(HistoryVerdict.Status.REWOUND);
      assertThat(verdict.lost()).extracting(ObservedSnapshot::id).containsExactly(lost);
      assertThat(verdict.lost().get(0).addedRecords()).isEqualTo(3);
      assertThat(verdict.lost().get(0).totalRecords()).isEqualTo(5);
      assertThat(third.verdict().orElseThrow().status()).isEqualTo(HistoryVerdict.Status.INTACT);
    }
  }

  @Test
  void commitsAndExpiryBetweenChecksAreIntact() throws Exception {
    HistoryChecker checker = new HistoryChecker(new FileTableStateStore(dataDirectory));
    try (FloeCatalog catalog = LakeTables.open(dataDirectory)) {
      Table table = LakeTables.create(catalog, "shop.orders", false);
      HistoryChecker.Check empty = checker.check(KEY, table, Instant.now());
      LakeTables.append(table, List.of(row(1, "a", 1)));
      HistoryChecker.Check first = checker.check(KEY, table, Instant.now());
      for (int i = 2; i < 6; i++) {
        LakeTables.append(table, List.of(row(i, "r", 1)));
      }
      new SnapshotExpirer()
          .previewAndCommit(
              "shop.orders",
              table,
              MaintenancePolicy.defaults().withMinSnapshots(2),
              Instant.now().plus(Duration.ofDays(2)));
      HistoryChecker.Check second = checker.check(KEY, table, Instant.now());

      assertThat(empty.verdict()).isEmpty();
      assertThat(first.verdict().orElseThrow().status()).isEqualTo(HistoryVerdict.Status.INTACT);
      assertThat(second.current().ancestryTruncated()).isTrue();
      assertThat(second.verdict().orElseThrow().status()).isEqualTo(HistoryVerdict.Status.INTACT);
      Path state = new FileTableStateStore(dataDirectory).historyFile(KEY);
      assertThat(state).isEqualTo(dataDirectory.resolve("state/history/floe/shop.orders.history"));
      assertThat(Files.readString(state)).startsWith("floe-history 1\ntable shop.orders\n");
    }
  }
}

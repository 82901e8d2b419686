package dev.floe.iceberg.optimize;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.core.config.CatalogSettings;
import dev.floe.core.optimize.OptimizePlan;
import dev.floe.core.optimize.OptimizePlanner;
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
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TableOptimizerTest {

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
    TableState state = new OptimizeScanner().scan(table.name(), table, policy);
    OptimizePlan plan = new OptimizePlanner().plan(state, policy, Instant.now());
    OptimizeResult result =
        new TableOptimizer(directory.resolve("spill")).execute(table, plan, policy);
    table.refresh();
    return new Run(state, plan, result);
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
}

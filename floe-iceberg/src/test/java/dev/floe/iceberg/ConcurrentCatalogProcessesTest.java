package dev.floe.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.core.config.CatalogSettings;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two JVMs create tables and commit through one embedded catalog at the same time: every commit
 * lands and none fails with "database is locked".
 */
class ConcurrentCatalogProcessesTest {

  private static final int TABLES = 3;
  private static final int COMMITS_PER_TABLE = 25;

  @TempDir Path dataDirectory;

  @Test
  void twoProcessesCreateTablesAndCommitAtOnce() throws Exception {
    List<Process> workers = new ArrayList<>();
    for (String worker : List.of("a", "b")) {
      workers.add(
          new ProcessBuilder(
                  Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                  "-cp",
                  System.getProperty("java.class.path"),
                  CatalogWorkload.class.getName(),
                  dataDirectory.toString(),
                  worker,
                  String.valueOf(TABLES),
                  String.valueOf(COMMITS_PER_TABLE))
              .redirectErrorStream(true)
              .start());
    }
    List<String> outputs = new ArrayList<>();
    for (Process worker : workers) {
      String output = new String(worker.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(worker.waitFor(5, TimeUnit.MINUTES)).isTrue();
      outputs.add(output);
      assertThat(worker.exitValue()).as(output).isZero();
      assertThat(output).doesNotContainIgnoringCase("locked").doesNotContain("SQLITE_BUSY");
    }
    int expectedCommits = (TABLES + 1) * COMMITS_PER_TABLE;
    assertThat(outputs.get(0)).contains("done a " + expectedCommits);
    assertThat(outputs.get(1)).contains("done b " + expectedCommits);

    try (FloeCatalog floe = new CatalogFactory().open(CatalogSettings.embedded(), dataDirectory)) {
      Catalog catalog = floe.catalog();
      assertThat(catalog.listTables(Namespace.of("stress"))).hasSize(2 * TABLES + 1);
      for (String worker : List.of("a", "b")) {
        for (int t = 0; t < TABLES; t++) {
          assertThat(snapshots(catalog.loadTable(TableIdentifier.of("stress", worker + "_t" + t))))
              .hasSize(COMMITS_PER_TABLE);
        }
      }
      Table shared = catalog.loadTable(TableIdentifier.of("stress", "shared"));
      assertThat(snapshots(shared)).hasSize(2 * COMMITS_PER_TABLE);
      assertThat(shared.currentSnapshot().summary())
          .containsEntry("total-data-files", String.valueOf(2 * COMMITS_PER_TABLE));
    }
  }

  private static List<Snapshot> snapshots(Table table) {
    List<Snapshot> snapshots = new ArrayList<>();
    table.snapshots().forEach(snapshots::add);
    return snapshots;
  }
}

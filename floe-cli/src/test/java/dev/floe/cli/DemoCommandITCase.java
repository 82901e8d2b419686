package dev.floe.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.floe.server.store.JdbcKeeperStore;
import dev.floe.server.store.KeeperStore;
import dev.floe.server.store.SyncReportRow;
import dev.floe.server.store.VerificationRun;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DemoCommandITCase {

  @TempDir Path directory;

  @Test
  void demoRunsTheWholeSystemMariaDbSyncKeeperOptimizeVerificationAndQuery() throws Exception {
    CliRun run = CliRun.run(directory, "--data-dir", "demo-data", "demo");

    assertThat(run.exitCode()).as(run.out() + run.err()).isZero();
    assertThat(run.out())
        .contains("customers 200, products 50, orders 1000, order_items 3000")
        .contains("  ok    binlog_row_image ")
        .contains("Every required check passed")
        .contains("4/8 Starting the keeper, as floe serve does")
        .containsPattern(
            "    dashboard: http://127\\.0\\.0\\.1:\\d+/ \\(no token: it listens on loopback")
        .contains("5/8 Syncing shop into the lake")
        .contains("caught up: every table has MySQL's row count")
        .containsPattern(
            "    the keeper has the sync's report: demo running, 4 tables in the binlog phase")
        .contains("    the keeper keeps 4 tables:")
        .containsPattern("      demo_shop\\.orders +\\w+ +health +\\d+/100")
        .contains("6/8 The keeper optimizes demo_shop.orders")
        .containsPattern("    before: health \\d+/100: \\d+ data files")
        .containsPattern("    keeper run: optimize succeeded in [0-9.]+ s, \\d+ files")
        .containsPattern("    after:  health \\d+/100: 1 data files .*; 0 delete files")
        .containsPattern("    done in [0-9.]+ s; rows (\\d+) before, \\1 after")
        .contains("7/8 The keeper runs the verification demo-orders now")
        .containsPattern("    equal in [0-9.]+ s: [1-9]\\d* rows compared, none missing")
        .contains("8/8 Querying the lake: ./floe sql -e \"" + DemoCommand.QUERY + "\"")
        .containsPattern("\\| status +\\| orders \\| revenue +\\|\n")
        .containsPattern("\\| cancelled \\| +\\d+ \\| +\\d+\\.\\d\\d \\|\n")
        .contains("\n4 rows\n")
        .contains("The lake is at " + directory.resolve("demo-data"))
        .contains("Demo done; stopping the sync, the keeper and MariaDB")
        .contains("Stopped.");
    assertThat(directory.resolve("demo-data/catalog.db")).isRegularFile();

    // What the keeper kept in its store: the demo tables, the sync's reports, the verification.
    try (KeeperStore store =
        JdbcKeeperStore.open(
            Optional.empty(), Optional.empty(), Optional.empty(), directory.resolve("demo-data"))) {
      assertThat(store.tables())
          .extracting(table -> table.key().table())
          .containsExactlyInAnyOrder(
              "demo_shop.customers",
              "demo_shop.products",
              "demo_shop.orders",
              "demo_shop.order_items");
      assertThat(store.tables()).allMatch(table -> table.metadataLocation().isPresent());
      List<SyncReportRow> reports = store.syncReports();
      assertThat(reports).extracting(SyncReportRow::name).containsExactly("demo");
      JsonNode report = new ObjectMapper().readTree(reports.get(0).report());
      assertThat(report.get("state").asText()).isEqualTo("stopped");
      assertThat(report.get("tables")).hasSize(4);
      List<VerificationRun> runs = store.verificationRuns(DemoKeeper.VERIFICATION, 10);
      assertThat(runs).hasSize(1);
      assertThat(runs.get(0).result()).isEqualTo(VerificationRun.EQUAL);
      assertThat(runs.get(0).report()).get().asString().contains("\"rows_compared\":");
    }
  }
}

package dev.floe.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DemoCommandITCase {

  @TempDir Path directory;

  @Test
  void demoStartsMariaDbLoadsTheShopPassesTheDoctorSyncsAndOptimizes() {
    CliRun run = CliRun.run(directory, "--data-dir", "demo-data", "demo");

    assertThat(run.exitCode()).as(run.out() + run.err()).isZero();
    assertThat(run.out())
        .contains("customers 200, products 50, orders 1000, order_items 3000")
        .contains("  ok    binlog_row_image ")
        .contains("Every required check passed")
        .contains("4/7 Syncing shop into the lake")
        .contains("caught up: every table has MySQL's row count")
        .contains("5/7 Optimizing demo_shop.orders")
        .containsPattern("    before: health \\d+/100: \\d+ data files")
        .containsPattern("    after:  health \\d+/100: 1 data files .*; 0 delete files")
        .containsPattern("    optimized in [0-9.]+ s; rows (\\d+) before, \\1 after")
        .contains("6/7 Querying the lake: ./floe sql -e \"" + DemoCommand.QUERY + "\"")
        .containsPattern("\\| status +\\| orders \\| revenue +\\|\n")
        .containsPattern("\\| cancelled \\| +\\d+ \\| +\\d+\\.\\d\\d \\|\n")
        .contains("\n4 rows\n")
        .contains("7/7 The lake is at " + directory.resolve("demo-data"))
        .contains("Demo done; stopping MariaDB.");
    assertThat(directory.resolve("demo-data/catalog.db")).isRegularFile();
  }
}

package dev.floe.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SqlCommandITCase {

  @TempDir Path directory;

  @BeforeEach
  void createShop() throws Exception {
    SqlShopTables.createShop(directory.resolve("floe-data")).close();
  }

  @Test
  void printsAnAlignedTable() {
    CliRun run =
        CliRun.run(
            directory,
            "sql",
            "-e",
            "SELECT * FROM shop.orders WHERE id < 4 ORDER BY id; SELECT status, COUNT(*) AS n, SUM(total) AS s FROM shop.orders GROUP BY status ORDER BY status; SHOW TABLES FROM shop; DESCRIBE shop.orders; SELECT * FROM shop.orders WHERE id > 100");
    System.out.println(run.out());
    System.out.println(run.err());
    assertThat(run.exitCode()).isZero();
  }

  @Test
  void csvAndJson() {
    CliRun run =
        CliRun.run(
            directory, "sql", "--format", "csv", "-e", "SELECT * FROM shop.orders ORDER BY id");
    System.out.println(run.out());
    System.out.println(run.err());
    run =
        CliRun.run(
            directory, "sql", "--format", "json", "-e", "SELECT * FROM shop.orders ORDER BY id");
    System.out.println(run.out());
    System.out.println(run.err());
    run = CliRun.run(directory, "sql", "-e", "SELECT 1; SELECT * FROM nope.orders; SELECT 2");
    System.out.println(run.exitCode() + run.out());
    System.out.println(run.err());
    run = CliRun.run(directory, "sql", "-e", "INSERT INTO shop.orders SELECT * FROM shop.orders");
    System.out.println(run.exitCode() + run.out());
    System.out.println(run.err());
  }
}

package dev.floe.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code floe sql} in-process on a real embedded catalog (./floe-data under the directory). */
class SqlCommandITCase {

  @TempDir Path directory;

  @BeforeEach
  void createShop() throws Exception {
    SqlShopTables.createShop(directory.resolve("floe-data")).close();
  }

  @Test
  void printsEachResultAsAnAlignedTable() {
    CliRun run =
        CliRun.run(
            directory,
            "sql",
            "-e",
            "SELECT * FROM shop.orders WHERE id < 4 ORDER BY id;"
                + " SELECT status, COUNT(*) AS n, SUM(total) AS s FROM shop.orders"
                + " GROUP BY status ORDER BY status;"
                + " SHOW TABLES FROM shop;"
                + " SELECT id FROM shop.orders WHERE id > 100");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.err()).isEmpty();
    assertThat(run.out())
        .isEqualTo(
            """
            +----+----------+--------+--------+------------+-----------------------+
            | id | customer | status | total  | ordered_on | paid_at               |
            +----+----------+--------+--------+------------+-----------------------+
            |  1 | ada      | paid   |  12.50 | 2026-11-01 | 2026-11-01 10:15:00   |
            |  2 | bob      | new    |   7.00 | 2026-11-02 | NULL                  |
            |  3 | ada      | NULL   | 100.25 | 2026-11-02 | 2026-11-03 08:00:00.5 |
            +----+----------+--------+--------+------------+-----------------------+
            3 rows

            +--------+---+--------+
            | status | n | s      |
            +--------+---+--------+
            | NULL   | 1 | 100.25 |
            | new    | 1 |   7.00 |
            | paid   | 2 |  15.60 |
            +--------+---+--------+
            3 rows

            +------------+
            | table name |
            +------------+
            | orders     |
            +------------+
            1 row

            +----+
            | id |
            +----+
            0 rows
            """);
  }

  @Test
  void printsCsv() {
    CliRun run =
        CliRun.run(
            directory, "sql", "--format", "csv", "-e", "SELECT * FROM shop.orders ORDER BY id");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out())
        .isEqualTo(
            """
            id,customer,status,total,ordered_on,paid_at
            1,ada,paid,12.50,2026-11-01,2026-11-01 10:15:00
            2,bob,new,7.00,2026-11-02,
            3,ada,,100.25,2026-11-02,2026-11-03 08:00:00.5
            4,"cy, ""the"" one",paid,3.10,2026-11-03,2026-11-03 09:30:00
            """);
  }

  @Test
  void printsJsonLinesAndStopsAtMaxRows() {
    CliRun run =
        CliRun.run(
            directory,
            "sql",
            "--format",
            "json",
            "--max-rows",
            "3",
            "-e",
            "SELECT * FROM shop.orders ORDER BY id DESC");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out())
        .isEqualTo(
            """
            {"id":4,"customer":"cy, \\"the\\" one","status":"paid","total":3.10,\
            "ordered_on":"2026-11-03","paid_at":"2026-11-03 09:30:00"}
            {"id":3,"customer":"ada","status":null,"total":100.25,\
            "ordered_on":"2026-11-02","paid_at":"2026-11-03 08:00:00.5"}
            {"id":2,"customer":"bob","status":"new","total":7.00,\
            "ordered_on":"2026-11-02","paid_at":null}
            """);
    assertThat(run.err())
        .isEqualTo(
            "floe sql: statement 1 printed its first 3 rows; more not shown (--max-rows, or"
                + " LIMIT)\n");
  }

  @Test
  void anUnknownTableStopsTheScriptWithExitCode2() {
    CliRun run =
        CliRun.run(
            directory,
            "sql",
            "--format",
            "csv",
            "-e",
            "SELECT 1 AS a; SELECT * FROM nope.orders; SELECT 3 AS c");

    assertThat(run.exitCode()).isEqualTo(ExitCodes.COULD_NOT_RUN);
    assertThat(run.out()).as(run.err()).isEqualTo("a\n1\n");
    assertThat(run.err())
        .isEqualTo(
            "Error: statement 2 (SELECT * FROM nope.orders): Table nope.orders not found (line 1,"
                + " column 15). SHOW DATABASES lists the namespaces, SHOW TABLES FROM ns the"
                + " tables of one.\n");
  }

  @Test
  void runsAFileOfStatementsInANamespace() throws Exception {
    Files.writeString(
        directory.resolve("report.sql"),
        """
        -- paid orders per customer; a ';' in a comment is fine
        SELECT customer, SUM(total) AS paid
        FROM orders
        WHERE status = 'paid'
        GROUP BY customer
        ORDER BY customer;
        """);

    CliRun run =
        CliRun.run(directory, "sql", "--namespace", "shop", "--format", "csv", "-f", "report.sql");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out()).isEqualTo("customer,paid\nada,12.50\n\"cy, \"\"the\"\" one\",3.10\n");
  }

  @Test
  void badOptionsAreRefusedBeforeAnythingRuns() {
    CliRun both = CliRun.run(directory, "sql", "-e", "SELECT 1", "-f", "x.sql");
    CliRun missing = CliRun.run(directory, "sql", "-f", "missing.sql");

    assertThat(both.exitCode()).isEqualTo(ExitCodes.COULD_NOT_RUN);
    assertThat(both.err()).isEqualTo("Error: Give either -e SQL or -f FILE, not both.\n");
    assertThat(missing.exitCode()).isEqualTo(ExitCodes.COULD_NOT_RUN);
    assertThat(missing.err())
        .startsWith("Error: Cannot read the SQL file " + directory.resolve("missing.sql"));
  }
}

package dev.floe.sql;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.iceberg.FloeCatalog;
import java.io.BufferedReader;
import java.io.PrintWriter;
import java.io.StringReader;
import java.io.StringWriter;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.List;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A real session on a real embedded catalog; one session for the class (it takes seconds). */
class SqlConsoleITCase {

  @TempDir static Path directory;

  private static FloeCatalog catalog;
  private static SqlSession session;

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  @BeforeAll
  static void open() throws Exception {
    catalog = SqlTables.createShop(directory);
    session = SqlSession.open(catalog);
  }

  @AfterAll
  static void close() {
    session.close();
    catalog.close();
  }

  private SqlConsole console(SqlOutputFormat format) {
    return new SqlConsole(
        session, format, format.defaultMaxRows(), new PrintWriter(out), new PrintWriter(err));
  }

  @Test
  void interactiveReadsStatementsOverLinesReportsFailuresAndGoesOn() throws Exception {
    String input =
        """
        SELECT id, customer
          FROM shop.orders WHERE id <= 2 ORDER BY id;
        SELECT * FROM shop.nope;
        SELECT COUNT(*) AS n FROM shop.orders; SELECT 'x' AS
        y;
        quit
        SELECT 'never run';
        """;

    int failures =
        console(SqlOutputFormat.TABLE)
            .runInteractive(new BufferedReader(new StringReader(input)), false);

    assertThat(failures).isOne();
    assertThat(out.toString())
        .isEqualTo(
            """
            +----+----------+
            | id | customer |
            +----+----------+
            |  1 | ada      |
            |  2 | bob      |
            +----+----------+
            2 rows

            +---+
            | n |
            +---+
            | 4 |
            +---+
            1 row

            +---+
            | y |
            +---+
            | x |
            +---+
            1 row
            """);
    assertThat(err.toString())
        .isEqualTo(
            "Error: statement 2 (SELECT * FROM shop.nope): Table shop.nope not found (line 1,"
                + " column 15). SHOW DATABASES lists the namespaces, SHOW TABLES FROM ns the"
                + " tables of one.\n");
  }

  @Test
  void withAPromptSaysOkAndRunsALastStatementWithoutSemicolon() throws Exception {
    int failures =
        console(SqlOutputFormat.CSV)
            .runInteractive(
                new BufferedReader(
                    new StringReader("SET 'parallelism.default' = '1';\nSELECT 1\n;\nVALUES (2)")),
                true);

    assertThat(failures).as(out + "" + err).isZero();
    assertThat(out.toString())
        .isEqualTo("floe> OK\nfloe>    -> EXPR$0\n1\nfloe>    -> \n\nEXPR$0\n2\n");
  }

  @Test
  void everyQueryReadsTheTablesCurrentSnapshot() throws Exception {
    String count = "SELECT COUNT(*) AS n, MAX(id) AS last FROM shop.orders";
    assertThat(console(SqlOutputFormat.CSV).runScript(count)).isTrue();

    Table orders = catalog.catalog().loadTable(TableIdentifier.of("shop", "orders"));
    Record added = GenericRecord.create(SqlTables.ORDERS);
    added.setField("id", 5L);
    added.setField("customer", "dee");
    added.setField("total", new BigDecimal("1.00"));
    added.setField("ordered_on", LocalDate.parse("2026-11-04"));
    SqlTables.append(orders, List.of(added));
    try {
      assertThat(console(SqlOutputFormat.CSV).runScript(count)).isTrue();
    } finally {
      orders
          .newDelete()
          .deleteFromRowFilter(org.apache.iceberg.expressions.Expressions.equal("id", 5L))
          .commit();
    }

    assertThat(out.toString()).isEqualTo("n,last\n4,4\nn,last\n5,5\n");
  }

  @Test
  void aScriptStopsAtTheFirstFailureWithOneLineNamingIt() {
    assertThat(
            console(SqlOutputFormat.CSV)
                .runScript("SELECT 1 AS a; SELECT nocol FROM shop.orders; SELECT 3"))
        .isFalse();
    assertThat(out.toString()).isEqualTo("a\n1\n");
    assertThat(err.toString())
        .isEqualTo(
            "Error: statement 2 (SELECT nocol FROM shop.orders): From line 1, column 8 to line 1,"
                + " column 12: Column 'nocol' not found in any table\n");
  }

  @Test
  void failuresOfEveryKindAreOneLine() {
    for (String statement :
        List.of(
            "SELECT FROM shop.orders",
            "SELECT CAST(customer AS INT) FROM shop.orders",
            "SHOW TABLES",
            "INSERT INTO shop.orders SELECT * FROM shop.orders")) {
      assertThat(console(SqlOutputFormat.TABLE).runScript(statement)).as(statement).isFalse();
    }
    assertThat(err.toString())
        .isEqualTo(
            "Error: statement 1 (SELECT FROM shop.orders): SQL parse failed. Incorrect syntax near"
                + " the keyword 'FROM' at line 1, column 8.\n"
                + "Error: statement 1 (SELECT CAST(customer AS INT) FROM shop.orders): The query"
                + " failed while running: For input string: 'ada'. Invalid character found.\n"
                + "Error: statement 1 (SHOW TABLES): Database default does not exist. SHOW"
                + " DATABASES lists the namespaces, SHOW TABLES FROM ns the tables of one.\n"
                + "Error: statement 1 (INSERT INTO shop.orders SELECT * FROM shop.orders): floe sql"
                + " only reads, so INSERT is not run: Floe's sync is the one writer of the lake's"
                + " tables. It runs SELECT, WITH, VALUES, SHOW, DESCRIBE, EXPLAIN, USE, SET and"
                + " CREATE/DROP TEMPORARY VIEW.\n");
  }
}

package dev.floe.sql;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SqlReadOnlyCheckTest {

  @Test
  void readingStatementsRun() {
    for (String statement :
        new String[] {
          "SELECT 1",
          "select * from shop.orders",
          "(SELECT 1) UNION (SELECT 2)",
          "WITH x AS (SELECT 1) SELECT * FROM x",
          "VALUES (1)",
          "SHOW TABLES FROM shop",
          "DESCRIBE shop.orders",
          "DESC shop.orders",
          "EXPLAIN SELECT 1",
          "USE shop",
          "SET 'parallelism.default' = '1'",
          "-- why\nSELECT 1",
          "CREATE TEMPORARY VIEW v AS SELECT 1",
          "drop temporary view v"
        }) {
      assertThat(SqlReadOnlyCheck.refusal(statement)).as(statement).isEmpty();
    }
  }

  @Test
  void writingStatementsAreRefusedWithTheKeywordNamed() {
    assertThat(SqlReadOnlyCheck.refusal("insert into shop.orders values (1)"))
        .contains(
            "floe sql only reads, so INSERT is not run: Floe's sync is the one writer of the"
                + " lake's tables. It runs SELECT, WITH, VALUES, SHOW, DESCRIBE, EXPLAIN, USE,"
                + " SET and CREATE/DROP TEMPORARY VIEW.");
    for (String statement :
        new String[] {
          "/* x */ DELETE FROM shop.orders",
          "UPDATE shop.orders SET id = 1",
          "DROP TABLE shop.orders",
          "CREATE TABLE shop.t (id INT)",
          "CREATE TEMPORARY TABLE t (id INT) WITH ('connector' = 'datagen')",
          "ALTER TABLE shop.orders SET ('x' = 'y')",
          "EXECUTE INSERT INTO shop.orders VALUES (1)",
          "TRUNCATE TABLE shop.orders",
          "CALL system.rollback()"
        }) {
      assertThat(SqlReadOnlyCheck.refusal(statement)).as(statement).isPresent();
    }
  }
}

package dev.floe.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class SqlScriptTest {

  @Test
  void splitsAtSemicolonsAndKeepsTheUnterminatedRest() {
    SqlScript script = SqlScript.parse("SELECT 1;\n  SELECT 2 ;SELECT\n 3");

    assertThat(script.statements()).containsExactly("SELECT 1", "SELECT 2");
    assertThat(script.remainder()).isEqualTo("SELECT\n 3");
    assertThat(script.allStatements()).containsExactly("SELECT 1", "SELECT 2", "SELECT\n 3");
  }

  @Test
  void semicolonsInLiteralsQuotedNamesAndCommentsDoNotEndAStatement() {
    String text =
        """
        SELECT 'a;b', 'it''s; fine' FROM t; -- a comment; still a comment
        SELECT `x;y`, "p;q" /* block; comment */ FROM u;
        """;

    assertThat(SqlScript.parse(text).statements())
        .containsExactly(
            "SELECT 'a;b', 'it''s; fine' FROM t",
            "-- a comment; still a comment\nSELECT `x;y`, \"p;q\" /* block; comment */ FROM u");
  }

  @Test
  void dropsStatementsOfOnlyCommentsAndWhitespace() {
    SqlScript script = SqlScript.parse(";; -- nothing\n; /* nothing */ ;\n-- trailing comment\n");

    assertThat(script.statements()).isEmpty();
    assertThat(script.allStatements()).isEmpty();
  }

  @Test
  void anUnclosedLiteralRunsToTheEnd() {
    SqlScript script = SqlScript.parse("SELECT 'open; still open");

    assertThat(script.statements()).isEmpty();
    assertThat(script.allStatements()).containsExactly("SELECT 'open; still open");
  }

  @Test
  void leadingWordsSkipCommentsAndParentheses() {
    assertThat(SqlScript.leadingWords("-- hi\n /* x */ ( (select 1))", 2))
        .isEqualTo(List.of("SELECT"));
    assertThat(SqlScript.leadingWords("create temporary view v as select 1", 3))
        .isEqualTo(List.of("CREATE", "TEMPORARY", "VIEW"));
    assertThat(SqlScript.leadingWords("  ", 3)).isEmpty();
  }

  @Test
  void abbreviatesToOneLine() {
    assertThat(SqlScript.abbreviate("SELECT *\n  FROM   t", 60)).isEqualTo("SELECT * FROM t");
    assertThat(SqlScript.abbreviate("SELECT a, b, c FROM t", 12)).isEqualTo("SELECT a,...");
  }
}

package dev.floe.sql;

import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * {@code floe sql} only reads. Floe's sync is the one writer of the lake's tables (it records the
 * binlog position with every commit, and verification compares against MySQL), so a statement runs
 * only when it starts with a reading keyword. Temporary views live in the session and are allowed.
 */
final class SqlReadOnlyCheck {

  private static final Set<String> READING =
      Set.of("SELECT", "WITH", "VALUES", "SHOW", "DESCRIBE", "DESC", "EXPLAIN", "USE", "SET");

  private SqlReadOnlyCheck() {}

  /** Why the statement is refused, or empty when it may run. */
  static Optional<String> refusal(String statement) {
    List<String> words = SqlScript.leadingWords(statement, 3);
    if (words.isEmpty() || READING.contains(words.get(0))) {
      return Optional.empty();
    }
    boolean temporaryView =
        words.size() == 3
            && (words.get(0).equals("CREATE") || words.get(0).equals("DROP"))
            && words.get(1).equals("TEMPORARY")
            && words.get(2).equals("VIEW");
    if (temporaryView) {
      return Optional.empty();
    }
    return Optional.of(
        "floe sql only reads, so "
            + words.get(0)
            + " is not run: Floe's sync is the one writer of the lake's tables. It runs SELECT,"
            + " WITH, VALUES, SHOW, DESCRIBE, EXPLAIN, USE, SET and CREATE/DROP TEMPORARY"
            + " VIEW.");
  }
}

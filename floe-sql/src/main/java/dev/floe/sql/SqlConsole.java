package dev.floe.sql;

import static java.util.Objects.requireNonNull;

import dev.floe.core.error.FloeException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * Runs statements on a {@link SqlSession} and prints their results: a script (stops at the first
 * failing statement) or statements read one by one from a reader (reports a failure and goes on). A
 * failure is one line on the error writer: {@code Error: statement N (SQL): why}. Not thread-safe.
 */
public final class SqlConsole {

  private static final String PROMPT = "floe> ";
  private static final String CONTINUATION = "   -> ";
  private static final Set<String> QUIT = Set.of("quit", "exit", "quit;", "exit;");
  private static final int STATEMENT_IN_MESSAGE = 60;

  private final SqlSession session;
  private final SqlOutputFormat format;
  private final long maxRows;
  private final PrintWriter out;
  private final PrintWriter err;
  private int statementNumber;
  private boolean printedResult;

  /**
   * @param maxRows rows printed at most per result; the rest is not read (the query is cancelled)
   */
  public SqlConsole(
      SqlSession session, SqlOutputFormat format, long maxRows, PrintWriter out, PrintWriter err) {
    this.session = requireNonNull(session, "session is null");
    this.format = requireNonNull(format, "format is null");
    if (maxRows < 1) {
      throw new IllegalArgumentException("maxRows must be positive: " + maxRows);
    }
    this.maxRows = maxRows;
    this.out = requireNonNull(out, "out is null");
    this.err = requireNonNull(err, "err is null");
  }

  /**
   * Runs every statement of the script in order and stops at the first one that fails.
   *
   * @return whether every statement succeeded
   */
  public boolean runScript(String script) {
    for (String statement : SqlScript.parse(script).allStatements()) {
      if (!run(statement, false)) {
        return false;
      }
    }
    return true;
  }

  /**
   * Reads statements ended by {@code ;} from {@code in} until its end or {@code quit}; a failed
   * statement is reported and the next one read. With {@code prompt}, a prompt is printed before
   * each line and statements without a table print {@code OK}. A last statement without {@code ;}
   * at the end of the input runs too.
   *
   * @return how many statements failed
   * @throws IOException when {@code in} cannot be read
   */
  public int runInteractive(BufferedReader in, boolean prompt) throws IOException {
    int failures = 0;
    StringBuilder pending = new StringBuilder();
    while (true) {
      if (prompt) {
        out.print(SqlScript.isBlank(pending.toString()) ? PROMPT : CONTINUATION);
        out.flush();
      }
      String line = in.readLine();
      if (line == null) {
        break;
      }
      if (SqlScript.isBlank(pending.toString())
          && QUIT.contains(line.strip().toLowerCase(Locale.ROOT))) {
        pending.setLength(0);
        break;
      }
      pending.append(line).append('\n');
      SqlScript script = SqlScript.parse(pending.toString());
      for (String statement : script.statements()) {
        if (!run(statement, prompt)) {
          failures++;
        }
      }
      pending.setLength(0);
      pending.append(script.remainder());
    }
    if (prompt) {
      out.println();
    }
    List<String> last = SqlScript.parse(pending.toString()).allStatements();
    for (String statement : last) {
      if (!run(statement, prompt)) {
        failures++;
      }
    }
    out.flush();
    return failures;
  }

  /** Runs one statement and prints its result or its failure; returns whether it succeeded. */
  private boolean run(String statement, boolean sayOk) {
    statementNumber++;
    try (SqlResult result = session.execute(statement)) {
      if (!result.hasRows()) {
        if (sayOk) {
          out.println("OK");
          out.flush();
        }
        return true;
      }
      print(result);
      return true;
    } catch (FloeException e) {
      out.flush();
      err.println(
          "Error: statement "
              + statementNumber
              + " ("
              + SqlScript.abbreviate(statement, STATEMENT_IN_MESSAGE)
              + "): "
              + e.getMessage());
      err.flush();
      return false;
    }
  }

  private void print(SqlResult result) {
    if (printedResult && format.blankLineBetweenResults()) {
      out.println();
    }
    printedResult = true;
    SqlResultPrinter printer = format.printer(out);
    printer.begin(result.columns());
    long rows = 0;
    boolean truncated = false;
    Optional<List<Object>> row;
    while ((row = result.nextRow()).isPresent()) {
      if (rows == maxRows) {
        truncated = true;
        break;
      }
      printer.row(row.get());
      rows++;
    }
    printer.end(rows, truncated);
    if (truncated && format != SqlOutputFormat.TABLE) {
      err.println(
          "floe sql: statement "
              + statementNumber
              + " printed its first "
              + rows
              + " rows; more not shown (--max-rows, or LIMIT)");
      err.flush();
    }
  }
}

package dev.floe.cli;

import dev.floe.core.error.FloeException;
import dev.floe.sql.SqlConsole;
import dev.floe.sql.SqlOutputFormat;
import dev.floe.sql.SqlSession;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/** {@code floe sql}: read the lake with Flink SQL (batch) on the configured catalog. */
@Command(
    name = "sql",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Query the lake with SQL: an embedded Flink SQL session (batch mode) on the configured"
          + " Iceberg catalog, which is the current catalog, so tables are ns.table. It reads the"
          + " tables' current snapshots. Read-only: SELECT, WITH, VALUES, SHOW, DESCRIBE, EXPLAIN,"
          + " USE, SET 'key' = 'value', CREATE/DROP TEMPORARY VIEW. See docs/sql.md.",
      "With -e or -f, runs the statements (separated by ;) and stops at the first failure."
          + " Without them, reads statements ended by ; from standard input (quit to leave).",
      "Exit code: 0 every statement succeeded, 2 a statement failed (the message names it) or"
          + " bad input."
    })
final class SqlCommand implements Callable<Integer> {

  @ParentCommand FloeCommand floe;

  @Option(
      names = {"-e", "--execute"},
      paramLabel = "SQL",
      description = "The statements to run, e.g. \"SELECT * FROM shop.orders LIMIT 10\".")
  String execute;

  @Option(
      names = {"-f", "--file"},
      paramLabel = "FILE",
      description = "A file of statements to run.")
  Path file;

  @Option(
      names = "--format",
      paramLabel = "FORMAT",
      description =
          "table (aligned, the default), csv (RFC 4180, header line) or json (one object per"
              + " line).")
  SqlOutputFormat format = SqlOutputFormat.TABLE;

  @Option(
      names = "--max-rows",
      paramLabel = "N",
      description =
          "Print at most N rows per statement (default: 10000 for table, no limit for csv and"
              + " json).")
  Long maxRows;

  @Option(
      names = "--namespace",
      paramLabel = "NS",
      description = "Start in this namespace, so its tables need no prefix (like USE NS).")
  String namespace;

  @Override
  public Integer call() throws IOException {
    if (execute != null && file != null) {
      throw FloeException.badInput("Give either -e SQL or -f FILE, not both.");
    }
    if (maxRows != null && maxRows < 1) {
      throw FloeException.badInput("--max-rows must be at least 1, got " + maxRows + ".");
    }
    String script = execute != null ? execute : file != null ? readScript() : null;
    PrintWriter out = floe.spec.commandLine().getOut();
    PrintWriter err = floe.spec.commandLine().getErr();
    try (SqlSession session = openSession()) {
      if (namespace != null) {
        use(session);
      }
      SqlConsole console =
          new SqlConsole(
              session, format, maxRows != null ? maxRows : format.defaultMaxRows(), out, err);
      if (script != null) {
        return console.runScript(script) ? ExitCodes.OK : ExitCodes.COULD_NOT_RUN;
      }
      BufferedReader in =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      int failures = console.runInteractive(in, System.console() != null);
      return failures == 0 ? ExitCodes.OK : ExitCodes.COULD_NOT_RUN;
    }
  }

  private SqlSession openSession() {
    // The embedded catalog is created (under its lock) by opening it; the session opens its own
    // catalog instance from the same name and properties.
    return SqlSession.open(floe.context().catalog());
  }

  private void use(SqlSession session) {
    try {
      session.execute("USE `" + namespace.replace("`", "``") + "`").close();
    } catch (FloeException e) {
      throw FloeException.badInput(
          "--namespace "
              + namespace
              + " is not a namespace of catalog "
              + session.catalogName()
              + ". SHOW DATABASES lists them.");
    }
  }

  private String readScript() {
    Path path = floe.workingDirectory().resolve(file);
    try {
      return Files.readString(path, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw FloeException.badInput(
          "Cannot read the SQL file " + path + " (" + e.getMessage() + "). Check -f.");
    }
  }
}

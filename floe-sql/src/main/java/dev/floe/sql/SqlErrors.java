package dev.floe.sql;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.table.api.SqlParserException;
import org.apache.flink.table.api.ValidationException;

/** Turns Flink's exception chains into the one line a user needs. */
final class SqlErrors {

  private static final String WHERE_TO_LOOK =
      " SHOW DATABASES lists the namespaces, SHOW TABLES FROM ns the tables of one.";

  /** Calcite's "unknown table" names a part of the path only ('default', or the namespace). */
  private static final Pattern OBJECT_NOT_FOUND =
      Pattern.compile(
          "From line (\\d+), column (\\d+) to line (\\d+), column (\\d+): Object '[^']*' not"
              + " found.*");

  private SqlErrors() {}

  /**
   * Flink's own parse or validation message when there is one (it names the line and column), with
   * an unknown table named as written in the statement; otherwise the message of the failure's root
   * cause, which is where a failed job keeps the reason.
   */
  static String describe(Throwable failure, String statement) {
    List<Throwable> chain = new ArrayList<>();
    for (Throwable t = failure; t != null && !chain.contains(t); t = t.getCause()) {
      chain.add(t);
    }
    for (Throwable t : chain) {
      if (t instanceof SqlParserException || t instanceof ValidationException) {
        String message = firstLine(t).replaceFirst("^SQL validation failed\\. ", "");
        Matcher notFound = OBJECT_NOT_FOUND.matcher(message);
        if (notFound.matches()) {
          int line = Integer.parseInt(notFound.group(1));
          int column = Integer.parseInt(notFound.group(2));
          Optional<String> name =
              excerpt(
                  statement,
                  line,
                  column,
                  Integer.parseInt(notFound.group(3)),
                  Integer.parseInt(notFound.group(4)));
          if (name.isPresent()) {
            return "Table "
                + name.get()
                + " not found (line "
                + line
                + ", column "
                + column
                + ")."
                + WHERE_TO_LOOK;
          }
        }
        String lower = message.toLowerCase(Locale.ROOT);
        if (lower.contains("database") && lower.contains("does not exist")) {
          return message + "." + WHERE_TO_LOOK;
        }
        return message;
      }
    }
    Throwable root = chain.get(chain.size() - 1);
    String message = firstLine(root);
    return message.isEmpty() ? root.getClass().getSimpleName() : message;
  }

  /** The statement's text from (line, column) to (line, column), 1-based and inclusive. */
  private static Optional<String> excerpt(
      String statement, int fromLine, int fromColumn, int toLine, int toColumn) {
    String[] lines = statement.split("\n", -1);
    if (fromLine != toLine || fromLine > lines.length) {
      return Optional.empty();
    }
    String line = lines[fromLine - 1];
    if (fromColumn < 1 || toColumn > line.length() || fromColumn > toColumn) {
      return Optional.empty();
    }
    return Optional.of(line.substring(fromColumn - 1, toColumn));
  }

  private static String firstLine(Throwable t) {
    String message = t.getMessage() == null ? "" : t.getMessage().strip();
    int newline = message.indexOf('\n');
    return (newline < 0 ? message : message.substring(0, newline)).strip();
  }
}

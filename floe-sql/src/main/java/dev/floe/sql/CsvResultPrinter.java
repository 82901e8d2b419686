package dev.floe.sql;

import static java.util.Objects.requireNonNull;

import java.io.PrintWriter;
import java.util.List;

/**
 * CSV: a header line with the column names, then one line per row, fields separated by commas and
 * lines by {@code \n}. A field is quoted (and its quotes doubled) when it holds a comma, a quote, a
 * line break or leading or trailing space, as RFC 4180 says; SQL NULL is an empty field and an
 * empty string is {@code ""}, so the two stay apart.
 */
final class CsvResultPrinter implements SqlResultPrinter {

  private final PrintWriter out;

  CsvResultPrinter(PrintWriter out) {
    this.out = requireNonNull(out, "out is null");
  }

  @Override
  public void begin(List<SqlColumn> columns) {
    StringBuilder line = new StringBuilder();
    for (SqlColumn column : columns) {
      if (!line.isEmpty()) {
        line.append(',');
      }
      line.append(field(column.name()));
    }
    out.print(line.append('\n'));
  }

  @Override
  public void row(List<Object> values) {
    StringBuilder line = new StringBuilder();
    for (int i = 0; i < values.size(); i++) {
      if (i > 0) {
        line.append(',');
      }
      Object value = values.get(i);
      if (value != null) {
        line.append(field(SqlValues.text(value)));
      }
    }
    out.print(line.append('\n'));
  }

  @Override
  public void end(long rows, boolean truncated) {
    out.flush();
  }

  static String field(String text) {
    boolean quote =
        text.isEmpty()
            || text.indexOf(',') >= 0
            || text.indexOf('"') >= 0
            || text.indexOf('\n') >= 0
            || text.indexOf('\r') >= 0
            || !text.strip().equals(text);
    return quote ? '"' + text.replace("\"", "\"\"") + '"' : text;
  }
}

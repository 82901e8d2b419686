package dev.floe.sql;

import static java.util.Objects.requireNonNull;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * An aligned text table: numbers right-aligned, everything else left-aligned, NULL for SQL NULL,
 * control characters escaped ({@code \n}) so every row stays on one line, then a row count line.
 * Rows are kept in memory until the end (the widths depend on all of them).
 */
final class TableResultPrinter implements SqlResultPrinter {

  private final PrintWriter out;
  private List<SqlColumn> columns = List.of();
  private final List<String[]> cells = new ArrayList<>();

  TableResultPrinter(PrintWriter out) {
    this.out = requireNonNull(out, "out is null");
  }

  @Override
  public void begin(List<SqlColumn> columns) {
    this.columns = List.copyOf(columns);
  }

  @Override
  public void row(List<Object> values) {
    String[] row = new String[values.size()];
    for (int i = 0; i < row.length; i++) {
      Object value = values.get(i);
      row[i] = value == null ? "NULL" : escape(SqlValues.text(value));
    }
    cells.add(row);
  }

  @Override
  public void end(long rows, boolean truncated) {
    int[] widths = new int[columns.size()];
    for (int i = 0; i < widths.length; i++) {
      widths[i] = width(escape(columns.get(i).name()));
      for (String[] row : cells) {
        widths[i] = Math.max(widths[i], width(row[i]));
      }
    }
    String border = border(widths);
    out.println(border);
    StringBuilder header = new StringBuilder("|");
    for (int i = 0; i < widths.length; i++) {
      header.append(' ').append(pad(escape(columns.get(i).name()), widths[i], false)).append(" |");
    }
    out.println(header);
    out.println(border);
    for (String[] row : cells) {
      StringBuilder line = new StringBuilder("|");
      for (int i = 0; i < widths.length; i++) {
        boolean right = columns.get(i).numeric() && !row[i].equals("NULL");
        line.append(' ').append(pad(row[i], widths[i], right)).append(" |");
      }
      out.println(line);
    }
    if (!cells.isEmpty()) {
      out.println(border);
    }
    String count = rows + (rows == 1 ? " row" : " rows");
    out.println(truncated ? count + " shown; more not shown (--max-rows, or LIMIT)" : count);
    out.flush();
  }

  private static String border(int[] widths) {
    StringBuilder border = new StringBuilder("+");
    for (int width : widths) {
      border.append("-".repeat(width + 2)).append('+');
    }
    return border.toString();
  }

  private static String pad(String text, int width, boolean right) {
    String padding = " ".repeat(width - width(text));
    return right ? padding + text : text + padding;
  }

  private static int width(String text) {
    return text.codePointCount(0, text.length());
  }

  private static String escape(String text) {
    StringBuilder escaped = null;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      String replacement =
          switch (c) {
            case '\n' -> "\\n";
            case '\r' -> "\\r";
            case '\t' -> "\\t";
            default -> Character.isISOControl(c) ? String.format("\\u%04x", (int) c) : null;
          };
      if (replacement != null && escaped == null) {
        escaped = new StringBuilder(text.substring(0, i));
      }
      if (escaped != null) {
        escaped.append(replacement == null ? String.valueOf(c) : replacement);
      }
    }
    return escaped == null ? text : escaped.toString();
  }
}

package dev.floe.sql;

import java.io.PrintWriter;

/** How {@code floe sql} prints results. See docs/sql.md for each format's exact shape. */
public enum SqlOutputFormat {
  /** An aligned text table with a header, NULL for SQL NULL and a row count line. */
  TABLE,
  /** CSV with a header line, RFC 4180 quoting, an empty field for SQL NULL. */
  CSV,
  /** JSON Lines: one object per row, keys in column order, null for SQL NULL. */
  JSON;

  /** A printer for one result. */
  SqlResultPrinter printer(PrintWriter out) {
    return switch (this) {
      case TABLE -> new TableResultPrinter(out);
      case CSV -> new CsvResultPrinter(out);
      case JSON -> new JsonResultPrinter(out);
    };
  }

  /** Whether two results in a row are set apart by an empty line. */
  boolean blankLineBetweenResults() {
    return this != JSON;
  }

  /** Rows printed at most when --max-rows is not given: the table is built in memory. */
  public long defaultMaxRows() {
    return this == TABLE ? 10_000 : Long.MAX_VALUE;
  }
}

package dev.floe.sql;

import java.util.List;

/** Prints one result: the columns, then each row, then the end. Not thread-safe. */
interface SqlResultPrinter {

  void begin(List<SqlColumn> columns);

  /** Values in column order; {@code null} is SQL NULL. */
  void row(List<Object> values);

  /**
   * @param rows the rows printed
   * @param truncated whether rows were left out (--max-rows)
   */
  void end(long rows, boolean truncated);
}

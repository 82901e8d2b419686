package dev.floe.sql;

import static java.util.Objects.requireNonNull;

import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one statement returned: columns and rows (a query, {@code SHOW}, {@code DESCRIBE}), or
 * nothing but success ({@code USE}, {@code SET}). Rows are read lazily from the running job; close
 * the result to cancel what is not read. Not thread-safe.
 */
public final class SqlResult implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(SqlResult.class);

  private final String statement;
  private final List<SqlColumn> columns;
  private final boolean hasRows;
  private final Iterator<List<Object>> rows;
  private final AutoCloseable resource;
  private final Function<RuntimeException, RuntimeException> failureTranslator;

  SqlResult(
      String statement,
      List<SqlColumn> columns,
      boolean hasRows,
      Iterator<List<Object>> rows,
      AutoCloseable resource,
      Function<RuntimeException, RuntimeException> failureTranslator) {
    this.statement = requireNonNull(statement, "statement is null");
    this.columns = List.copyOf(requireNonNull(columns, "columns is null"));
    this.hasRows = hasRows;
    this.rows = requireNonNull(rows, "rows is null");
    this.resource = requireNonNull(resource, "resource is null");
    this.failureTranslator = requireNonNull(failureTranslator, "failureTranslator is null");
  }

  /** A result that only says the statement succeeded. */
  static SqlResult success(String statement) {
    return new SqlResult(
        statement,
        List.of(),
        false,
        List.<List<Object>>of().iterator(),
        () -> {},
        failure -> failure);
  }

  public String statement() {
    return statement;
  }

  public List<SqlColumn> columns() {
    return columns;
  }

  /** False for statements that return no table ({@code USE}, {@code SET}). */
  public boolean hasRows() {
    return hasRows;
  }

  /**
   * The next row, values in column order ({@code null} for SQL NULL), or empty at the end.
   *
   * @throws dev.floe.core.error.FloeException when the query fails while it runs
   */
  public Optional<List<Object>> nextRow() {
    try {
      if (!rows.hasNext()) {
        return Optional.empty();
      }
      return Optional.of(rows.next());
    } catch (NoSuchElementException e) {
      return Optional.empty();
    } catch (RuntimeException e) {
      throw failureTranslator.apply(e);
    }
  }

  /** Stops the query if it still runs. */
  @Override
  public void close() {
    try {
      resource.close();
    } catch (Exception e) {
      // The rows wanted are read; a job that fails while being cancelled changes nothing here.
      LOG.debug("closing a result failed", e);
    }
  }
}

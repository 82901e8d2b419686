package dev.floe.verify;

import static java.util.Objects.requireNonNull;

import dev.floe.core.error.FloeException;
import dev.floe.core.verify.ComparedRow;
import dev.floe.core.verify.KeyRange;
import dev.floe.core.verify.KeySql;
import dev.floe.core.verify.RowKey;
import dev.floe.core.verify.RowText;
import dev.floe.core.verify.SliceDigest;
import dev.floe.core.verify.TableShape;
import dev.floe.core.verify.TimeBounds;
import dev.floe.core.verify.VerifyColumn;
import dev.floe.mysql.MySqlConnections;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Reads one MySQL table in primary-key ranges: key boundaries by walking the key index, per-range
 * digests computed inside MySQL, and normalized rows for row-level comparison. Every query filters
 * by a key range first; the time filter is applied inside it. Thread-safe: each query borrows a
 * pooled connection and passes the load guard.
 */
final class MySqlSliceReader {

  private final MySqlConnectionPool pool;
  private final SourceLoadGuard guard;
  private final TableShape shape;
  private final RowText rowText;
  private final TimeBounds bounds;
  private final String keyList;
  private final AtomicLong bytesRead = new AtomicLong();
  private final Map<String, LongAdder> queryNanos = new ConcurrentHashMap<>();

  MySqlSliceReader(
      MySqlConnectionPool pool, SourceLoadGuard guard, TableShape shape, TimeBounds bounds) {
    this.pool = requireNonNull(pool, "pool is null");
    this.guard = requireNonNull(guard, "guard is null");
    this.shape = requireNonNull(shape, "shape is null");
    this.rowText = new RowText(shape);
    this.bounds = requireNonNull(bounds, "bounds is null");
    this.keyList =
        String.join(
            ", ",
            shape.keyColumns().stream()
                .map(column -> column.kind().sqlText(column.quoted()))
                .toList());
  }

  TableShape shape() {
    return shape;
  }

  /** A rough count of the bytes of result values read from MySQL (for the benchmark). */
  long bytesRead() {
    return bytesRead.get();
  }

  /**
   * Time spent in queries, summed over threads, by kind: {@code walk} (key boundaries), {@code
   * digest}, {@code parts} (part digests of a mismatching slice), {@code rows} (row comparison),
   * {@code existing}; and {@code connection wait}.
   */
  Map<String, Long> queryNanos() {
    Map<String, Long> nanos = new HashMap<>();
    queryNanos.forEach((kind, total) -> nanos.put(kind, total.sum()));
    nanos.put("connection wait", pool.waitNanos());
    return nanos;
  }

  /**
   * The key at {@code offset} (0-based) in key order from the range's lower bound, or empty when
   * the range holds no more than {@code offset} keys.
   */
  Optional<RowKey> keyAt(KeyRange range, long offset) {
    KeySql where = KeySql.range(shape.keyColumns(), range);
    String sql =
        "SELECT "
            + keyList
            + " FROM "
            + shape.quotedName()
            + " WHERE "
            + where.sql()
            + " ORDER BY "
            + KeySql.orderBy(shape.keyColumns())
            + " LIMIT 1 OFFSET "
            + offset;
    return query(
        "walk",
        sql,
        where.parameters(),
        List.of(),
        result -> {
          if (!result.next()) {
            return Optional.empty();
          }
          return Optional.of(readKey(result, 1));
        });
  }

  /** COUNT and SUM of row hashes of the compared rows of a range, computed by MySQL. */
  SliceDigest digest(KeyRange range) {
    KeySql where = KeySql.range(shape.keyColumns(), range);
    return query(
        "digest",
        "SELECT " + digestSql(where),
        where.parameters(),
        List.of(bounds.windowStart()),
        result -> {
          result.next();
          return readDigest(result, 1);
        });
  }

  /**
   * The aggregate and the rest of a digest query after {@code SELECT}: COUNT(*) and the SUM of the
   * row hashes of the range's compared rows. Its parameters in text order: the window start (in the
   * hash), the key range, the cutoff.
   */
  private String digestSql(KeySql where) {
    return "COUNT(*), CAST(SUM("
        + rowText.sqlRowHash()
        + ") AS CHAR) FROM "
        + shape.quotedName()
        + " WHERE "
        + where.sql()
        + " AND "
        + rowText.sqlComparedFilter();
  }

  /**
   * The digest in the result's columns {@code first} (the count) and {@code first + 1} (the sum).
   */
  private SliceDigest readDigest(ResultSet result, int first) throws SQLException {
    long rows = result.getLong(first);
    String sum = result.getString(first + 1);
    bytesRead.addAndGet(8 + (sum == null ? 0 : sum.length()));
    return new SliceDigest(rows, sum == null ? BigInteger.ZERO : new BigInteger(sum));
  }

  /**
   * The digests of consecutive parts of a range, in one query over the range: part 0 holds the keys
   * below {@code boundaries[0]}, part i those in [boundaries[i-1], boundaries[i]), the last those
   * at or above the last boundary. For one integer key column: each key's part is found by a binary
   * search written as nested {@code IF}s of integer comparisons (measured per million rows: about
   * 0.4-0.6 s of MySQL CPU for the search and the grouping, against about 1.1 s with {@code
   * INTERVAL}, which compares as decimals), and the parts are the query's groups.
   *
   * @param boundaries ascending
   */
  SliceDigest[] partDigests(KeyRange range, long[] boundaries) {
    KeySql where = KeySql.range(shape.keyColumns(), range);
    StringBuilder part = new StringBuilder();
    appendPartOf(shape.keyColumns().get(0).quoted(), boundaries, 0, boundaries.length, part);
    return query(
        "parts",
        "SELECT " + part + ", " + digestSql(where) + " GROUP BY 1 ORDER BY NULL",
        where.parameters(),
        List.of(bounds.windowStart()),
        result -> {
          SliceDigest[] digests = new SliceDigest[boundaries.length + 1];
          Arrays.fill(digests, SliceDigest.EMPTY);
          while (result.next()) {
            bytesRead.addAndGet(4);
            digests[result.getInt(1)] = readDigest(result, 2);
          }
          return digests;
        });
  }

  /**
   * Appends the SQL expression giving the part (in [first, last]) of a key known to lie at or above
   * {@code boundaries[first - 1]} and below {@code boundaries[last]}: a balanced tree of {@code
   * IF(key < boundary, lower half, upper half)}, log2 comparisons a row.
   */
  private static void appendPartOf(
      String key, long[] boundaries, int first, int last, StringBuilder sql) {
    if (first == last) {
      sql.append(first);
      return;
    }
    int middle = (first + last + 1) >>> 1;
    sql.append("IF(").append(key).append(" < ").append(boundaries[middle - 1]).append(", ");
    appendPartOf(key, boundaries, first, middle - 1, sql);
    sql.append(", ");
    appendPartOf(key, boundaries, middle, last, sql);
    sql.append(')');
  }

  /** The compared rows of a range, normalized, by key. */
  Map<RowKey, ComparedRow> rows(KeyRange range) {
    KeySql where = KeySql.range(shape.keyColumns(), range);
    List<String> texts = new ArrayList<>();
    for (VerifyColumn column : shape.columns()) {
      texts.add(column.kind().sqlText(column.quoted()));
    }
    String sql =
        "SELECT "
            + String.join(", ", texts)
            + " FROM "
            + shape.quotedName()
            + " WHERE "
            + where.sql()
            + " AND "
            + rowText.sqlComparedFilter();
    return query(
        "rows",
        sql,
        where.parameters(),
        List.of(),
        result -> {
          Map<RowKey, ComparedRow> rows = new HashMap<>();
          int count = shape.columns().size();
          while (result.next()) {
            List<String> values = new ArrayList<>(count);
            for (int i = 1; i <= count; i++) {
              String value = result.getString(i);
              values.add(value);
              if (value != null) {
                bytesRead.addAndGet(value.length());
              }
            }
            rows.put(
                rowText.key(values),
                new ComparedRow(values, bounds.inWindow(rowText.time(values))));
          }
          return rows;
        });
  }

  /** Which of these keys MySQL has now, whatever their time. */
  Set<RowKey> existing(List<RowKey> keys) {
    Set<RowKey> existing = new HashSet<>();
    for (int from = 0; from < keys.size(); from += 200) {
      KeySql where =
          KeySql.anyOf(shape.keyColumns(), keys.subList(from, Math.min(keys.size(), from + 200)));
      String sql = "SELECT " + keyList + " FROM " + shape.quotedName() + " WHERE " + where.sql();
      existing.addAll(
          query(
              "existing",
              sql,
              where.parameters(),
              List.of(),
              result -> {
                Set<RowKey> found = new HashSet<>();
                while (result.next()) {
                  found.add(readKey(result, 1));
                }
                return found;
              }));
    }
    return existing;
  }

  private RowKey readKey(ResultSet result, int firstColumn) throws SQLException {
    List<String> values = new ArrayList<>();
    for (int i = 0; i < shape.keyColumns().size(); i++) {
      String value = result.getString(firstColumn + i);
      values.add(value);
      bytesRead.addAndGet(value.length());
    }
    return new RowKey(values);
  }

  private interface ResultReader<T> {
    T read(ResultSet result) throws SQLException;
  }

  /**
   * Runs a query: {@code leading} parameters (strings) come first in the SQL text, then the key
   * parameters, then the cutoff when the SQL has the compared-rows filter.
   */
  private <T> T query(
      String kind,
      String sql,
      List<KeySql.Parameter> keyParameters,
      List<String> leading,
      ResultReader<T> reader) {
    // the walk first: every other query and the lake reads wait for its boundaries
    Connection connection = pool.borrow(kind.equals("walk"));
    long started = System.nanoTime();
    try {
      guard.beforeQuery();
      try (PreparedStatement statement = connection.prepareStatement(sql)) {
        int index = 1;
        for (String value : leading) {
          statement.setString(index++, value);
        }
        for (KeySql.Parameter parameter : keyParameters) {
          bind(statement, index++, parameter);
        }
        if (sql.contains(rowText.sqlComparedFilter())) {
          statement.setString(index, bounds.cutoff());
        }
        try (ResultSet result = statement.executeQuery()) {
          return reader.read(result);
        }
      } finally {
        guard.afterQuery();
      }
    } catch (SQLException e) {
      throw FloeException.sourceUnavailable(
          "Reading "
              + shape.qualifiedName()
              + " from MySQL at "
              + pool.address().hostAndPort()
              + " failed: "
              + MySqlConnections.explain(pool.address(), e).problem()
              + ". Check that the server is up and the user may read the table.",
          e);
    } finally {
      pool.release(connection);
      queryNanos.computeIfAbsent(kind, any -> new LongAdder()).add(System.nanoTime() - started);
    }
  }

  private static void bind(PreparedStatement statement, int index, KeySql.Parameter parameter)
      throws SQLException {
    String text = parameter.text();
    switch (parameter.column().kind()) {
      case INTEGER:
        BigInteger integer = new BigInteger(text);
        if (integer.bitLength() < 64) {
          statement.setLong(index, integer.longValueExact());
        } else {
          statement.setBigDecimal(index, new BigDecimal(integer));
        }
        break;
      case DECIMAL:
        statement.setBigDecimal(index, new BigDecimal(text));
        break;
      default:
        statement.setString(index, text);
        break;
    }
  }
}

package dev.floe.server.store;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.Optional;

/** How the keeper's stores put optional values into SQL columns and read them back. */
final class JdbcColumns {

  private JdbcColumns() {}

  /** An epoch-millisecond column, empty where it is NULL. */
  static Optional<Instant> instant(ResultSet rows, int column) throws SQLException {
    long value = rows.getLong(column);
    return rows.wasNull() ? Optional.empty() : Optional.of(Instant.ofEpochMilli(value));
  }

  static void setInstant(PreparedStatement statement, int index, Optional<Instant> value)
      throws SQLException {
    if (value.isPresent()) {
      statement.setLong(index, value.get().toEpochMilli());
    } else {
      statement.setNull(index, Types.BIGINT);
    }
  }

  static void setInteger(PreparedStatement statement, int index, Optional<Integer> value)
      throws SQLException {
    if (value.isPresent()) {
      statement.setInt(index, value.get());
    } else {
      statement.setNull(index, Types.INTEGER);
    }
  }
}

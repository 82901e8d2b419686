package dev.floe.verify;

import static java.util.Objects.requireNonNull;

import dev.floe.core.error.FloeException;
import dev.floe.core.source.MySqlSourceAddress;
import dev.floe.mysql.MySqlConnections;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * At most {@code size} connections to the source, so at most {@code size} verify queries run on it
 * at once. Every connection uses {@code time_zone = '+00:00'} (TIMESTAMP columns read in UTC).
 * Thread-safe; {@link #borrow()} blocks while all connections are in use.
 */
final class MySqlConnectionPool implements AutoCloseable {

  private final MySqlConnections connections;
  private final MySqlSourceAddress address;
  private final BlockingQueue<Connection> idle;
  private final List<Connection> all = new ArrayList<>();
  private final int size;

  MySqlConnectionPool(MySqlConnections connections, MySqlSourceAddress address, int size) {
    this.connections = requireNonNull(connections, "connections is null");
    this.address = requireNonNull(address, "address is null");
    if (size < 1) {
      throw new IllegalArgumentException("size must be >= 1, got " + size);
    }
    this.size = size;
    this.idle = new ArrayBlockingQueue<>(size);
  }

  /** A connection for one query; give it back with {@link #release}. */
  Connection borrow() {
    Connection connection = idle.poll();
    if (connection != null) {
      return connection;
    }
    synchronized (all) {
      if (all.size() < size) {
        Connection opened = connections.open(address);
        try (Statement statement = opened.createStatement()) {
          statement.execute("SET time_zone = '+00:00'");
        } catch (SQLException e) {
          close(opened);
          throw MySqlConnections.explain(address, e).toException(e);
        }
        all.add(opened);
        return opened;
      }
    }
    try {
      return idle.take();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new FloeException(
          dev.floe.core.error.ErrorCategory.INTERNAL, "interrupted while waiting for MySQL", e);
    }
  }

  void release(Connection connection) {
    idle.add(connection);
  }

  MySqlSourceAddress address() {
    return address;
  }

  @Override
  public void close() {
    synchronized (all) {
      all.forEach(MySqlConnectionPool::close);
      all.clear();
    }
  }

  private static void close(Connection connection) {
    try {
      connection.close();
    } catch (SQLException ignored) {
      // closing a connection we no longer need: nothing to do about a failure
    }
  }
}

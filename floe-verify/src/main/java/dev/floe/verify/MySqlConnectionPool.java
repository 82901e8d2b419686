package dev.floe.verify;

import static java.util.Objects.requireNonNull;

import dev.floe.core.error.ErrorCategory;
import dev.floe.core.error.FloeException;
import dev.floe.core.source.MySqlSourceAddress;
import dev.floe.mysql.MySqlConnections;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * At most {@code size} connections to the source, so at most {@code size} verify queries run on it
 * at once. Every connection uses {@code time_zone = '+00:00'} (TIMESTAMP columns read in UTC).
 * Thread-safe; {@link #borrow} blocks while all connections are in use, and a borrower with
 * priority (the key walk, which everything else waits for) gets the next free connection before the
 * others.
 */
final class MySqlConnectionPool implements AutoCloseable {

  private final MySqlConnections connections;
  private final MySqlSourceAddress address;
  private final Deque<Connection> idle = new ArrayDeque<>();
  private final List<Connection> all = new ArrayList<>();
  private final int size;
  private int opening;
  private int priorityWaiting;
  private long waitNanos;

  MySqlConnectionPool(MySqlConnections connections, MySqlSourceAddress address, int size) {
    this.connections = requireNonNull(connections, "connections is null");
    this.address = requireNonNull(address, "address is null");
    if (size < 1) {
      throw new IllegalArgumentException("size must be >= 1, got " + size);
    }
    this.size = size;
  }

  /** A connection for one query; give it back with {@link #release}. */
  Connection borrow() {
    return borrow(false);
  }

  /**
   * A connection for one query; with {@code priority}, ahead of borrowers without it. Give it back
   * with {@link #release}.
   */
  Connection borrow(boolean priority) {
    long started = System.nanoTime();
    synchronized (this) {
      if (priority) {
        priorityWaiting++;
      }
      try {
        while (true) {
          boolean mayTake = priority || priorityWaiting == 0;
          if (mayTake && !idle.isEmpty()) {
            waitNanos += System.nanoTime() - started;
            return idle.pop();
          }
          if (mayTake && all.size() + opening < size) {
            opening++;
            break;
          }
          try {
            wait();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new FloeException(
                ErrorCategory.INTERNAL, "interrupted while waiting for MySQL", e);
          }
        }
      } finally {
        if (priority) {
          priorityWaiting--;
        }
      }
    }
    // open a new connection outside the lock
    Connection opened = null;
    try {
      opened = connections.open(address);
      try (Statement statement = opened.createStatement()) {
        statement.execute("SET time_zone = '+00:00'");
      }
    } catch (SQLException e) {
      close(opened);
      opened(null);
      throw MySqlConnections.explain(address, e).toException(e);
    } catch (RuntimeException e) {
      close(opened);
      opened(null);
      throw e;
    }
    opened(opened);
    return opened;
  }

  private synchronized void opened(Connection connection) {
    opening--;
    if (connection != null) {
      all.add(connection);
    }
    notifyAll();
  }

  synchronized void release(Connection connection) {
    idle.push(connection);
    notifyAll();
  }

  /** How long borrowers waited for a connection, summed over all borrows. */
  synchronized long waitNanos() {
    return waitNanos;
  }

  MySqlSourceAddress address() {
    return address;
  }

  @Override
  public synchronized void close() {
    all.forEach(MySqlConnectionPool::close);
    all.clear();
    idle.clear();
  }

  private static void close(Connection connection) {
    if (connection == null) {
      return;
    }
    try {
      connection.close();
    } catch (SQLException ignored) {
      // closing a connection we no longer need: nothing to do about a failure
    }
  }
}

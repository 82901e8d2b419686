package dev.floe.verify;

import static java.util.Objects.requireNonNull;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * Holds verify's queries back while the source is busy: before a query, while {@code
 * Threads_running} minus verify's own running queries is above the threshold, it waits (checking
 * again every {@code checkEvery}). The status is read at most once per {@code checkEvery}.
 * Thread-safe.
 */
final class SourceLoadGuard {

  interface StatusReader {
    long threadsRunning() throws SQLException;
  }

  private final StatusReader status;
  private final long maximumThreadsRunning;
  private final Duration checkEvery;
  private final Consumer<String> onPause;
  private final LongSupplier nanoTime;
  private final AtomicInteger ownQueries = new AtomicInteger();
  private long lastCheckNanos;
  private long lastRunning;
  private long pauses;

  SourceLoadGuard(
      StatusReader status,
      long maximumThreadsRunning,
      Duration checkEvery,
      Consumer<String> onPause) {
    this(status, maximumThreadsRunning, checkEvery, onPause, System::nanoTime);
  }

  /** As above, with the clock that decides when the cached status is stale injected. */
  SourceLoadGuard(
      StatusReader status,
      long maximumThreadsRunning,
      Duration checkEvery,
      Consumer<String> onPause,
      LongSupplier nanoTime) {
    this.nanoTime = requireNonNull(nanoTime, "nanoTime is null");
    this.status = requireNonNull(status, "status is null");
    this.maximumThreadsRunning = maximumThreadsRunning;
    this.checkEvery = requireNonNull(checkEvery, "checkEvery is null");
    this.onPause = requireNonNull(onPause, "onPause is null");
  }

  /** Reads {@code Threads_running} on a connection of its own. */
  static StatusReader threadsRunning(Connection connection) {
    return () -> {
      synchronized (connection) {
        try (Statement statement = connection.createStatement();
            ResultSet result =
                statement.executeQuery("SHOW GLOBAL STATUS LIKE 'Threads_running'")) {
          return result.next() ? Long.parseLong(result.getString(2)) : 0;
        }
      }
    };
  }

  /** Blocks until the source is quiet enough, then counts one own query as running. */
  void beforeQuery() throws SQLException {
    boolean announced = false;
    while (true) {
      long others = running() - ownQueries.get();
      if (others <= maximumThreadsRunning) {
        break;
      }
      if (!announced) {
        synchronized (this) {
          pauses++;
        }
        onPause.accept(
            "source busy: Threads_running "
                + others
                + " (without verify's queries) > "
                + maximumThreadsRunning
                + ", pausing");
        announced = true;
      }
      try {
        Thread.sleep(checkEvery.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new SQLException("interrupted while waiting for a quiet source", e);
      }
    }
    ownQueries.incrementAndGet();
  }

  void afterQuery() {
    ownQueries.decrementAndGet();
  }

  synchronized long pauses() {
    return pauses;
  }

  private synchronized long running() throws SQLException {
    long now = nanoTime.getAsLong();
    if (lastCheckNanos == 0 || now - lastCheckNanos >= checkEvery.toNanos()) {
      lastRunning = status.threadsRunning();
      lastCheckNanos = now;
    }
    return lastRunning;
  }
}

package dev.floe.cli;

import dev.floe.testing.MariaDbServer;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Live changes on the demo shop while it syncs: new orders with items, paid and shipped orders, new
 * orders cancelled and deleted with their items, a few times a second, on a thread of its own
 * between {@link #start} and {@link #stop} (again after a stop).
 *
 * <p>Only orders the traffic created itself (ids from {@link #FIRST_ORDER_ID}) are cancelled and
 * deleted. So every row the sample database was loaded with is still in MySQL, and the demo's
 * verification (rows changed before the traffic started) is exact: a row deleted in MySQL after the
 * verification's cutoff but still in the lake snapshot read would count as extra in the lake
 * (docs/verify.md).
 */
final class DemoTraffic {

  /** Above every order id of the sample database. */
  static final long FIRST_ORDER_ID = 1_800_000_000_000_000_000L;

  private final MariaDbServer server;
  private final String database;
  private final Random random = new Random(11);
  private final AtomicLong nextId = new AtomicLong(FIRST_ORDER_ID);
  private final AtomicInteger changes = new AtomicInteger();
  private final AtomicBoolean running = new AtomicBoolean();
  private volatile Thread thread;
  private volatile String failure;

  DemoTraffic(MariaDbServer server) {
    this(server, "shop");
  }

  /** Changes on the sample shop in {@code database} (the demo's is {@code shop}). */
  DemoTraffic(MariaDbServer server, String database) {
    this.server = server;
    this.database = database;
  }

  /** Starts the changes; does nothing while they run. */
  synchronized void start() {
    if (running.compareAndSet(false, true)) {
      thread = new Thread(this::run, "floe-demo-traffic");
      thread.setDaemon(true);
      thread.start();
    }
  }

  /** Stops the changes and waits for the last one. */
  synchronized void stop() throws InterruptedException {
    running.set(false);
    if (thread != null) {
      thread.join();
      thread = null;
    }
  }

  boolean running() {
    return running.get();
  }

  /** Changes made so far, over every start. */
  int changes() {
    return changes.get();
  }

  private void run() {
    try (Connection connection = server.rootConnection();
        Statement statement = connection.createStatement()) {
      statement.execute("USE `" + database + "`");
      while (running.get()) {
        change(statement);
        changes.incrementAndGet();
        Thread.sleep(100); // pacing the demo's traffic, not waiting for a condition
      }
    } catch (SQLException e) {
      if (running.get()) {
        failure = e.getMessage();
        running.set(false);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Why the traffic stopped by itself, if it did. */
  java.util.Optional<String> failure() {
    return java.util.Optional.ofNullable(failure);
  }

  private void change(Statement statement) throws SQLException {
    switch (random.nextInt(5)) {
      case 0, 1 -> {
        long id = nextId.getAndIncrement();
        statement.execute(
            "INSERT INTO orders (id, customer_id, status, total, ordered_on, created_at) VALUES ("
                + id
                + ", 1 + FLOOR(RAND() * 200), 'new', 19.99, CURRENT_DATE, NOW(6))");
        statement.execute(
            "INSERT INTO order_items (order_id, line_no, product_id, quantity, unit_price) VALUES ("
                + id
                + ", 1, 1 + FLOOR(RAND() * 50), 1, 19.99)");
      }
      case 2 ->
          statement.execute(
              "UPDATE orders SET status = 'paid' WHERE status = 'new' ORDER BY RAND() LIMIT 1");
      case 3 ->
          statement.execute(
              "UPDATE orders SET status = 'shipped' WHERE status = 'paid' ORDER BY RAND() LIMIT 1");
      default -> {
        statement.execute(
            "UPDATE orders SET status = 'cancelled' WHERE status = 'new' AND id >= "
                + FIRST_ORDER_ID
                + " ORDER BY RAND() LIMIT 1");
        statement.execute(
            "DELETE FROM order_items WHERE order_id IN (SELECT id FROM orders WHERE status ="
                + " 'cancelled' AND id >= "
                + FIRST_ORDER_ID
                + ")");
        statement.execute(
            "DELETE FROM orders WHERE status = 'cancelled' AND id >= " + FIRST_ORDER_ID);
      }
    }
  }
}

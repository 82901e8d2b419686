package dev.floe.cli;

import dev.floe.testing.MariaDbServer;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Live changes on the demo shop while it syncs: new orders with items, paid and shipped orders,
 * cancelled orders deleted, a few times a second.
 */
final class DemoTraffic implements Runnable {

  private final MariaDbServer server;
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final AtomicInteger changes = new AtomicInteger();

  DemoTraffic(MariaDbServer server) {
    this.server = server;
  }

  void stop() {
    running.set(false);
  }

  int changes() {
    return changes.get();
  }

  @Override
  public void run() {
    Random random = new Random(11);
    long nextId = 1_800_000_000_000_000_000L;
    try (Connection connection = server.rootConnection();
        Statement statement = connection.createStatement()) {
      statement.execute("USE shop");
      while (running.get()) {
        switch (random.nextInt(4)) {
          case 0 -> {
            long id = nextId++;
            statement.execute(
                "INSERT INTO orders (id, customer_id, status, total, ordered_on, created_at) VALUES ("
                    + id
                    + ", 1 + FLOOR(RAND() * 200), 'new', 19.99, CURRENT_DATE, NOW(6))");
            statement.execute(
                "INSERT INTO order_items (order_id, line_no, product_id, quantity, unit_price) VALUES ("
                    + id
                    + ", 1, 1 + FLOOR(RAND() * 50), 1, 19.99)");
          }
          case 1 ->
              statement.execute(
                  "UPDATE orders SET status = 'paid' WHERE status = 'new' ORDER BY RAND() LIMIT 1");
          case 2 ->
              statement.execute(
                  "UPDATE orders SET status = 'shipped' WHERE status = 'paid' ORDER BY RAND() LIMIT 1");
          default -> {
            statement.execute(
                "DELETE FROM order_items WHERE order_id IN (SELECT id FROM orders WHERE status = 'cancelled') LIMIT 3");
            statement.execute(
                "DELETE FROM orders WHERE status = 'cancelled' AND id NOT IN (SELECT order_id FROM order_items) LIMIT 1");
          }
        }
        changes.incrementAndGet();
        Thread.sleep(100); // pacing the demo's traffic, not waiting for a condition
      }
    } catch (SQLException e) {
      if (running.get()) {
        throw new IllegalStateException("demo traffic failed: " + e.getMessage(), e);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}

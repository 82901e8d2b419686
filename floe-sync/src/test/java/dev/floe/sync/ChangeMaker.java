package dev.floe.sync;

import dev.floe.testing.MariaDbServer;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Makes a steady stream of inserts, updates (including a primary-key change) and deletes on the
 * sample shop's order_items and customers tables, in autocommit, until stopped.
 */
final class ChangeMaker implements Runnable {

  private final MariaDbServer server;
  private final String database;
  private final AtomicInteger statements = new AtomicInteger();
  private final CountDownLatch stop = new CountDownLatch(1);
  private volatile Instant until = Instant.MAX;

  ChangeMaker(MariaDbServer server, String database) {
    this.server = server;
    this.database = database;
  }

  /** Lets the changes run for this long from now, then stop. */
  void runFor(Duration duration) {
    until = Instant.now().plus(duration);
  }

  void stop() {
    stop.countDown();
  }

  int statements() {
    return statements.get();
  }

  @Override
  public void run() {
    Random random = new Random(7);
    String items = "`" + database + "`.order_items";
    String customers = "`" + database + "`.customers";
    try (Connection connection = server.rootConnection();
        Statement statement = connection.createStatement()) {
      int next = 1;
      while (Instant.now().isBefore(until) && !stop.await(2, TimeUnit.MILLISECONDS)) {
        switch (random.nextInt(6)) {
          case 0 ->
              statement.execute(
                  "INSERT INTO "
                      + items
                      + " SELECT order_id, 100 + "
                      + next++
                      + ", 2, 1, 9.99 FROM "
                      + items
                      + " ORDER BY RAND() LIMIT 1");
          case 1 ->
              statement.execute(
                  "UPDATE " + items + " SET quantity = quantity + 1 ORDER BY RAND() LIMIT 1");
          case 2 -> statement.execute("DELETE FROM " + items + " ORDER BY RAND() LIMIT 1");
          case 3 ->
              statement.execute(
                  "UPDATE "
                      + items
                      + " SET line_no = line_no + 1000 WHERE line_no < 1000 ORDER BY RAND() LIMIT 1");
          case 4 ->
              statement.execute(
                  "INSERT INTO "
                      + customers
                      + " (email, name, country, vip, created_at) VALUES ('c"
                      + next++
                      + "@x', 'C', 'US', 0, NOW(3))");
          default ->
              statement.execute(
                  "UPDATE " + customers + " SET vip = 1 - vip ORDER BY RAND() LIMIT 1");
        }
        statements.incrementAndGet();
      }
    } catch (Exception e) {
      throw new IllegalStateException("the change maker failed: " + e.getMessage(), e);
    }
  }
}

package dev.floe.testing;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.LocalDateTime;
import java.util.Random;

/**
 * A small sample shop database (customers, products, orders, order items) with the column types
 * real business schemas use. Deterministic: the same seed gives the same rows. Used by {@code floe
 * demo} and by tests.
 */
public final class SampleShop {

  /** How many rows each table gets. */
  public record Size(int customers, int products, int orders, int itemsPerOrder) {
    public static final Size SMALL = new Size(200, 50, 1000, 3);

    public int orderItems() {
      return orders * itemsPerOrder;
    }
  }

  private static final String[] SCHEMA = {
    """
    CREATE TABLE customers (
      id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
      email VARCHAR(191) NOT NULL UNIQUE,
      name VARCHAR(100) NOT NULL,
      country CHAR(2) NOT NULL,
      vip TINYINT(1) NOT NULL DEFAULT 0,
      created_at DATETIME(3) NOT NULL,
      updated_at TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6) ON UPDATE CURRENT_TIMESTAMP(6)
    ) ENGINE=InnoDB
    """,
    """
    CREATE TABLE products (
      id INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
      sku VARCHAR(32) NOT NULL UNIQUE,
      title VARCHAR(200) NOT NULL,
      price DECIMAL(10,2) NOT NULL,
      weight_kg DOUBLE NULL,
      category ENUM('books','games','garden','kitchen') NOT NULL,
      attributes JSON NULL,
      updated_at TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6) ON UPDATE CURRENT_TIMESTAMP(6)
    ) ENGINE=InnoDB
    """,
    """
    CREATE TABLE orders (
      id BIGINT NOT NULL PRIMARY KEY,
      customer_id BIGINT UNSIGNED NOT NULL,
      status ENUM('new','paid','shipped','cancelled') NOT NULL,
      total DECIMAL(12,2) NOT NULL,
      note TEXT NULL,
      ordered_on DATE NOT NULL,
      created_at DATETIME(6) NOT NULL,
      updated_at TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6) ON UPDATE CURRENT_TIMESTAMP(6),
      KEY orders_customer (customer_id)
    ) ENGINE=InnoDB
    """,
    """
    CREATE TABLE order_items (
      order_id BIGINT NOT NULL,
      line_no SMALLINT UNSIGNED NOT NULL,
      product_id INT NOT NULL,
      quantity INT NOT NULL,
      unit_price DECIMAL(10,2) NOT NULL,
      PRIMARY KEY (order_id, line_no)
    ) ENGINE=InnoDB
    """
  };

  private static final String[] COUNTRIES = {"DE", "FR", "US", "CN", "BR", "IN", "JP", "NG"};
  private static final String[] CATEGORIES = {"books", "games", "garden", "kitchen"};
  private static final String[] STATUSES = {"new", "paid", "shipped", "cancelled"};

  /** Order ids are snowflake-like: large, sparse and increasing, as in the case study. */
  private static final long ORDER_ID_BASE = 1_700_000_000_000_000_000L;

  private SampleShop() {}

  /** Creates the four tables in {@code database} and fills them. */
  public static void create(MariaDbServer server, String database, Size size) {
    try (Connection connection = server.rootConnection()) {
      connection.setCatalog(database);
      try (Statement statement = connection.createStatement()) {
        for (String ddl : SCHEMA) {
          statement.execute(ddl);
        }
      }
      connection.setAutoCommit(false);
      fill(connection, size, new Random(42));
      connection.commit();
    } catch (SQLException e) {
      throw new IllegalStateException(
          "cannot create the sample shop in " + database + ": " + e.getMessage(), e);
    }
  }

  private static void fill(Connection connection, Size size, Random random) throws SQLException {
    LocalDateTime start = LocalDateTime.of(2026, 1, 1, 0, 0);
    try (PreparedStatement insert =
        connection.prepareStatement(
            "INSERT INTO customers (email, name, country, vip, created_at) VALUES (?, ?, ?, ?, ?)")) {
      for (int i = 1; i <= size.customers(); i++) {
        insert.setString(1, "customer" + i + "@example.com");
        insert.setString(2, "Customer " + i);
        insert.setString(3, COUNTRIES[random.nextInt(COUNTRIES.length)]);
        insert.setBoolean(4, random.nextInt(10) == 0);
        insert.setTimestamp(5, Timestamp.valueOf(start.plusMinutes(i * 37L)));
        insert.addBatch();
      }
      insert.executeBatch();
    }
    try (PreparedStatement insert =
        connection.prepareStatement(
            "INSERT INTO products (sku, title, price, weight_kg, category, attributes)"
                + " VALUES (?, ?, ?, ?, ?, ?)")) {
      for (int i = 1; i <= size.products(); i++) {
        insert.setString(1, "SKU-" + (1000 + i));
        insert.setString(2, "Product " + i);
        insert.setBigDecimal(3, java.math.BigDecimal.valueOf(100 + random.nextInt(9900), 2));
        if (i % 7 == 0) {
          insert.setNull(4, java.sql.Types.DOUBLE);
        } else {
          insert.setDouble(4, 0.1 + random.nextInt(500) / 100.0);
        }
        insert.setString(5, CATEGORIES[i % CATEGORIES.length]);
        insert.setString(6, "{\"color\": \"c" + (i % 5) + "\", \"tags\": [" + i + "]}");
        insert.addBatch();
      }
      insert.executeBatch();
    }
    try (PreparedStatement order =
            connection.prepareStatement(
                "INSERT INTO orders (id, customer_id, status, total, note, ordered_on, created_at)"
                    + " VALUES (?, ?, ?, ?, ?, ?, ?)");
        PreparedStatement item =
            connection.prepareStatement(
                "INSERT INTO order_items (order_id, line_no, product_id, quantity, unit_price)"
                    + " VALUES (?, ?, ?, ?, ?)")) {
      long id = ORDER_ID_BASE;
      for (int i = 1; i <= size.orders(); i++) {
        id += 1 + random.nextInt(1 << 22);
        LocalDateTime created =
            start.plusMinutes(i * 11L).plusNanos(random.nextInt(1_000_000) * 1000L);
        long totalCents = 0;
        for (int line = 1; line <= size.itemsPerOrder(); line++) {
          int quantity = 1 + random.nextInt(4);
          long priceCents = 100 + random.nextInt(9900);
          totalCents += quantity * priceCents;
          item.setLong(1, id);
          item.setInt(2, line);
          item.setInt(3, 1 + random.nextInt(size.products()));
          item.setInt(4, quantity);
          item.setBigDecimal(5, java.math.BigDecimal.valueOf(priceCents, 2));
          item.addBatch();
        }
        order.setLong(1, id);
        order.setLong(2, 1 + random.nextInt(size.customers()));
        order.setString(3, STATUSES[random.nextInt(STATUSES.length)]);
        order.setBigDecimal(4, java.math.BigDecimal.valueOf(totalCents, 2));
        order.setString(5, i % 5 == 0 ? null : i % 5 == 1 ? "" : "gift wrap " + i);
        order.setDate(6, java.sql.Date.valueOf(created.toLocalDate()));
        order.setTimestamp(7, Timestamp.valueOf(created));
        order.addBatch();
        if (i % 500 == 0) {
          order.executeBatch();
          item.executeBatch();
        }
      }
      order.executeBatch();
      item.executeBatch();
    }
  }
}

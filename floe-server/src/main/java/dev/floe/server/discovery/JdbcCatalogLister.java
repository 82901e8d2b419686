package dev.floe.server.discovery;

import static java.util.Objects.requireNonNull;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

/**
 * Lists an Iceberg {@code JdbcCatalog} (the embedded one included) with one query on the catalog's
 * own {@code iceberg_tables} table, which holds every table's current metadata location: a refresh
 * that finds nothing changed reads no table metadata at all. Keeps one connection open; a broken
 * one is opened again on the next listing.
 */
public final class JdbcCatalogLister implements TableLister, AutoCloseable {

  private final String catalogName;
  private final String url;
  private final Properties properties = new Properties();
  private Connection connection;

  /**
   * @param catalogProperties the catalog's Iceberg properties ({@code uri}, {@code jdbc.*})
   */
  public JdbcCatalogLister(String catalogName, Map<String, String> catalogProperties) {
    this.catalogName = requireNonNull(catalogName, "catalogName is null");
    this.url = requireNonNull(catalogProperties.get("uri"), "the catalog has no uri");
    catalogProperties.forEach(
        (key, value) -> {
          if (key.startsWith("jdbc.")) {
            properties.setProperty(key.substring("jdbc.".length()), value);
          }
        });
  }

  /** Whether the catalog properties describe an Iceberg JdbcCatalog this lister can query. */
  public static boolean handles(Map<String, String> catalogProperties) {
    String type = catalogProperties.getOrDefault("type", "");
    String implementation = catalogProperties.getOrDefault("catalog-impl", "");
    return catalogProperties.containsKey("uri")
        && (type.equals("jdbc") || implementation.endsWith(".JdbcCatalog"));
  }

  @Override
  public synchronized List<ListedTable> list() {
    String sql =
        "SELECT table_namespace, table_name, metadata_location FROM iceberg_tables"
            + " WHERE catalog_name = ? AND (iceberg_type IS NULL OR iceberg_type = 'TABLE')";
    try {
      return query(sql);
    } catch (SQLException e) {
      if (String.valueOf(e.getMessage()).contains("iceberg_type")) {
        try {
          // a catalog created with jdbc.schema-version V0 has no iceberg_type column
          return query(
              "SELECT table_namespace, table_name, metadata_location FROM iceberg_tables"
                  + " WHERE catalog_name = ?");
        } catch (SQLException again) {
          e = again;
        }
      }
      close();
      if (String.valueOf(e.getMessage()).contains("no such table")) {
        return List.of(); // no table was ever created in this catalog
      }
      throw new IllegalStateException(
          "cannot list the tables of catalog '" + catalogName + "': " + e.getMessage(), e);
    }
  }

  /** One primary-key lookup per table on {@code iceberg_tables}; no metadata read. */
  @Override
  public synchronized Optional<List<ListedTable>> locations(Collection<String> tables) {
    String sql =
        "SELECT metadata_location FROM iceberg_tables"
            + " WHERE catalog_name = ? AND table_namespace = ? AND table_name = ?";
    try {
      if (connection == null) {
        connection = DriverManager.getConnection(url, properties);
      }
      List<ListedTable> found = new ArrayList<>();
      try (PreparedStatement statement = connection.prepareStatement(sql)) {
        for (String table : tables) {
          int dot = table.lastIndexOf('.');
          statement.setString(1, catalogName);
          statement.setString(2, table.substring(0, Math.max(0, dot)));
          statement.setString(3, table.substring(dot + 1));
          try (ResultSet rows = statement.executeQuery()) {
            if (rows.next()) {
              found.add(new ListedTable(table, Optional.ofNullable(rows.getString(1))));
            }
          }
        }
      }
      return Optional.of(found);
    } catch (SQLException e) {
      close();
      throw new IllegalStateException(
          "cannot read table locations of catalog '" + catalogName + "': " + e.getMessage(), e);
    }
  }

  private List<ListedTable> query(String sql) throws SQLException {
    if (connection == null) {
      connection = DriverManager.getConnection(url, properties);
    }
    List<ListedTable> tables = new ArrayList<>();
    try (PreparedStatement statement = connection.prepareStatement(sql)) {
      statement.setString(1, catalogName);
      try (ResultSet rows = statement.executeQuery()) {
        while (rows.next()) {
          tables.add(
              new ListedTable(
                  rows.getString(1) + "." + rows.getString(2),
                  Optional.ofNullable(rows.getString(3))));
        }
      }
    }
    return tables;
  }

  @Override
  public synchronized void close() {
    if (connection != null) {
      try {
        connection.close();
      } catch (SQLException e) {
        // a broken connection has nothing left to release
      }
      connection = null;
    }
  }
}

package dev.floe.server.store;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * The store's schema, as numbered migrations applied in order. The version reached is kept in
 * {@code keeper_schema}; a store written by a newer Floe (a version above {@link #LATEST}) is
 * refused rather than misread. A migration is never edited once released: changes are new
 * migrations.
 */
final class StoreMigrations {

  /** The SQL differences between the supported databases. */
  enum Dialect {
    SQLITE("INTEGER PRIMARY KEY AUTOINCREMENT"),
    POSTGRESQL("BIGSERIAL PRIMARY KEY");

    final String identity;

    Dialect(String identity) {
      this.identity = identity;
    }
  }

  /** Version 1: tables, runs, events, partition failures, history observations. */
  private static final List<String> V1 =
      List.of(
          "CREATE TABLE keeper_tables ("
              + " catalog_name VARCHAR(255) NOT NULL,"
              + " table_name VARCHAR(1024) NOT NULL,"
              + " status VARCHAR(32) NOT NULL,"
              + " metadata_location TEXT,"
              + " health INTEGER NOT NULL,"
              + " data_files BIGINT NOT NULL,"
              + " small_files BIGINT NOT NULL,"
              + " delete_files BIGINT NOT NULL,"
              + " backlog_bytes BIGINT NOT NULL,"
              + " last_optimized_at BIGINT,"
              + " consecutive_failures INTEGER NOT NULL,"
              + " last_error TEXT,"
              + " retry_at BIGINT,"
              + " last_expire_at BIGINT,"
              + " last_metadata_clean_at BIGINT,"
              + " last_orphan_clean_at BIGINT,"
              + " PRIMARY KEY (catalog_name, table_name))",
          "CREATE TABLE keeper_runs ("
              + " id {identity},"
              + " catalog_name VARCHAR(255) NOT NULL,"
              + " table_name VARCHAR(1024) NOT NULL,"
              + " kind VARCHAR(64) NOT NULL,"
              + " started_at BIGINT NOT NULL,"
              + " finished_at BIGINT NOT NULL,"
              + " result VARCHAR(32) NOT NULL,"
              + " bytes_in BIGINT NOT NULL,"
              + " bytes_out BIGINT NOT NULL,"
              + " files_in BIGINT NOT NULL,"
              + " files_out BIGINT NOT NULL,"
              + " detail TEXT NOT NULL)",
          "CREATE INDEX keeper_runs_table ON keeper_runs (catalog_name, table_name, id)",
          "CREATE TABLE keeper_events ("
              + " id {identity},"
              + " at BIGINT NOT NULL,"
              + " kind VARCHAR(64) NOT NULL,"
              + " catalog_name VARCHAR(255) NOT NULL,"
              + " table_name VARCHAR(1024),"
              + " message TEXT NOT NULL)",
          "CREATE INDEX keeper_events_table ON keeper_events (catalog_name, table_name, id)",
          "CREATE TABLE keeper_optimize_failures ("
              + " catalog_name VARCHAR(255) NOT NULL,"
              + " table_name VARCHAR(1024) NOT NULL,"
              + " spec_id INTEGER NOT NULL,"
              + " partition_path TEXT NOT NULL,"
              + " failures INTEGER NOT NULL,"
              + " last_failure_at BIGINT NOT NULL)",
          "CREATE INDEX keeper_optimize_failures_table"
              + " ON keeper_optimize_failures (catalog_name, table_name)",
          "CREATE TABLE keeper_history ("
              + " catalog_name VARCHAR(255) NOT NULL,"
              + " table_name VARCHAR(1024) NOT NULL,"
              + " observation TEXT NOT NULL,"
              + " PRIMARY KEY (catalog_name, table_name))");

  /**
   * Version 2: health samples, one per table per {@code bucket} (a span of time the keeper chooses;
   * the latest evaluation in a bucket replaces the bucket's sample).
   */
  private static final List<String> V2 =
      List.of(
          "CREATE TABLE keeper_health_samples ("
              + " catalog_name VARCHAR(255) NOT NULL,"
              + " table_name VARCHAR(1024) NOT NULL,"
              + " bucket BIGINT NOT NULL,"
              + " at BIGINT NOT NULL,"
              + " health INTEGER NOT NULL,"
              + " data_files BIGINT NOT NULL,"
              + " small_files BIGINT NOT NULL,"
              + " delete_files BIGINT NOT NULL,"
              + " backlog_bytes BIGINT NOT NULL,"
              + " source_watermark_at BIGINT,"
              + " PRIMARY KEY (catalog_name, table_name, bucket))",
          "CREATE INDEX keeper_health_samples_at ON keeper_health_samples (at)");

  /**
   * Version 3: alerts (one row per firing of a rule and subject), every delivery attempt, and
   * silences.
   */
  private static final List<String> V3 =
      List.of(
          "CREATE TABLE keeper_alerts ("
              + " id {identity},"
              + " rule VARCHAR(64) NOT NULL,"
              + " subject VARCHAR(1024) NOT NULL,"
              + " state VARCHAR(16) NOT NULL,"
              + " message TEXT NOT NULL,"
              + " link TEXT NOT NULL,"
              + " fired_at BIGINT NOT NULL,"
              + " resolved_at BIGINT,"
              + " last_notified_at BIGINT,"
              + " acknowledged_at BIGINT)",
          "CREATE INDEX keeper_alerts_state ON keeper_alerts (state, id)",
          "CREATE TABLE keeper_alert_deliveries ("
              + " id {identity},"
              + " alert_id BIGINT,"
              + " channel VARCHAR(64) NOT NULL,"
              + " attempt INTEGER NOT NULL,"
              + " at BIGINT NOT NULL,"
              + " status VARCHAR(16) NOT NULL,"
              + " http_status INTEGER,"
              + " error TEXT)",
          "CREATE INDEX keeper_alert_deliveries_alert ON keeper_alert_deliveries (alert_id, id)",
          "CREATE INDEX keeper_alert_deliveries_channel ON keeper_alert_deliveries (channel, id)",
          "CREATE TABLE keeper_silences ("
              + " id {identity},"
              + " rule VARCHAR(64) NOT NULL,"
              + " subject VARCHAR(1024) NOT NULL,"
              + " created_at BIGINT NOT NULL,"
              + " until_at BIGINT NOT NULL,"
              + " reason TEXT NOT NULL)");

  /** Version 4: the latest report of each sync job ({@code PUT /api/v1/syncs/{name}}). */
  private static final List<String> V4 =
      List.of(
          "CREATE TABLE keeper_syncs ("
              + " name VARCHAR(255) NOT NULL PRIMARY KEY,"
              + " reported_at BIGINT NOT NULL,"
              + " report TEXT NOT NULL)");

  /**
   * Version 5: the scheduled verifications: when the keeper first saw each ({@code known_at}, so a
   * run missed while it was down is caught up) and every run with its counts and JSON report.
   */
  private static final List<String> V5 =
      List.of(
          "CREATE TABLE keeper_verifications ("
              + " name VARCHAR(255) NOT NULL PRIMARY KEY,"
              + " known_at BIGINT NOT NULL)",
          "CREATE TABLE keeper_verification_runs ("
              + " id {identity},"
              + " name VARCHAR(255) NOT NULL,"
              + " started_at BIGINT NOT NULL,"
              + " finished_at BIGINT NOT NULL,"
              + " result VARCHAR(16) NOT NULL,"
              + " missing BIGINT NOT NULL,"
              + " extra BIGINT NOT NULL,"
              + " different BIGINT NOT NULL,"
              + " error TEXT,"
              + " report TEXT)",
          "CREATE INDEX keeper_verification_runs_name ON keeper_verification_runs (name, id)");

  private static final List<List<String>> MIGRATIONS = List.of(V1, V2, V3, V4, V5);

  static final int LATEST = MIGRATIONS.size();

  private StoreMigrations() {}

  /**
   * Brings the schema to {@link #LATEST}, each migration in its own transaction.
   *
   * @return the version found before migrating (0 for an empty database)
   * @throws IllegalStateException when the store was written by a newer version
   */
  static int migrate(Connection connection, Dialect dialect, String description)
      throws SQLException {
    return migrate(connection, dialect, description, LATEST);
  }

  /** Brings the schema to {@code target} (tests write stores of earlier versions with it). */
  static int migrate(Connection connection, Dialect dialect, String description, int target)
      throws SQLException {
    try (Statement statement = connection.createStatement()) {
      statement.execute("CREATE TABLE IF NOT EXISTS keeper_schema (version INTEGER NOT NULL)");
    }
    int found = version(connection);
    if (found > LATEST) {
      throw new IllegalStateException(
          "The keeper store "
              + description
              + " has schema version "
              + found
              + ", written by a newer Floe; this one knows versions up to "
              + LATEST
              + ". Run the newer Floe, or point keeper.store.url at another database.");
    }
    boolean autoCommit = connection.getAutoCommit();
    connection.setAutoCommit(false);
    try {
      for (int version = found + 1; version <= target; version++) {
        try (Statement statement = connection.createStatement()) {
          for (String sql : MIGRATIONS.get(version - 1)) {
            statement.execute(sql.replace("{identity}", dialect.identity));
          }
          statement.executeUpdate("DELETE FROM keeper_schema");
          statement.executeUpdate("INSERT INTO keeper_schema (version) VALUES (" + version + ")");
        }
        connection.commit();
      }
    } catch (SQLException | RuntimeException e) {
      connection.rollback();
      throw e;
    } finally {
      connection.setAutoCommit(autoCommit);
    }
    return found;
  }

  static int version(Connection connection) throws SQLException {
    try (Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("SELECT MAX(version) FROM keeper_schema")) {
      return rows.next() ? rows.getInt(1) : 0;
    }
  }
}

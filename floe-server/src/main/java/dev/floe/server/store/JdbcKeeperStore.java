package dev.floe.server.store;

import static java.util.Objects.requireNonNull;

import dev.floe.core.Secret;
import dev.floe.core.error.FloeException;
import dev.floe.core.maintenance.HistoryObservation;
import dev.floe.core.maintenance.HistoryObservationFormat;
import dev.floe.core.optimize.OptimizeFailures;
import dev.floe.core.optimize.PartitionKey;
import dev.floe.core.state.TableKey;
import dev.floe.server.store.StoreMigrations.Dialect;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

/**
 * The keeper store on SQL: SQLite ({@code <data-dir>/keeper.db} by default, WAL mode) or
 * PostgreSQL. One connection, used by one thread at a time (the store's methods are synchronized);
 * a connection that broke is opened again on the next call. Schema: {@link StoreMigrations}.
 */
public final class JdbcKeeperStore implements KeeperStore {

  /** The default store file under the data directory. */
  public static final String DEFAULT_FILE = "keeper.db";

  private final String url;
  private final Properties connectionProperties;
  private final Dialect dialect;
  private final String description;
  private final JdbcAlertStore alerts = new JdbcAlertStore(this);
  private Connection connection;

  private JdbcKeeperStore(String url, Properties properties, Dialect dialect, String description) {
    this.url = url;
    this.connectionProperties = properties;
    this.dialect = dialect;
    this.description = description;
  }

  /**
   * Opens the store and migrates its schema.
   *
   * @param url empty for SQLite in the data directory, else a jdbc:sqlite: or jdbc:postgresql: URL
   * @throws FloeException BAD_INPUT for an unusable URL, SOURCE_UNAVAILABLE when the database
   *     cannot be reached or refuses the credentials
   */
  public static JdbcKeeperStore open(
      Optional<String> url, Optional<String> user, Optional<Secret> password, Path dataDirectory) {
    requireNonNull(dataDirectory, "dataDirectory is null");
    String jdbcUrl;
    Dialect dialect;
    Properties properties = new Properties();
    if (url.isEmpty()) {
      try {
        Files.createDirectories(dataDirectory);
      } catch (java.io.IOException e) {
        throw FloeException.badInput(
            "Cannot create the data directory "
                + dataDirectory
                + " for the keeper store: "
                + e.getMessage()
                + ". Choose a writable --data-dir.");
      }
      jdbcUrl = "jdbc:sqlite:" + dataDirectory.resolve(DEFAULT_FILE).toAbsolutePath();
      dialect = Dialect.SQLITE;
    } else {
      jdbcUrl = url.get();
      if (jdbcUrl.startsWith("jdbc:sqlite:")) {
        dialect = Dialect.SQLITE;
      } else if (jdbcUrl.startsWith("jdbc:postgresql:")) {
        dialect = Dialect.POSTGRESQL;
      } else {
        throw FloeException.badInput(
            "keeper.store.url must be a jdbc:sqlite:FILE or jdbc:postgresql://HOST:PORT/DB URL,"
                + " got '"
                + withoutQuery(jdbcUrl)
                + "'. Leave it out to keep the store in <data-dir>/keeper.db.");
      }
    }
    user.ifPresent(name -> properties.setProperty("user", name));
    password.ifPresent(secret -> properties.setProperty("password", secret.reveal()));
    if (dialect == Dialect.SQLITE) {
      properties.setProperty("journal_mode", "WAL");
      properties.setProperty("busy_timeout", "60000");
    } else {
      properties.setProperty("connectTimeout", "10");
    }
    JdbcKeeperStore store =
        new JdbcKeeperStore(jdbcUrl, properties, dialect, "at " + withoutQuery(jdbcUrl));
    try {
      store.migrate();
    } catch (RuntimeException e) {
      // a refused store (newer schema, failed migration) must not keep its connection open
      store.close();
      throw e;
    }
    return store;
  }

  private void migrate() {
    try {
      StoreMigrations.migrate(connection(), dialect, description);
    } catch (SQLException e) {
      throw unavailable("cannot prepare its schema", e);
    } catch (IllegalStateException e) {
      throw FloeException.badInput(e.getMessage());
    }
  }

  @Override
  public String description() {
    return description;
  }

  /** The schema version in the database. */
  public synchronized int schemaVersion() {
    try {
      return StoreMigrations.version(connection());
    } catch (SQLException e) {
      throw unavailable("cannot read its schema version", e);
    }
  }

  @Override
  public synchronized List<TableRecord> tables() {
    String sql =
        "SELECT catalog_name, table_name, status, metadata_location, health, data_files,"
            + " small_files, delete_files, backlog_bytes, last_optimized_at, consecutive_failures,"
            + " last_error, retry_at, last_expire_at, last_metadata_clean_at, last_orphan_clean_at"
            + " FROM keeper_tables";
    return query(
        "read the tables",
        sql,
        statement -> {},
        rows ->
            new TableRecord(
                new TableKey(rows.getString(1), rows.getString(2)),
                TableStatus.fromApiName(rows.getString(3)),
                Optional.ofNullable(rows.getString(4)),
                rows.getInt(5),
                rows.getLong(6),
                rows.getLong(7),
                rows.getLong(8),
                rows.getLong(9),
                JdbcColumns.instant(rows, 10),
                rows.getInt(11),
                Optional.ofNullable(rows.getString(12)),
                JdbcColumns.instant(rows, 13),
                JdbcColumns.instant(rows, 14),
                JdbcColumns.instant(rows, 15),
                JdbcColumns.instant(rows, 16)));
  }

  @Override
  public synchronized void saveTable(TableRecord table) {
    saveTables(List.of(table));
  }

  @Override
  public synchronized void saveTables(List<TableRecord> tables) {
    if (tables.isEmpty()) {
      return;
    }
    String sql =
        "INSERT INTO keeper_tables (catalog_name, table_name, status, metadata_location, health,"
            + " data_files, small_files, delete_files, backlog_bytes, last_optimized_at,"
            + " consecutive_failures, last_error, retry_at, last_expire_at,"
            + " last_metadata_clean_at, last_orphan_clean_at)"
            + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
            + " ON CONFLICT (catalog_name, table_name) DO UPDATE SET status = excluded.status,"
            + " metadata_location = excluded.metadata_location, health = excluded.health,"
            + " data_files = excluded.data_files, small_files = excluded.small_files,"
            + " delete_files = excluded.delete_files, backlog_bytes = excluded.backlog_bytes,"
            + " last_optimized_at = excluded.last_optimized_at,"
            + " consecutive_failures = excluded.consecutive_failures,"
            + " last_error = excluded.last_error, retry_at = excluded.retry_at,"
            + " last_expire_at = excluded.last_expire_at,"
            + " last_metadata_clean_at = excluded.last_metadata_clean_at,"
            + " last_orphan_clean_at = excluded.last_orphan_clean_at";
    transaction(
        "save " + tables.size() + " table(s)",
        connection -> {
          try (PreparedStatement insert = connection.prepareStatement(sql)) {
            for (TableRecord table : tables) {
              insert.setString(1, table.key().catalog());
              insert.setString(2, table.key().table());
              insert.setString(3, table.status().apiName());
              insert.setString(4, table.metadataLocation().orElse(null));
              insert.setInt(5, table.health());
              insert.setLong(6, table.dataFiles());
              insert.setLong(7, table.smallFiles());
              insert.setLong(8, table.deleteFiles());
              insert.setLong(9, table.backlogBytes());
              JdbcColumns.setInstant(insert, 10, table.lastOptimizedAt());
              insert.setInt(11, table.consecutiveFailures());
              insert.setString(12, table.lastError().orElse(null));
              JdbcColumns.setInstant(insert, 13, table.retryAt());
              JdbcColumns.setInstant(insert, 14, table.lastExpireAt());
              JdbcColumns.setInstant(insert, 15, table.lastMetadataCleanAt());
              JdbcColumns.setInstant(insert, 16, table.lastOrphanCleanAt());
              insert.addBatch();
            }
            insert.executeBatch();
          }
        });
  }

  @Override
  public synchronized void forgetTable(TableKey key) {
    for (String table :
        List.of(
            "keeper_tables",
            "keeper_optimize_failures",
            "keeper_history",
            "keeper_health_samples")) {
      update(
          "forget table " + key.table(),
          "DELETE FROM " + table + " WHERE catalog_name = ? AND table_name = ?",
          statement -> {
            statement.setString(1, key.catalog());
            statement.setString(2, key.table());
          });
    }
  }

  @Override
  public synchronized void recordRun(RunRecord run) {
    update(
        "record a run of " + run.table().table(),
        "INSERT INTO keeper_runs (catalog_name, table_name, kind, started_at, finished_at, result,"
            + " bytes_in, bytes_out, files_in, files_out, detail)"
            + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        statement -> {
          statement.setString(1, run.table().catalog());
          statement.setString(2, run.table().table());
          statement.setString(3, run.kind());
          statement.setLong(4, run.startedAt().toEpochMilli());
          statement.setLong(5, run.finishedAt().toEpochMilli());
          statement.setString(6, run.result());
          statement.setLong(7, run.bytesIn());
          statement.setLong(8, run.bytesOut());
          statement.setLong(9, run.filesIn());
          statement.setLong(10, run.filesOut());
          statement.setString(11, run.detail());
        });
  }

  @Override
  public synchronized List<RunRecord> runs(TableKey key, int limit) {
    return query(
        "read the runs of " + key.table(),
        "SELECT kind, started_at, finished_at, result, bytes_in, bytes_out, files_in, files_out,"
            + " detail FROM keeper_runs WHERE catalog_name = ? AND table_name = ?"
            + " ORDER BY id DESC LIMIT ?",
        statement -> {
          statement.setString(1, key.catalog());
          statement.setString(2, key.table());
          statement.setInt(3, limit);
        },
        rows ->
            new RunRecord(
                key,
                rows.getString(1),
                Instant.ofEpochMilli(rows.getLong(2)),
                Instant.ofEpochMilli(rows.getLong(3)),
                rows.getString(4),
                rows.getLong(5),
                rows.getLong(6),
                rows.getLong(7),
                rows.getLong(8),
                rows.getString(9)));
  }

  @Override
  public synchronized void recordEvent(KeeperEvent event) {
    update(
        "record an event",
        "INSERT INTO keeper_events (at, kind, catalog_name, table_name, message)"
            + " VALUES (?, ?, ?, ?, ?)",
        statement -> {
          statement.setLong(1, event.at().toEpochMilli());
          statement.setString(2, event.kind());
          statement.setString(3, event.catalog());
          statement.setString(4, event.table().orElse(null));
          statement.setString(5, event.message());
        });
  }

  @Override
  public synchronized List<KeeperEvent> events(Optional<TableKey> table, int limit) {
    String where = table.isPresent() ? " WHERE catalog_name = ? AND table_name = ?" : "";
    return query(
        "read the events",
        "SELECT at, kind, catalog_name, table_name, message FROM keeper_events"
            + where
            + " ORDER BY id DESC LIMIT ?",
        statement -> {
          int index = 1;
          if (table.isPresent()) {
            statement.setString(index++, table.get().catalog());
            statement.setString(index++, table.get().table());
          }
          statement.setInt(index, limit);
        },
        rows ->
            new KeeperEvent(
                Instant.ofEpochMilli(rows.getLong(1)),
                rows.getString(2),
                rows.getString(3),
                Optional.ofNullable(rows.getString(4)),
                rows.getString(5)));
  }

  @Override
  public synchronized OptimizeFailures optimizeFailures(TableKey key) {
    Map<PartitionKey, OptimizeFailures.Failure> failures = new HashMap<>();
    query(
            "read the optimize failures of " + key.table(),
            "SELECT spec_id, partition_path, failures, last_failure_at"
                + " FROM keeper_optimize_failures WHERE catalog_name = ? AND table_name = ?",
            statement -> {
              statement.setString(1, key.catalog());
              statement.setString(2, key.table());
            },
            rows ->
                Map.entry(
                    new PartitionKey(rows.getInt(1), rows.getString(2)),
                    new OptimizeFailures.Failure(
                        rows.getInt(3), Instant.ofEpochMilli(rows.getLong(4)))))
        .forEach(entry -> failures.put(entry.getKey(), entry.getValue()));
    return new OptimizeFailures(failures);
  }

  @Override
  public synchronized void saveOptimizeFailures(TableKey key, OptimizeFailures failures) {
    transaction(
        "save the optimize failures of " + key.table(),
        connection -> {
          try (PreparedStatement delete =
              connection.prepareStatement(
                  "DELETE FROM keeper_optimize_failures"
                      + " WHERE catalog_name = ? AND table_name = ?")) {
            delete.setString(1, key.catalog());
            delete.setString(2, key.table());
            delete.executeUpdate();
          }
          try (PreparedStatement insert =
              connection.prepareStatement(
                  "INSERT INTO keeper_optimize_failures (catalog_name, table_name, spec_id,"
                      + " partition_path, failures, last_failure_at) VALUES (?, ?, ?, ?, ?, ?)")) {
            for (Map.Entry<PartitionKey, OptimizeFailures.Failure> entry :
                failures.failures().entrySet()) {
              insert.setString(1, key.catalog());
              insert.setString(2, key.table());
              insert.setInt(3, entry.getKey().specId());
              insert.setString(4, entry.getKey().path());
              insert.setInt(5, entry.getValue().count());
              insert.setLong(6, entry.getValue().last().toEpochMilli());
              insert.addBatch();
            }
            insert.executeBatch();
          }
        });
  }

  @Override
  public synchronized Optional<HistoryObservation> history(TableKey key) {
    List<String> texts =
        query(
            "read the history observation of " + key.table(),
            "SELECT observation FROM keeper_history WHERE catalog_name = ? AND table_name = ?",
            statement -> {
              statement.setString(1, key.catalog());
              statement.setString(2, key.table());
            },
            rows -> rows.getString(1));
    return texts.stream()
        .findFirst()
        .map(text -> HistoryObservationFormat.parse(text, "the keeper store " + description));
  }

  @Override
  public synchronized void saveHistory(TableKey key, HistoryObservation observation) {
    update(
        "save the history observation of " + key.table(),
        "INSERT INTO keeper_history (catalog_name, table_name, observation) VALUES (?, ?, ?)"
            + " ON CONFLICT (catalog_name, table_name) DO UPDATE SET"
            + " observation = excluded.observation",
        statement -> {
          statement.setString(1, key.catalog());
          statement.setString(2, key.table());
          statement.setString(3, HistoryObservationFormat.write(observation));
        });
  }

  @Override
  public String historyLocation(TableKey key) {
    return "the keeper store " + description + " (keeper_history)";
  }

  @Override
  public synchronized void saveHealthSample(HealthSample sample, long bucket) {
    update(
        "save a health sample of " + sample.key().table(),
        "INSERT INTO keeper_health_samples (catalog_name, table_name, bucket, at, health,"
            + " data_files, small_files, delete_files, backlog_bytes, source_watermark_at)"
            + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
            + " ON CONFLICT (catalog_name, table_name, bucket) DO UPDATE SET at = excluded.at,"
            + " health = excluded.health, data_files = excluded.data_files,"
            + " small_files = excluded.small_files, delete_files = excluded.delete_files,"
            + " backlog_bytes = excluded.backlog_bytes,"
            + " source_watermark_at = excluded.source_watermark_at",
        statement -> {
          statement.setString(1, sample.key().catalog());
          statement.setString(2, sample.key().table());
          statement.setLong(3, bucket);
          statement.setLong(4, sample.at().toEpochMilli());
          statement.setInt(5, sample.health());
          statement.setLong(6, sample.dataFiles());
          statement.setLong(7, sample.smallFiles());
          statement.setLong(8, sample.deleteFiles());
          statement.setLong(9, sample.backlogBytes());
          JdbcColumns.setInstant(statement, 10, sample.sourceWatermark());
        });
  }

  @Override
  public synchronized List<HealthSample> healthSamples(TableKey key, Instant since) {
    return query(
        "read the health samples of " + key.table(),
        "SELECT catalog_name, table_name, at, health, data_files, small_files, delete_files,"
            + " backlog_bytes, source_watermark_at FROM keeper_health_samples"
            + " WHERE catalog_name = ? AND table_name = ? AND at >= ? ORDER BY at",
        statement -> {
          statement.setString(1, key.catalog());
          statement.setString(2, key.table());
          statement.setLong(3, since.toEpochMilli());
        },
        JdbcKeeperStore::healthSample);
  }

  @Override
  public synchronized List<HealthSample> latestHealthSamples() {
    return query(
        "read the latest health samples",
        "SELECT s.catalog_name, s.table_name, s.at, s.health, s.data_files, s.small_files,"
            + " s.delete_files, s.backlog_bytes, s.source_watermark_at"
            + " FROM keeper_health_samples s JOIN (SELECT catalog_name, table_name,"
            + " MAX(bucket) AS bucket FROM keeper_health_samples"
            + " GROUP BY catalog_name, table_name) latest"
            + " ON s.catalog_name = latest.catalog_name AND s.table_name = latest.table_name"
            + " AND s.bucket = latest.bucket",
        statement -> {},
        JdbcKeeperStore::healthSample);
  }

  private static HealthSample healthSample(ResultSet rows) throws SQLException {
    return new HealthSample(
        new TableKey(rows.getString(1), rows.getString(2)),
        Instant.ofEpochMilli(rows.getLong(3)),
        rows.getInt(4),
        rows.getLong(5),
        rows.getLong(6),
        rows.getLong(7),
        rows.getLong(8),
        JdbcColumns.instant(rows, 9));
  }

  @Override
  public synchronized void saveSyncReport(SyncReportRow report) {
    update(
        "save the report of sync " + report.name(),
        "INSERT INTO keeper_syncs (name, reported_at, report) VALUES (?, ?, ?)"
            + " ON CONFLICT (name) DO UPDATE SET reported_at = excluded.reported_at,"
            + " report = excluded.report",
        statement -> {
          statement.setString(1, report.name());
          statement.setLong(2, report.reportedAt().toEpochMilli());
          statement.setString(3, report.report());
        });
  }

  @Override
  public synchronized List<SyncReportRow> syncReports() {
    return query(
        "read the sync reports",
        "SELECT name, reported_at, report FROM keeper_syncs ORDER BY name",
        statement -> {},
        rows ->
            new SyncReportRow(
                rows.getString(1), Instant.ofEpochMilli(rows.getLong(2)), rows.getString(3)));
  }

  @Override
  public synchronized Instant verificationKnownSince(String name, Instant now) {
    update(
        "remember verification " + name,
        "INSERT INTO keeper_verifications (name, known_at) VALUES (?, ?)"
            + " ON CONFLICT (name) DO NOTHING",
        statement -> {
          statement.setString(1, name);
          statement.setLong(2, now.toEpochMilli());
        });
    return query(
            "read verification " + name,
            "SELECT known_at FROM keeper_verifications WHERE name = ?",
            statement -> statement.setString(1, name),
            rows -> Instant.ofEpochMilli(rows.getLong(1)))
        .get(0);
  }

  @Override
  public synchronized VerificationRun recordVerificationRun(VerificationRun run) {
    long[] id = new long[1];
    transaction(
        "record a run of verification " + run.name(),
        connection -> {
          try (PreparedStatement statement =
              connection.prepareStatement(
                  "INSERT INTO keeper_verification_runs (name, started_at, finished_at, result,"
                      + " missing, extra, different, error, report)"
                      + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
            statement.setString(1, run.name());
            statement.setLong(2, run.startedAt().toEpochMilli());
            statement.setLong(3, run.finishedAt().toEpochMilli());
            statement.setString(4, run.result());
            statement.setLong(5, run.missing());
            statement.setLong(6, run.extra());
            statement.setLong(7, run.different());
            statement.setString(8, run.error().orElse(null));
            statement.setString(9, run.report().orElse(null));
            statement.executeUpdate();
          }
          try (PreparedStatement statement =
              connection.prepareStatement(
                  "SELECT MAX(id) FROM keeper_verification_runs WHERE name = ?")) {
            statement.setString(1, run.name());
            try (ResultSet rows = statement.executeQuery()) {
              rows.next();
              id[0] = rows.getLong(1);
            }
          }
        });
    return new VerificationRun(
        id[0],
        run.name(),
        run.startedAt(),
        run.finishedAt(),
        run.result(),
        run.missing(),
        run.extra(),
        run.different(),
        run.error(),
        run.report());
  }

  @Override
  public synchronized List<VerificationRun> verificationRuns(String name, int limit) {
    return query(
        "read the runs of verification " + name,
        "SELECT id, started_at, finished_at, result, missing, extra, different, error, report"
            + " FROM keeper_verification_runs WHERE name = ? ORDER BY id DESC LIMIT ?",
        statement -> {
          statement.setString(1, name);
          statement.setInt(2, limit);
        },
        rows ->
            new VerificationRun(
                rows.getLong(1),
                name,
                Instant.ofEpochMilli(rows.getLong(2)),
                Instant.ofEpochMilli(rows.getLong(3)),
                rows.getString(4),
                rows.getLong(5),
                rows.getLong(6),
                rows.getLong(7),
                Optional.ofNullable(rows.getString(8)),
                Optional.ofNullable(rows.getString(9))));
  }

  @Override
  public synchronized void prune(Instant before) {
    for (String sql :
        List.of(
            "DELETE FROM keeper_runs WHERE finished_at < ?",
            "DELETE FROM keeper_verification_runs WHERE finished_at < ?",
            "DELETE FROM keeper_events WHERE at < ?",
            "DELETE FROM keeper_health_samples WHERE at < ?")) {
      update(
          "prune old runs, events and health samples",
          sql,
          statement -> statement.setLong(1, before.toEpochMilli()));
    }
  }

  @Override
  public synchronized void close() {
    if (connection != null) {
      try {
        connection.close();
      } catch (SQLException e) {
        // closing a connection that failed: nothing is left to release
      }
      connection = null;
    }
  }

  @Override
  public AlertStore alerts() {
    return alerts;
  }

  // ---- JDBC plumbing (JdbcAlertStore uses it too, holding this store's lock) ----

  @FunctionalInterface
  interface Binder {
    void bind(PreparedStatement statement) throws SQLException;
  }

  @FunctionalInterface
  interface RowReader<T> {
    T read(ResultSet rows) throws SQLException;
  }

  @FunctionalInterface
  interface Work {
    void run(Connection connection) throws SQLException;
  }

  <T> List<T> query(String what, String sql, Binder binder, RowReader<T> reader) {
    try (PreparedStatement statement = connection().prepareStatement(sql)) {
      binder.bind(statement);
      try (ResultSet rows = statement.executeQuery()) {
        List<T> result = new ArrayList<>();
        while (rows.next()) {
          result.add(reader.read(rows));
        }
        return result;
      }
    } catch (SQLException e) {
      dropBrokenConnection();
      throw unavailable("cannot " + what, e);
    }
  }

  void update(String what, String sql, Binder binder) {
    try (PreparedStatement statement = connection().prepareStatement(sql)) {
      binder.bind(statement);
      statement.executeUpdate();
    } catch (SQLException e) {
      dropBrokenConnection();
      throw unavailable("cannot " + what, e);
    }
  }

  void transaction(String what, Work work) {
    try {
      Connection open = connection();
      open.setAutoCommit(false);
      try {
        work.run(open);
        open.commit();
      } catch (SQLException | RuntimeException e) {
        open.rollback();
        throw e;
      } finally {
        open.setAutoCommit(true);
      }
    } catch (SQLException e) {
      dropBrokenConnection();
      throw unavailable("cannot " + what, e);
    }
  }

  private Connection connection() throws SQLException {
    if (connection == null) {
      connection = DriverManager.getConnection(url, connectionProperties);
      if (dialect == Dialect.SQLITE) {
        try (Statement statement = connection.createStatement()) {
          statement.execute("PRAGMA journal_mode=WAL");
          statement.execute("PRAGMA busy_timeout=60000");
        }
      }
    }
    return connection;
  }

  private void dropBrokenConnection() {
    try {
      if (connection != null && !connection.isValid(2)) {
        close();
      }
    } catch (SQLException e) {
      close();
    }
  }

  private FloeException unavailable(String what, SQLException e) {
    String message = String.valueOf(e.getMessage());
    String password = connectionProperties.getProperty("password");
    if (password != null && !password.isEmpty()) {
      message = message.replace(password, Secret.MASK);
    }
    return FloeException.sourceUnavailable(
        "The keeper store "
            + description
            + " "
            + what
            + ": "
            + message
            + ". Check keeper.store.url, keeper.store.user and keeper.store.password, and that"
            + " the database is running.",
        e);
  }

  private static String withoutQuery(String url) {
    int query = url.indexOf('?');
    return query < 0 ? url : url.substring(0, query);
  }
}

package dev.floe.spark;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.floe.spark.SparkSql.SparkSqlException;
import dev.floe.testing.MariaDbExtension;
import dev.floe.testing.MariaDbServer;
import dev.floe.testing.Poll;
import dev.floe.testing.PostgresExtension;
import dev.floe.testing.PostgresServer;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * Apache Spark 3.5 with Iceberg's Spark runtime, in local mode, on Floe's tables, in the embedded
 * catalog and in a JdbcCatalog on PostgreSQL:
 *
 * <ol>
 *   <li>{@code floe sync} copies a MariaDB table and streams its inserts, updates and deletes (so
 *       the table has equality delete files); Spark reads exactly the rows MySQL has, row for row,
 *       with the types of Floe's mapping.
 *   <li>With the sync stopped, {@code floe serve} keeps the catalog while Spark creates a table and
 *       keeps inserting, updating and deleting in it (merge-on-read: position delete files): the
 *       keeper's optimize commits and Spark's land on the same table, interleaved, and once Spark
 *       stops the keeper compacts it to one data file with no delete file; Spark reads exactly the
 *       rows its statements leave, and still MySQL's rows in the synced table.
 * </ol>
 *
 * Every process (sync, keeper, Spark) runs in its own JVM, as in production. Slow: about 3 minutes
 * per catalog on 2 cores.
 */
@Tag("slow")
@ExtendWith({MariaDbExtension.class, PostgresExtension.class})
class SparkInteroperabilityITCase {

  private static final Duration WITHIN = FloeCommands.WITHIN;
  private static final String COLUMNS = "id, name, price, quantity, ratio, born, changed_at, note";

  // kept when a test fails: the logs of sync, keeper and Spark say why
  @TempDir(cleanup = CleanupMode.ON_SUCCESS)
  Path directory;

  @Test
  void sparkReadsAndWritesTheEmbeddedCatalog(MariaDbServer mariadb) throws Exception {
    Path data = directory.resolve("floe-data");
    // The embedded catalog's properties as `floe config` prints them (CatalogFactory):
    Map<String, String> spark = new LinkedHashMap<>();
    spark.put("type", "jdbc");
    spark.put("uri", "jdbc:sqlite:" + data.resolve("catalog.db"));
    spark.put("warehouse", data.resolve("warehouse").toUri().toString());
    spark.put("jdbc.schema-version", "V1");
    // Spark commits while the keeper does: wait for SQLite's lock rather than fail
    spark.put("jdbc.busy_timeout", "60000");
    new Flow(mariadb, "catalog:\n  name: floe\n", "floe", spark, data, data).run();
  }

  @Test
  void sparkReadsAndWritesAJdbcCatalogOnPostgres(MariaDbServer mariadb, PostgresServer postgres)
      throws Exception {
    String database = postgres.createDatabase("iceberg");
    String warehouse = directory.resolve("warehouse").toUri().toString();
    String yaml =
        String.join(
            "\n",
            "catalog:",
            "  type: jdbc",
            "  name: lake",
            "  uri: " + postgres.jdbcUrl(database),
            "  warehouse: " + warehouse,
            "  properties:",
            "    jdbc.user: " + postgres.user(),
            "    jdbc.password: " + postgres.password(),
            "");
    Map<String, String> spark = new LinkedHashMap<>();
    spark.put("type", "jdbc");
    spark.put("uri", postgres.jdbcUrl(database));
    spark.put("warehouse", warehouse);
    spark.put("jdbc.user", postgres.user());
    spark.put("jdbc.password", postgres.password());
    new Flow(
            mariadb,
            yaml,
            "lake",
            spark,
            directory.resolve("sync-data"),
            directory.resolve("keeper-data"))
        .run();
  }

  /** The whole scenario on one catalog. */
  private final class Flow {

    private final MariaDbServer mariadb;
    private final String catalogYaml;
    private final String catalog;
    private final Map<String, String> sparkCatalog;
    private final Path syncData;
    private final Path keeperData;
    private final Path config = directory.resolve("floe.yaml");
    private final long started = System.nanoTime();
    private String database;

    Flow(
        MariaDbServer mariadb,
        String catalogYaml,
        String catalog,
        Map<String, String> sparkCatalog,
        Path syncData,
        Path keeperData) {
      this.mariadb = mariadb;
      this.catalogYaml = catalogYaml;
      this.catalog = catalog;
      this.sparkCatalog = sparkCatalog;
      this.syncData = syncData;
      this.keeperData = keeperData;
    }

    void run() throws Exception {
      database = mariadb.createDatabase("interop");
      createItems();
      Files.writeString(
          config,
          catalogYaml
              + "keeper:\n"
              + "  refresh-interval-seconds: 1\n"
              // Spark's position deletes on files the keeper is rewriting are genuine conflicts:
              // the
              // keeper's group fails and is planned again after its backoff. They must not
              // quarantine the table during the test.
              + "  quarantine-after-failures: 1000\n"
              + "  optimizer:\n"
              + "    threads: 1\n",
          StandardCharsets.UTF_8);
      String items = catalog + "." + database + ".items";
      try (FloeCommands floe = new FloeCommands();
          SparkSql spark = SparkSql.start(directory.resolve("spark"), catalog, sparkCatalog)) {
        phase("Spark is up");
        Path syncLog = directory.resolve("sync.log");
        Process sync =
            floe.start(
                syncLog,
                List.of(
                    "--config",
                    config.toString(),
                    "--data-dir",
                    syncData.toString(),
                    "--verbose",
                    "sync",
                    "--source",
                    mariadb.sourceUrl("root", "", ""),
                    "--tables",
                    database + "\\.items",
                    "--name",
                    "interop",
                    "--checkpoint-interval",
                    "1",
                    "--heartbeat-interval",
                    "1",
                    "--progress",
                    "log"));
        FloeCommands.awaitOutput(sync, syncLog, "Syncing 1 tables from");
        awaitSparkSeesMySql(spark, items, sync, syncLog);
        phase("Spark reads the copied rows");
        for (int round = 1; round <= 3; round++) {
          changeItems(round);
          awaitSparkSeesMySql(spark, items, sync, syncLog);
          phase("Spark reads MySQL's rows after round " + round + " of changes");
        }
        assertThat(spark.sql("DESCRIBE " + items).subList(0, 8))
            .as("the columns Spark sees, with the types of Floe's mapping")
            .extracting(column -> column.get(0) + " " + column.get(1))
            .containsExactly(
                "id bigint",
                "name string",
                "price decimal(12,2)",
                "quantity int",
                "ratio double",
                "born date",
                "changed_at timestamp_ntz",
                "note string");
        assertThat(
                Long.parseLong(
                    spark.value(
                        "SELECT count(*) FROM " + items + ".delete_files WHERE content = 2")))
            .as("equality delete files Spark applied")
            .isPositive();
        sync.destroy(); // SIGTERM: a savepoint, then exit
        assertThat(sync.waitFor(2, TimeUnit.MINUTES)).as(FloeCommands.tail(syncLog)).isTrue();
        phase("floe sync stopped");

        int port = FloeCommands.freePort();
        Path serveLog = directory.resolve("serve.log");
        Process serve =
            floe.start(
                serveLog,
                List.of(
                    "--config",
                    config.toString(),
                    "--data-dir",
                    keeperData.toString(),
                    "--verbose",
                    "serve",
                    "--listen",
                    "127.0.0.1:" + port));
        FloeCommands.awaitOutput(serve, serveLog, "Keeper serving ");
        phase("floe serve is serving");
        new SparkWriter(spark, floe, port, serveLog).run();
        assertThat(spark.sql("SELECT " + COLUMNS + " FROM " + items + " ORDER BY id"))
            .as("Spark still reads MySQL's rows of the synced table, the keeper beside it")
            .isEqualTo(mysqlItems());
        serve.destroy();
        assertThat(serve.waitFor(1, TimeUnit.MINUTES)).isTrue();
        assertThat(serve.exitValue()).as(FloeCommands.tail(serveLog)).isZero();
        phase("floe serve stopped");
      }
    }

    /**
     * Spark keeps writing one table while the keeper optimizes it: batches of inserts, every other
     * batch an update, every third a delete, until the table's history has two optimize commits
     * with a Spark commit after the first; then the keeper compacts it to one file and the rows are
     * exactly what the statements left.
     */
    private final class SparkWriter {
      private final SparkSql spark;
      private final FloeCommands floe;
      private final int port;
      private final Path serveLog;
      private final String events;
      private final String keeperName;
      private final TreeMap<Long, List<String>> expected = new TreeMap<>();
      private int conflicts;
      private Optional<String> firstConflict = Optional.empty();

      SparkWriter(SparkSql spark, FloeCommands floe, int port, Path serveLog) {
        this.spark = spark;
        this.floe = floe;
        this.port = port;
        this.serveLog = serveLog;
        this.keeperName = database + ".events";
        this.events = catalog + "." + keeperName;
      }

      void run() throws Exception {
        spark.sql(
            "CREATE TABLE "
                + events
                + " (id BIGINT NOT NULL, batch INT NOT NULL, payload STRING) USING iceberg"
                + " TBLPROPERTIES ("
                + "'format-version'='2',"
                + "'write.delete.mode'='merge-on-read',"
                + "'write.update.mode'='merge-on-read',"
                + "'write.merge.mode'='merge-on-read',"
                + "'commit.retry.num-retries'='20',"
                + "'commit.retry.min-wait-ms'='100',"
                + "'commit.retry.max-wait-ms'='5000',"
                // compact small tables soon, and plan again soon after a conflict
                + "'floe.optimize.minor.min-small-files'='4',"
                + "'floe.optimize.minor.max-interval-ms'='1000',"
                + "'floe.optimize.deletes.min-delete-files'='2',"
                + "'floe.optimize.retry.backoff-ms'='1000',"
                + "'floe.optimize.retry.max-backoff-ms'='2000')");
        Instant deadline = Instant.now().plus(WITHIN);
        History history = history();
        int batch = 0;
        while (batch < 12 || history.optimizes() < 2 || history.sparkAfterFirstOptimize() < 1) {
          if (Instant.now().isAfter(deadline)) {
            throw new AssertionError(
                "after "
                    + batch
                    + " batches the history of "
                    + events
                    + " is "
                    + history
                    + "; the keeper: "
                    + floe.table(port, keeperName)
                    + "\n"
                    + FloeCommands.tail(keeperData.resolve("logs/floe.log")));
          }
          batch++;
          write(batch);
          history = history();
        }
        phase(
            "Spark wrote "
                + batch
                + " batches beside the keeper: "
                + history
                + ", "
                + conflicts
                + " Spark statements retried after a conflict"
                + firstConflict.map(message -> " (the first: " + message + ")").orElse(""));

        // Spark stops; the keeper finishes: one data file, no delete file, the rows unchanged.
        Poll.untilNothingWrong(
            "the keeper compacted " + events + " to one data file without deletes",
            WITHIN,
            Duration.ofMillis(500),
            () -> {
              JsonNode entry = floe.table(port, keeperName).orElse(null);
              if (entry != null && entry.get("state").asText().equals("quarantined")) {
                throw new AssertionError("the keeper quarantined " + events + ": " + entry);
              }
              long dataFiles =
                  Long.parseLong(
                      spark.value("SELECT count(*) FROM " + events + ".files WHERE content = 0"));
              long deleteFiles =
                  Long.parseLong(spark.value("SELECT count(*) FROM " + events + ".delete_files"));
              return dataFiles == 1 && deleteFiles == 0
                  ? Optional.empty()
                  : Optional.of(
                      dataFiles + " data files, " + deleteFiles + " delete files; " + entry);
            });
        phase("the keeper compacted " + events + ": " + history());
        assertThat(spark.sql("SELECT id, batch, payload FROM " + events + " ORDER BY id"))
            .as("the rows Spark's statements left, after the keeper's rewrites")
            .isEqualTo(List.copyOf(expected.values()));

        JsonNode detail = floe.get(port, "/api/v1/tables/" + keeperName);
        List<String> results = new ArrayList<>();
        detail
            .get("runs")
            .forEach(
                run -> {
                  if (run.get("kind").asText().equals("optimize")) {
                    results.add(run.get("result").asText());
                  }
                });
        phase("the keeper's optimize runs on " + keeperName + ": " + results);
        assertThat(results).as(detail.toString()).contains("succeeded");
        assertThat(FloeCommands.tail(serveLog)).doesNotContain("Exception in thread");
      }

      /** Batch {@code b}: 10 new rows; an update when even, a delete when a multiple of 3. */
      private void write(int b) throws Exception {
        StringBuilder values = new StringBuilder();
        for (long id = (b - 1) * 10L + 1; id <= b * 10L; id++) {
          values.append(values.length() == 0 ? "" : ", ");
          values
              .append("(")
              .append(id)
              .append(", ")
              .append(b)
              .append(", 'p")
              .append(id)
              .append("')");
          expected.put(id, List.of(String.valueOf(id), String.valueOf(b), "p" + id));
        }
        execute("INSERT INTO " + events + " VALUES " + values);
        if (b % 2 == 0) {
          int remainder = b % 5;
          execute(
              "UPDATE "
                  + events
                  + " SET payload = concat('u"
                  + b
                  + "-', CAST(id AS STRING)) WHERE id % 5 = "
                  + remainder);
          expected.replaceAll(
              (id, row) ->
                  id % 5 == remainder ? List.of(row.get(0), row.get(1), "u" + b + "-" + id) : row);
        }
        if (b % 3 == 0) {
          int remainder = b % 7;
          execute("DELETE FROM " + events + " WHERE id % 7 = " + remainder + " AND batch < " + b);
          expected
              .entrySet()
              .removeIf(
                  entry ->
                      entry.getKey() % 7 == remainder
                          && Integer.parseInt(entry.getValue().get(1)) < b);
        }
      }

      /**
       * Runs a write; one that lost to a keeper commit Iceberg could not reapply (a validation
       * failure: nothing was committed) is run again, as a user would.
       */
      private void execute(String statement) throws Exception {
        for (int attempt = 1; ; attempt++) {
          try {
            spark.sql(statement);
            return;
          } catch (SparkSqlException e) {
            boolean conflict =
                e.getMessage().contains("ValidationException")
                    || e.getMessage().contains("CommitFailedException");
            if (!conflict
                || e.getMessage().contains("CommitStateUnknownException")
                || attempt == 10) {
              throw e;
            }
            conflicts++;
            if (firstConflict.isEmpty()) {
              firstConflict = Optional.of(e.getMessage());
            }
          }
        }
      }

      /** Who wrote the table's snapshots, in commit order. */
      private History history() throws Exception {
        List<List<String>> kinds =
            spark.sql(
                "SELECT summary['floe.optimize.kind'] FROM "
                    + events
                    + ".snapshots ORDER BY committed_at");
        int optimizes = 0;
        int sparkAfter = 0;
        for (List<String> kind : kinds) {
          if (kind.get(0) != null) {
            optimizes++;
          } else if (optimizes > 0) {
            sparkAfter++;
          }
        }
        return new History(kinds.size() - optimizes, optimizes, sparkAfter);
      }
    }

    private void createItems() throws SQLException {
      mariadb.execute(
          "CREATE TABLE `"
              + database
              + "`.items ("
              + "id BIGINT NOT NULL PRIMARY KEY,"
              + " name VARCHAR(64) NOT NULL,"
              + " price DECIMAL(12,2) NOT NULL,"
              + " quantity INT NULL,"
              + " ratio DOUBLE NULL,"
              + " born DATE NOT NULL,"
              + " changed_at DATETIME(6) NOT NULL,"
              + " note TEXT NULL)");
      try (Connection connection = mariadb.rootConnection();
          PreparedStatement insert =
              connection.prepareStatement(
                  "INSERT INTO `" + database + "`.items VALUES (?, ?, ?, ?, ?, ?, ?, ?)")) {
        for (long id = 1; id <= 500; id++) {
          insert.setLong(1, id);
          insert.setString(2, "item-" + id + (id % 13 == 0 ? " ünïcødé\ttab" : ""));
          insert.setBigDecimal(3, BigDecimal.valueOf(id * 37 % 100_000, 2));
          insert.setObject(4, id % 9 == 0 ? null : (int) (id * 7 % 1000) - 200);
          insert.setObject(5, id % 6 == 0 ? null : id / 7.0);
          insert.setObject(6, LocalDate.of(2020, 1, 1).plusDays(id * 3));
          insert.setObject(
              7, LocalDateTime.of(2025, 6, 1, 0, 0).plusSeconds(id * 997).plusNanos(id * 1000));
          insert.setString(8, id % 4 == 0 ? null : "note " + id);
          insert.addBatch();
        }
        insert.executeBatch();
      }
    }

    /** Round {@code r}: updates, deletes and new rows, through the binlog. */
    private void changeItems(int round) {
      String table = "`" + database + "`.items";
      mariadb.execute(
          "UPDATE "
              + table
              + " SET price = price + 1.01, note = CONCAT('round "
              + round
              + " ', COALESCE(note, 'was null')), changed_at = changed_at + INTERVAL 1 SECOND"
              + " WHERE id % 5 = "
              + round,
          "UPDATE " + table + " SET quantity = NULL, ratio = 0.5 WHERE id % 17 = " + round,
          "DELETE FROM " + table + " WHERE id % 11 = " + round,
          "INSERT INTO "
              + table
              + " SELECT id + "
              + (round * 1000)
              + ", CONCAT(name, ' copy'), price, quantity, ratio, born, changed_at, NULL FROM "
              + table
              + " WHERE id <= 20");
    }

    private void awaitSparkSeesMySql(SparkSql spark, String items, Process sync, Path syncLog)
        throws Exception {
      String query = "SELECT " + COLUMNS + " FROM " + items + " ORDER BY id";
      Poll.untilNothingWrong(
          "Spark reads exactly MySQL's rows of " + items,
          WITHIN,
          Duration.ofMillis(500),
          () -> {
            assertThat(sync.isAlive())
                .as("the sync runs:\n%s", FloeCommands.tail(syncLog))
                .isTrue();
            List<List<String>> mysql = mysqlItems();
            List<List<String>> lake;
            try {
              lake = spark.sql(query);
            } catch (SparkSqlException e) {
              return Optional.of(e.getMessage()); // not created yet
            }
            return lake.equals(mysql) ? Optional.empty() : Optional.of(difference(mysql, lake));
          });
      assertThat(spark.sql(query)).isEqualTo(mysqlItems());
    }

    /** MySQL's rows, each value as Spark's answers give it (see SparkSqlMain#text). */
    private List<List<String>> mysqlItems() throws SQLException {
      List<List<String>> rows = new ArrayList<>();
      try (Connection connection = mariadb.rootConnection();
          Statement statement = connection.createStatement();
          ResultSet row =
              statement.executeQuery(
                  "SELECT " + COLUMNS + " FROM `" + database + "`.items ORDER BY id")) {
        while (row.next()) {
          List<String> values = new ArrayList<>();
          values.add(String.valueOf(row.getLong(1)));
          values.add(row.getString(2));
          values.add(row.getBigDecimal(3).toPlainString());
          values.add(text(row.getObject(4, Integer.class)));
          values.add(text(row.getObject(5, Double.class)));
          values.add(text(row.getObject(6, LocalDate.class)));
          values.add(text(row.getObject(7, LocalDateTime.class)));
          values.add(row.getString(8));
          rows.add(values);
        }
      }
      return rows;
    }

    private void phase(String what) {
      System.out.printf(Locale.ROOT, "%6.1f s  %s%n", (System.nanoTime() - started) / 1e9, what);
    }
  }

  /** What a table's history holds: Spark's snapshots, the keeper's, and Spark's after its first. */
  record History(int spark, int optimizes, int sparkAfterFirstOptimize) {}

  private static String text(Object value) {
    return value == null ? null : value.toString();
  }

  private static String difference(List<List<String>> mysql, List<List<String>> lake) {
    for (int i = 0; i < Math.min(mysql.size(), lake.size()); i++) {
      if (!mysql.get(i).equals(lake.get(i))) {
        return "row " + i + ": MySQL " + mysql.get(i) + ", Spark " + lake.get(i);
      }
    }
    return mysql.size() + " rows in MySQL, " + lake.size() + " in Spark";
  }
}

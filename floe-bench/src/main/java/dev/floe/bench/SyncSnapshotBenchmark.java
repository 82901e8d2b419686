package dev.floe.bench;

import dev.floe.core.config.CatalogSettings;
import dev.floe.core.source.MySqlSourceAddress;
import dev.floe.core.sync.TableSelection;
import dev.floe.iceberg.CatalogFactory;
import dev.floe.iceberg.FloeCatalog;
import dev.floe.mysql.MySqlConnections;
import dev.floe.sync.RunningSync;
import dev.floe.sync.SyncOptions;
import dev.floe.sync.SyncRunner;
import dev.floe.testing.MariaDbServer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * The initial snapshot of one large table: Floe's sync (until every row is committed to Iceberg)
 * against a plain {@code SELECT *} streamed through JDBC and discarded, on the same private MariaDB
 * in the same run. Goal: Floe at most 2x the plain read.
 */
final class SyncSnapshotBenchmark implements Benchmark {

  @Override
  public String name() {
    return "sync-snapshot";
  }

  @Override
  public String description() {
    return "initial snapshot of one table vs a plain JDBC SELECT * (--rows, --parallelism, --chunk-rows)";
  }

  @Override
  public BenchmarkResult run(BenchmarkContext context) throws Exception {
    int rows = context.intParameter("rows", 2_000_000);
    int parallelism = context.intParameter("parallelism", 2);
    int chunkRows = context.intParameter("chunk-rows", SyncOptions.DEFAULT_SNAPSHOT_CHUNK_ROWS);
    try (MariaDbServer server =
        MariaDbServer.builder().argument("--innodb-buffer-pool-size=1G").start()) {
      long loadStart = System.nanoTime();
      server.execute(
          "CREATE DATABASE bench",
          "CREATE TABLE bench.orders (id BIGINT PRIMARY KEY, customer_id BIGINT NOT NULL, status"
              + " VARCHAR(16) NOT NULL, total DECIMAL(12,2) NOT NULL, note VARCHAR(200), created_at"
              + " DATETIME(6) NOT NULL, updated_at TIMESTAMP(6) NOT NULL)",
          "INSERT INTO bench.orders SELECT 1700000000000000000 + seq * 4096 + (seq * 7919) % 4096,"
              + " seq % 100000, ELT(1 + seq % 4, 'new', 'paid', 'shipped', 'cancelled'), (seq % 100000)"
              + " / 100, IF(seq % 5 = 0, NULL, CONCAT('gift wrap ', seq)), '2026-01-01' + INTERVAL seq"
              + " SECOND, '2026-01-01' + INTERVAL seq SECOND FROM bench.seq_1_to_"
              + rows);
      double loadSeconds = (System.nanoTime() - loadStart) / 1e9;
      System.out.printf("loaded %d rows in %.1f s%n", rows, loadSeconds);

      double plainSeconds = plainScan(server, rows);
      System.out.printf("plain SELECT * over JDBC: %.1f s%n", plainSeconds);

      double floeSeconds;
      try (FloeCatalog catalog =
          new CatalogFactory()
              .open(CatalogSettings.embedded(), context.scratchDirectory().resolve("data"))) {
        SyncOptions options =
            new SyncOptions(
                "bench",
                MySqlSourceAddress.parse(server.sourceUrl("root", "", ""), "--source"),
                TableSelection.of(List.of("bench\\.orders"), List.of(), Optional.empty()),
                Duration.ofSeconds(2),
                parallelism,
                context.scratchDirectory().resolve("state"),
                Optional.empty(),
                chunkRows);
        long start = System.nanoTime();
        try (RunningSync sync =
            new SyncRunner(catalog, new MySqlConnections(Duration.ofSeconds(10))).start(options)) {
          Table table = catalog.catalog().loadTable(TableIdentifier.of("bench", "orders"));
          while (committedRows(table) < rows) {
            Thread.sleep(
                200); // polling for the last commit; 200 ms resolution on a minutes-long run
          }
          floeSeconds = (System.nanoTime() - start) / 1e9;
        }
      }
      System.out.printf("floe sync snapshot: %.1f s%n", floeSeconds);
      return new BenchmarkResult(
          List.of(
              new BenchmarkResult.Measurement("rows", rows, "rows"),
              new BenchmarkResult.Measurement("plain JDBC SELECT * (baseline)", plainSeconds, "s"),
              new BenchmarkResult.Measurement(
                  "plain JDBC SELECT * throughput", rows / plainSeconds, "rows/s"),
              new BenchmarkResult.Measurement(
                  "floe sync: start to all rows committed", floeSeconds, "s"),
              new BenchmarkResult.Measurement(
                  "floe sync throughput", rows / floeSeconds, "rows/s")),
          List.of(
              new BenchmarkResult.Ratio(
                  "snapshot time", floeSeconds, plainSeconds, "s", "<= 2.0")));
    }
  }

  private static double plainScan(MariaDbServer server, int rows) throws Exception {
    long start = System.nanoTime();
    long seen = 0;
    try (Connection connection = server.rootConnection();
        Statement statement =
            connection.createStatement(ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY)) {
      statement.setFetchSize(Integer.MIN_VALUE); // Connector/J streams row by row
      try (ResultSet result = statement.executeQuery("SELECT * FROM bench.orders")) {
        int columns = result.getMetaData().getColumnCount();
        while (result.next()) {
          for (int i = 1; i <= columns; i++) {
            result.getObject(i);
          }
          seen++;
        }
      }
    }
    if (seen != rows) {
      throw new IllegalStateException("the plain scan saw " + seen + " rows, expected " + rows);
    }
    return (System.nanoTime() - start) / 1e9;
  }

  private static long committedRows(Table table) {
    table.refresh();
    Snapshot snapshot = table.currentSnapshot();
    return snapshot == null
        ? 0
        : Long.parseLong(snapshot.summary().getOrDefault("total-records", "0"));
  }
}

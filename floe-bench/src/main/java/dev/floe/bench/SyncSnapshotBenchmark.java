package dev.floe.bench;

import dev.floe.core.config.CatalogSettings;
import dev.floe.core.config.SyncSettings;
import dev.floe.core.source.MySqlSourceAddress;
import dev.floe.core.sync.TableSelection;
import dev.floe.iceberg.CatalogFactory;
import dev.floe.iceberg.FloeCatalog;
import dev.floe.mysql.MySqlConnections;
import dev.floe.sync.RunningSync;
import dev.floe.sync.SyncOptions;
import dev.floe.sync.SyncRunner;
import dev.floe.testing.MariaDbServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * The initial snapshot of one large table: Floe's sync (until every row is committed to Iceberg)
 * against a plain {@code SELECT *} streamed through JDBC and discarded, on the same private MariaDB
 * in the same run. Goal: Floe at most 2x the plain read.
 *
 * <p>{@code --repeat=N} runs both N times, interleaved (plain scan, then a sync into a new lake),
 * and prints every run, its ratio and the CPU seconds of this JVM and of MariaDB in each phase; the
 * result is the median (with min and max). Both are measured the same way: after the machine is
 * idle and a GC, from the first statement to the last row read (plain) or committed (Floe).
 */
final class SyncSnapshotBenchmark implements Benchmark {

  @Override
  public String name() {
    return "sync-snapshot";
  }

  @Override
  public String description() {
    return "initial snapshot of one table vs a plain JDBC SELECT * (--rows, --repeat, --parallelism,"
        + " --chunk-rows)";
  }

  @Override
  public BenchmarkResult run(BenchmarkContext context) throws Exception {
    int rows = context.intParameter("rows", 2_000_000);
    int repeat = context.intParameter("repeat", 3);
    int parallelism = context.intParameter("parallelism", 2);
    int chunkRows = context.intParameter("chunk-rows", SyncSettings.DEFAULT_CHUNK_ROWS);
    if (repeat < 1) {
      throw new IllegalArgumentException("--repeat must be at least 1, got " + repeat);
    }
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
      System.out.println(
          "each run: the plain scan, then floe sync into a new lake; CPU = this JVM's and"
              + " MariaDB's CPU seconds during the phase");

      CpuMeter.awaitIdle(server, 30);
      CpuMeter.Phase walk = keyWalk(server, chunkRows);
      System.out.printf(
          Locale.ROOT,
          "key walk alone (the copy's chunk bounds, %d rows a step): %.2f s (CPU: client %.2f s,"
              + " MariaDB %.2f s)%n",
          chunkRows,
          walk.seconds(),
          walk.jvmCpu(),
          walk.mysqlCpu());

      List<CpuMeter.Phase> plain = new ArrayList<>();
      List<CpuMeter.Phase> floe = new ArrayList<>();
      List<Double> ratios = new ArrayList<>();
      for (int run = 1; run <= repeat; run++) {
        CpuMeter.awaitIdle(server, 30);
        plain.add(plainScan(server, rows));
        CpuMeter.awaitIdle(server, 30);
        Path lake = context.scratchDirectory().resolve("run-" + run);
        floe.add(floeSnapshot(server, rows, parallelism, chunkRows, lake));
        deleteRecursively(lake);
        CpuMeter.Phase baseline = plain.get(run - 1);
        CpuMeter.Phase copy = floe.get(run - 1);
        ratios.add(copy.seconds() / baseline.seconds());
        System.out.printf(
            Locale.ROOT,
            "run %d: plain %.2f s (CPU: client %.2f s, MariaDB %.2f s) | floe %.2f s (CPU: Floe"
                + " %.2f s, MariaDB %.2f s) | ratio %.3f%n",
            run,
            baseline.seconds(),
            baseline.jvmCpu(),
            baseline.mysqlCpu(),
            copy.seconds(),
            copy.jvmCpu(),
            copy.mysqlCpu(),
            ratios.get(run - 1));
      }
      double plainSeconds = median(plain.stream().map(CpuMeter.Phase::seconds).toList());
      double floeSeconds = median(floe.stream().map(CpuMeter.Phase::seconds).toList());
      System.out.printf(
          Locale.ROOT,
          "ratio over %d runs: median %.3f, min %.3f, max %.3f%n",
          repeat,
          median(ratios),
          Collections.min(ratios),
          Collections.max(ratios));
      return new BenchmarkResult(
          List.of(
              new BenchmarkResult.Measurement("rows", rows, "rows"),
              new BenchmarkResult.Measurement(
                  "runs (plain scan and floe sync, interleaved)", repeat, "runs"),
              new BenchmarkResult.Measurement(
                  "plain JDBC SELECT * (baseline), median", plainSeconds, "s"),
              new BenchmarkResult.Measurement(
                  "plain JDBC SELECT * throughput, median", rows / plainSeconds, "rows/s"),
              new BenchmarkResult.Measurement(
                  "plain: client JVM CPU, median",
                  median(plain.stream().map(CpuMeter.Phase::jvmCpu).toList()),
                  "s"),
              new BenchmarkResult.Measurement(
                  "plain: MariaDB CPU, median",
                  median(plain.stream().map(CpuMeter.Phase::mysqlCpu).toList()),
                  "s"),
              new BenchmarkResult.Measurement(
                  "floe sync: start to all rows committed, median", floeSeconds, "s"),
              new BenchmarkResult.Measurement(
                  "floe sync throughput, median", rows / floeSeconds, "rows/s"),
              new BenchmarkResult.Measurement(
                  "floe sync: Floe JVM CPU, median",
                  median(floe.stream().map(CpuMeter.Phase::jvmCpu).toList()),
                  "s"),
              new BenchmarkResult.Measurement(
                  "floe sync: MariaDB CPU, median",
                  median(floe.stream().map(CpuMeter.Phase::mysqlCpu).toList()),
                  "s"),
              new BenchmarkResult.Measurement("ratio of each run, median", median(ratios), "x"),
              new BenchmarkResult.Measurement(
                  "ratio of each run, min", Collections.min(ratios), "x"),
              new BenchmarkResult.Measurement(
                  "ratio of each run, max", Collections.max(ratios), "x")),
          List.of(
              new BenchmarkResult.Ratio(
                  "snapshot time (medians)", floeSeconds, plainSeconds, "s", "<= 2.0")));
    }
  }

  /**
   * One floe sync of the table into a new lake under {@code lake}, until all rows are committed.
   */
  private static CpuMeter.Phase floeSnapshot(
      MariaDbServer server, int rows, int parallelism, int chunkRows, Path lake) throws Exception {
    try (FloeCatalog catalog =
        new CatalogFactory().open(CatalogSettings.embedded(), lake.resolve("data"))) {
      SyncOptions options =
          new SyncOptions(
              "bench",
              MySqlSourceAddress.parse(server.sourceUrl("root", "", ""), "--source"),
              TableSelection.of(List.of("bench\\.orders"), List.of(), Optional.empty()),
              Duration.ofSeconds(2),
              parallelism,
              lake.resolve("state"),
              Optional.empty(),
              chunkRows);
      System.gc();
      CpuMeter meter = CpuMeter.start(server);
      try (RunningSync sync =
          new SyncRunner(catalog, new MySqlConnections(Duration.ofSeconds(10))).start(options)) {
        Table table = catalog.catalog().loadTable(TableIdentifier.of("bench", "orders"));
        while (committedRows(table) < rows) {
          Thread.sleep(100); // polling for the last commit; 0.1 s resolution on a 10 s run
        }
        CpuMeter.Phase phase = meter.stop();
        Map<String, String> summary = table.currentSnapshot().summary();
        System.out.printf(
            Locale.ROOT,
            "  floe wrote %s data files, %.1f MB%n",
            summary.get("total-data-files"),
            Long.parseLong(summary.get("total-files-size")) / 1e6);
        return phase;
      }
    }
  }

  private static double median(List<Double> values) {
    List<Double> sorted = values.stream().sorted().toList();
    int middle = sorted.size() / 2;
    return sorted.size() % 2 == 1
        ? sorted.get(middle)
        : (sorted.get(middle - 1) + sorted.get(middle)) / 2;
  }

  private static void deleteRecursively(Path path) throws IOException {
    if (!Files.exists(path)) {
      return;
    }
    try (Stream<Path> files = Files.walk(path)) {
      files.sorted(Comparator.reverseOrder()).forEach(file -> file.toFile().delete());
    }
  }

  /**
   * The chunk bounds the copy finds before reading each chunk, alone: the same key-index walk
   * ({@code ORDER BY id LIMIT 1 OFFSET n-1} after the previous bound), to show its share of
   * MariaDB's CPU in the copy.
   */
  private static CpuMeter.Phase keyWalk(MariaDbServer server, int chunkRows) throws Exception {
    CpuMeter meter = CpuMeter.start(server);
    try (Connection connection = server.rootConnection();
        java.sql.PreparedStatement first =
            connection.prepareStatement(
                "SELECT id FROM bench.orders ORDER BY id LIMIT 1 OFFSET " + (chunkRows - 1));
        java.sql.PreparedStatement next =
            connection.prepareStatement(
                "SELECT id FROM bench.orders WHERE id > ? ORDER BY id LIMIT 1 OFFSET "
                    + (chunkRows - 1))) {
      ResultSet bound = first.executeQuery();
      while (bound.next()) {
        long id = bound.getLong(1);
        bound.close();
        next.setLong(1, id);
        bound = next.executeQuery();
      }
      bound.close();
    }
    return meter.stop();
  }

  /** Every row of the table through Connector/J's streaming, every column read, discarded. */
  private static CpuMeter.Phase plainScan(MariaDbServer server, int rows) throws Exception {
    System.gc();
    CpuMeter meter = CpuMeter.start(server);
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
    return meter.stop();
  }

  private static long committedRows(Table table) {
    table.refresh();
    Snapshot snapshot = table.currentSnapshot();
    return snapshot == null
        ? 0
        : Long.parseLong(snapshot.summary().getOrDefault("total-records", "0"));
  }
}

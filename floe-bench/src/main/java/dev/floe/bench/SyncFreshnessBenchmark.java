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
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;

/**
 * Freshness under a steady insert/update/delete load: for every inserted or updated row, the time
 * from its MySQL commit (the row carries {@code UTC_TIMESTAMP(6)}) to the Iceberg commit that made
 * it visible. Goal: p95 <= checkpoint interval + 5 s.
 */
final class SyncFreshnessBenchmark implements Benchmark {

  @Override
  public String name() {
    return "sync-freshness";
  }

  @Override
  public String description() {
    return "MySQL commit to visible in Iceberg under steady load (--seconds, --rate, --checkpoint-seconds)";
  }

  @Override
  public BenchmarkResult run(BenchmarkContext context) throws Exception {
    int seconds = context.intParameter("seconds", 60);
    int rate = context.intParameter("rate", 20);
    int checkpointSeconds = context.intParameter("checkpoint-seconds", 5);
    try (MariaDbServer server = MariaDbServer.builder().start();
        FloeCatalog catalog =
            new CatalogFactory()
                .open(CatalogSettings.embedded(), context.scratchDirectory().resolve("data"))) {
      server.execute(
          "CREATE DATABASE bench",
          "CREATE TABLE bench.events (id BIGINT AUTO_INCREMENT PRIMARY KEY, payload VARCHAR(64) NOT NULL,"
              + " changed_at DATETIME(6) NOT NULL)",
          "INSERT INTO bench.events (payload, changed_at) VALUES ('seed', UTC_TIMESTAMP(6))");
      SyncOptions options =
          new SyncOptions(
              "freshness",
              MySqlSourceAddress.parse(server.sourceUrl("root", "", ""), "--source"),
              TableSelection.of(List.of("bench\\.events"), List.of(), Optional.empty()),
              Duration.ofSeconds(checkpointSeconds),
              2,
              context.scratchDirectory().resolve("state"),
              Optional.empty(),
              SyncSettings.DEFAULT_CHUNK_ROWS);
      List<Long> latencies = new ArrayList<>();
      try (RunningSync sync =
          new SyncRunner(catalog, new MySqlConnections(Duration.ofSeconds(10))).start(options)) {
        Table table = catalog.catalog().loadTable(TableIdentifier.of("bench", "events"));
        Set<Long> seen = new HashSet<>();
        Set<String> visible = new HashSet<>();
        while (table.currentSnapshot() == null) {
          Thread.sleep(200); // waiting for the snapshot phase to commit the seed row
          table.refresh();
        }
        seen.add(table.currentSnapshot().snapshotId());
        collect(table, table.currentSnapshot(), visible, new ArrayList<>());
        AtomicBoolean loading = new AtomicBoolean(true);
        int[] changes = new int[1];
        Thread load = new Thread(() -> generate(server, seconds, rate, loading, changes), "load");
        load.start();
        long lastChange = Long.MAX_VALUE;
        while (true) {
          Thread.sleep(
              200); // polling for new Iceberg commits; latencies come from commit timestamps
          table.refresh();
          List<Snapshot> fresh = new ArrayList<>();
          for (Snapshot snapshot : table.snapshots()) {
            if (seen.add(snapshot.snapshotId())) {
              fresh.add(snapshot);
            }
          }
          fresh.sort(java.util.Comparator.comparingLong(Snapshot::sequenceNumber));
          for (Snapshot snapshot : fresh) {
            collect(table, snapshot, visible, latencies);
          }
          if (!load.isAlive() && lastChange == Long.MAX_VALUE) {
            lastChange = System.currentTimeMillis();
          }
          if (!load.isAlive()
              && System.currentTimeMillis() > lastChange + 3L * checkpointSeconds * 1000 + 10_000) {
            break;
          }
        }
        System.out.printf(
            "%d changes made, %d row versions observed%n", changes[0], latencies.size());
      }
      Collections.sort(latencies);
      double p50 = percentile(latencies, 0.50) / 1000.0;
      double p95 = percentile(latencies, 0.95) / 1000.0;
      double max = latencies.isEmpty() ? Double.NaN : latencies.get(latencies.size() - 1) / 1000.0;
      double budget = checkpointSeconds + 5;
      return new BenchmarkResult(
          List.of(
              new BenchmarkResult.Measurement("row versions measured", latencies.size(), "rows"),
              new BenchmarkResult.Measurement("checkpoint interval", checkpointSeconds, "s"),
              new BenchmarkResult.Measurement("MySQL commit -> visible in Iceberg p50", p50, "s"),
              new BenchmarkResult.Measurement("MySQL commit -> visible in Iceberg p95", p95, "s"),
              new BenchmarkResult.Measurement("MySQL commit -> visible in Iceberg max", max, "s")),
          List.of(
              new BenchmarkResult.Ratio(
                  "p95 / (checkpoint interval + 5 s)", p95, budget, "s", "<= 1.0")));
    }
  }

  /**
   * Row versions (id, changed_at) a snapshot shows for the first time became visible with it. Reads
   * the table at the snapshot: fine for the benchmark's small table.
   */
  private static void collect(
      Table table, Snapshot snapshot, Set<String> visible, List<Long> latencies) throws Exception {
    try (CloseableIterable<Record> rows =
        IcebergGenerics.read(table).useSnapshot(snapshot.snapshotId()).build()) {
      for (Record row : rows) {
        LocalDateTime changed = (LocalDateTime) row.getField("changed_at");
        if (visible.add(row.getField("id") + "@" + changed)) {
          latencies.add(
              snapshot.timestampMillis() - changed.toInstant(ZoneOffset.UTC).toEpochMilli());
        }
      }
    }
  }

  private static void generate(
      MariaDbServer server, int seconds, int rate, AtomicBoolean loading, int[] changes) {
    Random random = new Random(3);
    long end = System.nanoTime() + seconds * 1_000_000_000L;
    long pause = 1_000_000_000L / rate;
    try (Connection connection = server.rootConnection();
        Statement statement = connection.createStatement()) {
      long next = System.nanoTime();
      while (System.nanoTime() < end) {
        switch (random.nextInt(10)) {
          case 0, 1, 2, 3, 4 ->
              statement.execute(
                  "INSERT INTO bench.events (payload, changed_at) VALUES ('new', UTC_TIMESTAMP(6))");
          case 5, 6, 7, 8 ->
              statement.execute(
                  "UPDATE bench.events SET payload = 'updated', changed_at = UTC_TIMESTAMP(6) ORDER BY RAND() LIMIT 1");
          default ->
              statement.execute("DELETE FROM bench.events WHERE id > 1 ORDER BY RAND() LIMIT 1");
        }
        changes[0]++;
        next += pause;
        long wait = next - System.nanoTime();
        if (wait > 0) {
          Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000)); // pacing the load at --rate
        }
      }
    } catch (Exception e) {
      throw new IllegalStateException("load generator failed: " + e.getMessage(), e);
    } finally {
      loading.set(false);
    }
  }

  private static double percentile(List<Long> sorted, double quantile) {
    if (sorted.isEmpty()) {
      return Double.NaN;
    }
    return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(quantile * sorted.size()) - 1));
  }
}

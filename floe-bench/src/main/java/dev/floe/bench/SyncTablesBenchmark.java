package dev.floe.bench;

import dev.floe.core.config.CatalogSettings;
import dev.floe.core.source.MySqlSourceAddress;
import dev.floe.core.sync.SyncSummary;
import dev.floe.core.sync.TableSelection;
import dev.floe.iceberg.CatalogFactory;
import dev.floe.iceberg.FloeCatalog;
import dev.floe.mysql.MySqlConnections;
import dev.floe.sync.RunningSync;
import dev.floe.sync.SyncOptions;
import dev.floe.sync.SyncRunner;
import dev.floe.testing.MariaDbServer;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DeleteSchemaUtil;
import org.apache.iceberg.parquet.Parquet;

/**
 * A whole database of many tables (issue 17 item 4): one sync of {@code --tables} tables of {@code
 * --rows} rows copies them all, then keeps up with a steady update load on {@code --changed} of
 * them. Measured: the copy's time against the baseline, a copy of one table holding the same rows
 * in the same run (the per-table cost); commits of unchanged tables during the load (goal 0: a
 * checkpoint costs work only for tables that changed); how long one checkpoint's commits take,
 * first to last table; freshness on 10 of the changed tables (MySQL commit to visible in Iceberg,
 * goal p95 within the checkpoint interval + 5 s); and the peak live heap (the heap pools' use after
 * GC), against the one-table copy's.
 */
final class SyncTablesBenchmark implements Benchmark {

  private static final int FRESHNESS_SAMPLE = 10;

  @Override
  public String name() {
    return "sync-tables";
  }

  @Override
  public String description() {
    return "one sync of a whole database: copy, unchanged-table commits, checkpoint commit time,"
        + " freshness, peak heap (--tables, --rows, --changed, --seconds, --rate,"
        + " --checkpoint-seconds)";
  }

  @Override
  public BenchmarkResult run(BenchmarkContext context) throws Exception {
    int tables = context.intParameter("tables", 1000);
    int rows = context.intParameter("rows", 2000);
    int changed = Math.min(tables, context.intParameter("changed", 100));
    int seconds = context.intParameter("seconds", 120);
    int rate = context.intParameter("rate", 100);
    int checkpointSeconds = context.intParameter("checkpoint-seconds", 5);
    try (MariaDbServer server = MariaDbServer.builder().start();
        FloeCatalog catalog =
            new CatalogFactory()
                .open(CatalogSettings.embedded(), context.scratchDirectory().resolve("data"));
        HeapPeak heap = HeapPeak.start()) {
      String url = server.sourceUrl("root", "", "");
      System.out.printf(Locale.ROOT, "creating %d tables of %d rows...%n", tables, rows);
      server.execute("CREATE DATABASE one", "CREATE DATABASE many");
      server.execute(
          "CREATE TABLE one.t (id INT PRIMARY KEY, v INT NOT NULL, changed_at DATETIME(6) NOT NULL)",
          "INSERT INTO one.t SELECT seq, seq, UTC_TIMESTAMP(6) FROM one.seq_1_to_"
              + (long) tables * rows);
      for (int table = 1; table <= tables; table++) {
        server.execute(
            "CREATE TABLE many." + name(table) + " LIKE one.t",
            "INSERT INTO many."
                + name(table)
                + " SELECT seq, seq, UTC_TIMESTAMP(6) FROM many.seq_1_to_"
                + rows);
      }
      MySqlConnections connections = new MySqlConnections(Duration.ofSeconds(10));

      // Baseline: the same rows in one table, same runner, same settings.
      heap.reset();
      long baselineStart = System.nanoTime();
      double baselineSeconds;
      try (RunningSync sync =
          new SyncRunner(catalog, connections)
              .start(options("one", url, context, checkpointSeconds))) {
        awaitCopied(catalog, List.of(TableIdentifier.of("one", "t")));
        baselineSeconds = (System.nanoTime() - baselineStart) / 1e9;
        sync.stop(Duration.ofSeconds(120));
      }
      long baselineHeap = heap.peak();
      System.out.printf(
          Locale.ROOT,
          "baseline: one table of %d rows copied in %.1f s%n",
          (long) tables * rows,
          baselineSeconds);

      heap.reset();
      List<TableIdentifier> identifiers = new ArrayList<>();
      for (int table = 1; table <= tables; table++) {
        identifiers.add(TableIdentifier.of("many", name(table)));
      }
      long copyStart = System.nanoTime();
      try (RunningSync sync =
          new SyncRunner(catalog, connections)
              .start(options("many", url, context, checkpointSeconds))) {
        awaitCopied(catalog, identifiers);
        double copySeconds = (System.nanoTime() - copyStart) / 1e9;
        long copyHeap = heap.peak();
        System.out.printf(Locale.ROOT, "%d tables copied in %.1f s%n", tables, copySeconds);

        // The load: updates on the first --changed tables; the rest stay untouched.
        Map<TableIdentifier, Integer> unchangedBefore = new HashMap<>();
        for (TableIdentifier identifier : identifiers.subList(changed, tables)) {
          unchangedBefore.put(identifier, snapshots(catalog.catalog().loadTable(identifier)));
        }
        List<TableIdentifier> sampled = new ArrayList<>();
        for (int i = 0; i < FRESHNESS_SAMPLE && i < changed; i++) {
          sampled.add(identifiers.get(i * changed / Math.min(FRESHNESS_SAMPLE, changed)));
        }
        Freshness freshness = new Freshness(catalog, sampled);
        heap.reset();
        AtomicLong changes = new AtomicLong();
        Thread load =
            new Thread(() -> load(server, changed, rows, seconds, rate, changes), "sync-load");
        load.start();
        long quietSince = Long.MAX_VALUE;
        while (true) {
          TimeUnit.MILLISECONDS.sleep(500); // the polling period of the freshness sample
          freshness.poll();
          if (!load.isAlive() && quietSince == Long.MAX_VALUE) {
            quietSince = System.nanoTime();
          }
          if (quietSince != Long.MAX_VALUE
              && System.nanoTime() - quietSince > (3L * checkpointSeconds + 10) * 1_000_000_000L) {
            break;
          }
        }
        long loadHeap = heap.peak();
        int unchangedCommits = 0;
        for (Map.Entry<TableIdentifier, Integer> entry : unchangedBefore.entrySet()) {
          unchangedCommits +=
              snapshots(catalog.catalog().loadTable(entry.getKey())) - entry.getValue();
        }
        List<Long> spans = commitSpans(catalog, identifiers.subList(0, changed));
        sync.stop(Duration.ofSeconds(120));

        List<Long> latencies = freshness.latencies();
        Collections.sort(latencies);
        Collections.sort(spans);
        double p50 = percentile(latencies, 0.50) / 1000.0;
        double p95 = percentile(latencies, 0.95) / 1000.0;
        double budget = checkpointSeconds + 5;
        long peakHeap = Math.max(copyHeap, loadHeap);
        System.out.printf(
            Locale.ROOT,
            "%d changes in %d s on %d tables; %d row versions timed on %d of them; %d checkpoints"
                + " committed%n",
            changes.get(),
            seconds,
            changed,
            latencies.size(),
            sampled.size(),
            spans.size());
        return new BenchmarkResult(
            List.of(
                new BenchmarkResult.Measurement("tables", tables, "tables"),
                new BenchmarkResult.Measurement("rows copied", (long) tables * rows, "rows"),
                new BenchmarkResult.Measurement("copy of every table", copySeconds, "s"),
                new BenchmarkResult.Measurement(
                    "copy of one table with the same rows", baselineSeconds, "s"),
                new BenchmarkResult.Measurement(
                    "commits of unchanged tables during the load", unchangedCommits, "commits"),
                new BenchmarkResult.Measurement(
                    "checkpoint commit, first to last table, p50",
                    percentile(spans, 0.5) / 1000.0,
                    "s"),
                new BenchmarkResult.Measurement(
                    "checkpoint commit, first to last table, max",
                    spans.isEmpty() ? Double.NaN : spans.get(spans.size() - 1) / 1000.0,
                    "s"),
                new BenchmarkResult.Measurement("freshness p50", p50, "s"),
                new BenchmarkResult.Measurement("freshness p95", p95, "s"),
                new BenchmarkResult.Measurement("peak live heap, copy", mib(copyHeap), "MiB"),
                new BenchmarkResult.Measurement("peak live heap, load", mib(loadHeap), "MiB"),
                new BenchmarkResult.Measurement(
                    "peak live heap, one-table copy", mib(baselineHeap), "MiB")),
            List.of(
                new BenchmarkResult.Ratio(
                    "copy time / one-table copy", copySeconds, baselineSeconds, "s", ""),
                new BenchmarkResult.Ratio(
                    "freshness p95 / (checkpoint interval + 5 s)", p95, budget, "s", "<= 1.0"),
                new BenchmarkResult.Ratio(
                    "peak live heap / one-table copy's",
                    mib(peakHeap),
                    mib(baselineHeap),
                    "MiB",
                    "")));
      }
    }
  }

  private static String name(int table) {
    return String.format(Locale.ROOT, "t%04d", table);
  }

  private static SyncOptions options(
      String database, String url, BenchmarkContext context, int checkpointSeconds) {
    return new SyncOptions(
        "tables-" + database,
        MySqlSourceAddress.parse(url, "--source"),
        TableSelection.of(List.of(database + "\\..*"), List.of(), Optional.empty()),
        Duration.ofSeconds(checkpointSeconds),
        2,
        context.scratchDirectory().resolve("state-" + database),
        Optional.empty(),
        dev.floe.core.config.SyncSettings.DEFAULT_CHUNK_ROWS);
  }

  /** Waits until every table's copy is complete (polling every 2 s). */
  private static void awaitCopied(FloeCatalog catalog, List<TableIdentifier> identifiers)
      throws InterruptedException {
    Set<TableIdentifier> pending = new HashSet<>(identifiers);
    long deadline = System.nanoTime() + Duration.ofHours(2).toNanos();
    while (!pending.isEmpty()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(pending.size() + " tables not copied within 2 hours");
      }
      TimeUnit.SECONDS.sleep(2); // polling period: the copy time has 2 s of resolution
      pending.removeIf(
          identifier ->
              catalog.catalog().tableExists(identifier)
                  && copied(catalog.catalog().loadTable(identifier)));
    }
  }

  private static boolean copied(Table table) {
    for (Snapshot snapshot : table.snapshots()) {
      if ("true".equals(snapshot.summary().get(SyncSummary.SNAPSHOT_COMPLETE))) {
        return true;
      }
    }
    return false;
  }

  private static int snapshots(Table table) {
    int count = 0;
    for (Snapshot ignored : table.snapshots()) {
      count++;
    }
    return count;
  }

  /**
   * For every checkpoint of the binlog phase, the time from its first table commit to its last,
   * from the commits' timestamps.
   */
  private static List<Long> commitSpans(FloeCatalog catalog, List<TableIdentifier> tables) {
    Map<String, long[]> byCheckpoint = new HashMap<>();
    for (TableIdentifier identifier : tables) {
      for (Snapshot snapshot : catalog.catalog().loadTable(identifier).snapshots()) {
        String checkpoint = snapshot.summary().get(SyncSummary.CHECKPOINT_ID);
        if (checkpoint == null
            || !snapshot.summary().containsKey(SyncSummary.SOURCE_WATERMARK_MS)) {
          continue; // the copy's commits
        }
        long[] span =
            byCheckpoint.computeIfAbsent(
                snapshot.summary().getOrDefault(SyncSummary.FLINK_JOB_ID, "") + "/" + checkpoint,
                key -> new long[] {Long.MAX_VALUE, Long.MIN_VALUE});
        span[0] = Math.min(span[0], snapshot.timestampMillis());
        span[1] = Math.max(span[1], snapshot.timestampMillis());
      }
    }
    List<Long> spans = new ArrayList<>();
    byCheckpoint.values().forEach(span -> spans.add(span[1] - span[0]));
    return spans;
  }

  /** Updates random rows of the first {@code tables} tables at {@code rate} a second. */
  private static void load(
      MariaDbServer server, int tables, int rows, int seconds, int rate, AtomicLong changes) {
    Random random = new Random(11);
    long end = System.nanoTime() + seconds * 1_000_000_000L;
    long pause = 1_000_000_000L / rate;
    try (Connection connection = server.rootConnection();
        Statement statement = connection.createStatement()) {
      long next = System.nanoTime();
      while (System.nanoTime() < end) {
        statement.execute(
            "UPDATE many."
                + name(1 + random.nextInt(tables))
                + " SET v = v + 1, changed_at = UTC_TIMESTAMP(6) WHERE id = "
                + (1 + random.nextInt(rows)));
        changes.incrementAndGet();
        next += pause;
        long wait = next - System.nanoTime();
        if (wait > 0) {
          TimeUnit.NANOSECONDS.sleep(wait); // pacing the load at --rate
        }
      }
    } catch (Exception e) {
      throw new IllegalStateException("load generator failed: " + e.getMessage(), e);
    }
  }

  /** MySQL commit to visible in Iceberg for every row version of some tables. */
  private static final class Freshness {
    private final FloeCatalog catalog;
    private final List<TableIdentifier> tables;
    private final Map<TableIdentifier, Set<Long>> seen = new HashMap<>();
    private final Set<String> visible = new HashSet<>();
    private final List<Long> latencies = new ArrayList<>();

    Freshness(FloeCatalog catalog, List<TableIdentifier> tables) throws Exception {
      this.catalog = catalog;
      this.tables = tables;
      for (TableIdentifier identifier : tables) {
        Table table = catalog.catalog().loadTable(identifier);
        Set<Long> ids = new HashSet<>();
        table.snapshots().forEach(snapshot -> ids.add(snapshot.snapshotId()));
        seen.put(identifier, ids);
        collect(table, table.currentSnapshot(), false); // the copied versions are not timed
      }
    }

    void poll() throws Exception {
      for (TableIdentifier identifier : tables) {
        Table table = catalog.catalog().loadTable(identifier);
        List<Snapshot> fresh = new ArrayList<>();
        for (Snapshot snapshot : table.snapshots()) {
          if (seen.get(identifier).add(snapshot.snapshotId())) {
            fresh.add(snapshot);
          }
        }
        fresh.sort(java.util.Comparator.comparingLong(Snapshot::sequenceNumber));
        for (Snapshot snapshot : fresh) {
          collect(table, snapshot, true);
        }
      }
    }

    /**
     * Times the row versions {@code snapshot} made visible. The copy's versions ({@code timed}
     * false) are read with a scan; a sync commit's are the rows of the data files it added less the
     * positions its own position deletes remove (rows superseded within the checkpoint): its
     * equality deletes apply only to older files. Reading only what a commit added keeps the
     * measurement from scanning ever more delete files on the machine the sync runs on.
     */
    private void collect(Table table, Snapshot snapshot, boolean timed) throws Exception {
      if (!timed) {
        try (CloseableIterable<Record> rows =
            IcebergGenerics.read(table).useSnapshot(snapshot.snapshotId()).build()) {
          rows.forEach(row -> visible.add(version(table, row)));
        }
        return;
      }
      Map<String, Set<Long>> superseded = new HashMap<>();
      for (DeleteFile deletes : snapshot.addedDeleteFiles(table.io())) {
        if (deletes.content() != FileContent.POSITION_DELETES) {
          continue;
        }
        try (CloseableIterable<Record> positions =
            read(table, deletes.location(), DeleteSchemaUtil.pathPosSchema())) {
          for (Record position : positions) {
            superseded
                .computeIfAbsent(position.get(0, String.class), any -> new HashSet<>())
                .add(position.get(1, Long.class));
          }
        }
      }
      for (DataFile data : snapshot.addedDataFiles(table.io())) {
        Set<Long> gone = superseded.getOrDefault(data.location(), Set.of());
        long position = 0;
        try (CloseableIterable<Record> rows = read(table, data.location(), table.schema())) {
          for (Record row : rows) {
            if (!gone.contains(position++) && visible.add(version(table, row))) {
              LocalDateTime changedAt = (LocalDateTime) row.getField("changed_at");
              latencies.add(
                  snapshot.timestampMillis() - changedAt.toInstant(ZoneOffset.UTC).toEpochMilli());
            }
          }
        }
      }
    }

    private static CloseableIterable<Record> read(Table table, String location, Schema schema) {
      return Parquet.read(table.io().newInputFile(location))
          .project(schema)
          .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(schema, fileSchema))
          .build();
    }

    private static String version(Table table, Record row) {
      return table.name() + "/" + row.getField("id") + "@" + row.getField("changed_at");
    }

    List<Long> latencies() {
      return new ArrayList<>(latencies);
    }
  }

  /**
   * The heap pools' use after their last collection, sampled every 100 ms. An upper bound of the
   * live set: with G1 the old generation's figure after a mixed collection still holds the garbage
   * of the regions it left alone, so on a large heap it grows with the allocation rate; a run with
   * a capped heap ({@code FLOE_JAVA_OPTS=-Xmx...}) shows the bound the sync needs.
   */
  private static final class HeapPeak implements AutoCloseable {
    private final ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
    private final AtomicLong peak = new AtomicLong();

    static HeapPeak start() {
      HeapPeak heap = new HeapPeak();
      heap.sampler.scheduleAtFixedRate(heap::sample, 0, 100, TimeUnit.MILLISECONDS);
      return heap;
    }

    private void sample() {
      long used = 0;
      for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
        MemoryUsage afterGc = pool.getCollectionUsage();
        if (pool.getType() == MemoryType.HEAP && afterGc != null) {
          used += afterGc.getUsed();
        }
      }
      peak.accumulateAndGet(used, Math::max);
    }

    void reset() {
      System.gc();
      peak.set(0);
    }

    long peak() {
      sample();
      return peak.get();
    }

    @Override
    public void close() {
      sampler.shutdownNow();
    }
  }

  private static double mib(long bytes) {
    return bytes / (1024.0 * 1024.0);
  }

  private static double percentile(List<Long> sorted, double quantile) {
    if (sorted.isEmpty()) {
      return Double.NaN;
    }
    return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(quantile * sorted.size()) - 1));
  }
}

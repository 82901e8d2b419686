package dev.floe.bench;

import dev.floe.core.config.CatalogSettings;
import dev.floe.core.config.KeeperSettings;
import dev.floe.core.config.ListenAddress;
import dev.floe.core.config.MaintenanceIntervals;
import dev.floe.core.config.OptimizerSettings;
import dev.floe.core.optimize.OptimizePolicy;
import dev.floe.core.state.TableKey;
import dev.floe.iceberg.CatalogFactory;
import dev.floe.iceberg.FloeCatalog;
import dev.floe.server.KeeperService;
import dev.floe.server.maintenance.IcebergMaintenanceJobs;
import dev.floe.server.maintenance.MaintenanceLoop;
import dev.floe.server.store.RunRecord;
import dev.floe.server.workers.WorkerLauncher;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericAppenderFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;

/**
 * The keeper keeping a live table: one streaming writer commits the same upserts and deletes to two
 * tables several times a second, as Flink's upsert sink does (per partition a data file and an
 * equality delete file for every key written). Two workloads: {@code --updates=recent} (the
 * default: half the changes insert new keys, the rest update or delete recent ones, in range
 * partitions like days, as a synced orders table changes) and {@code --updates=uniform} (every
 * change hits a random key of a partition chosen by {@code id % partitions}: the worst case, every
 * file of the table gets deletes). The keeper ({@code floe serve}'s service, default optimize
 * policies) keeps one; nothing keeps the other. Every sample (each minute by default) pins both
 * tables' current snapshots between two commits, writes the same rows as a fully compacted copy
 * (files of the target size, no deletes), and times a full scan of the kept table and the copy
 * (median of five interleaved rounds) and of the unkept table (once, until one scan takes over a
 * minute). Reports the kept and unkept scan times over the copy's at every sample, and the write
 * amplification: bytes the keeper wrote per byte the writer's commits wrote.
 */
final class KeeperLiveBenchmark implements Benchmark {

  /**
   * Scan rounds per sample for the kept table and the compacted copy, interleaved; the median of
   * each is reported (single scans of the same files vary by +-20% on a shared machine).
   */
  private static final int SCAN_ROUNDS = 5;

  /** Once one scan of the unkept table takes longer, later samples skip it. */
  private static final double UNKEPT_SCAN_LIMIT_SECONDS = 60;

  @Override
  public String name() {
    return "keeper-live";
  }

  @Override
  public String description() {
    return "the keeper keeping a streaming upsert table vs the same table unkept vs a compacted"
        + " copy (--minutes=10 --commits-per-second=3 --changes=200 --keys=2000000"
        + " --updates=recent|uniform --partitions=4 --payload-bytes=64 --target-file-mb=16"
        + " --refresh-seconds=2"
        + " --sample-seconds=60 --threads=1 --floe.optimize.*=VALUE)";
  }

  @Override
  public BenchmarkResult run(BenchmarkContext context) throws Exception {
    int minutes = context.intParameter("minutes", 10);
    int rate = context.intParameter("commits-per-second", 3);
    int changesPerCommit = context.intParameter("changes", 200);
    long targetBytes = context.intParameter("target-file-mb", 16) * 1024L * 1024;
    Rows rows =
        new Rows(
            context.intParameter("keys", 2_000_000),
            context.intParameter("partitions", 4),
            context.intParameter("payload-bytes", 64),
            targetBytes,
            context.choiceParameter("updates", List.of("recent", "uniform")).equals("recent"));
    int refreshSeconds = context.intParameter("refresh-seconds", 2);
    int sampleSeconds = context.intParameter("sample-seconds", 60);
    int threads = context.intParameter("threads", 1);
    Path data = context.scratchDirectory().resolve("keeper-live");
    try (FloeCatalog catalog = new CatalogFactory().open(CatalogSettings.embedded(), data)) {
      ((SupportsNamespaces) catalog.catalog()).createNamespace(Namespace.of("bench"));
      // A streaming table's usual setting: files of the target size, well below Floe's 512 MB
      // default, so a partition holds a few large files and the new small ones.
      Map<String, String> streaming =
          Map.of(TableProperties.WRITE_TARGET_FILE_SIZE_BYTES, Long.toString(targetBytes));
      Map<String, String> keptProperties = new HashMap<>(streaming);
      keptProperties.putAll(context.policyOverrides());
      if (!context.policyOverrides().isEmpty()) {
        System.out.println("policy of bench.kept: " + context.policyOverrides());
      }
      Table kept = create(catalog, "kept", rows, keptProperties);
      Map<String, String> unkeptProperties = new HashMap<>(streaming);
      unkeptProperties.put(OptimizePolicy.ENABLED, "false");
      unkeptProperties.put(MaintenanceLoop.ENABLED, "false");
      Table unkept = create(catalog, "unkept", rows, unkeptProperties);
      LiveWriter writer = new LiveWriter(rows, new Random(42));
      writer.load(List.of(kept, unkept));
      System.out.printf(
          Locale.ROOT,
          "loaded %,d rows into bench.kept and bench.unkept (%.1f MB each); writing %d commits/s"
              + " of %d changes to both for %d min%n",
          rows.keys(),
          writer.loadedBytes() / 1e6,
          rate,
          changesPerCommit,
          minutes);
      System.out.printf(
          Locale.ROOT,
          "each sample: kept and compacted scan times are the median of %d interleaved rounds%n",
          SCAN_ROUNDS);

      KeeperSettings settings =
          KeeperSettings.builder()
              .listen(new ListenAddress("127.0.0.1", 0))
              .refreshInterval(Duration.ofSeconds(refreshSeconds))
              .include(List.of("bench\\.kept"))
              .optimizer(new OptimizerSettings(threads, 0.5, Duration.ofSeconds(30)))
              .maintenance(
                  new MaintenanceIntervals(
                      Duration.ofMinutes(10), Duration.ofMinutes(10), Duration.ofDays(1)))
              .build();
      List<Sample> samples = new ArrayList<>();
      try (KeeperService keeper =
          KeeperService.create(
              data,
              CatalogSettings.embedded(),
              settings,
              Clock.systemUTC(),
              new IcebergMaintenanceJobs(),
              WorkerLauncher.NONE)) {
        keeper.start();
        Thread writing =
            new Thread(
                () -> writer.run(List.of(kept, unkept), rate, changesPerCommit), "bench-writer");
        writing.start();
        long started = System.nanoTime();
        long end = started + Duration.ofMinutes(minutes).toNanos();
        boolean scanUnkept = true;
        for (int index = 1; ; index++) {
          long next = started + Duration.ofSeconds((long) sampleSeconds * index).toNanos();
          long wait = Math.min(next, end) - System.nanoTime();
          if (wait > 0) {
            Thread.sleep(wait / 1_000_000); // a benchmark's sampling period, not a wait for work
          }
          // The sample due at (or after) the end is the last one, however long the sleep took.
          boolean last = next >= end || System.nanoTime() >= end;
          if (last) {
            writer.stop();
            writing.join();
          }
          Sample sample = sample(catalog, rows, writer, kept, unkept, index, started, scanUnkept);
          samples.add(sample);
          scanUnkept = scanUnkept && sample.unkept() <= UNKEPT_SCAN_LIMIT_SECONDS;
          if (last) {
            break;
          }
        }
        if (writer.failure() != null) {
          throw new IllegalStateException("the writer failed", writer.failure());
        }
        kept.refresh();
        Map<Long, Integer> keptRows = versions(kept, kept.currentSnapshot().snapshotId());
        if (!keptRows.equals(writer.expected())) {
          throw new IllegalStateException(
              "bench.kept does not hold the rows the writer wrote: "
                  + keptRows.size()
                  + " rows against "
                  + writer.expected().size());
        }
        return result(keeper, writer, samples);
      }
    }
  }

  private static Sample sample(
      FloeCatalog catalog,
      Rows rows,
      LiveWriter writer,
      Table kept,
      Table unkept,
      int index,
      long started,
      boolean scanUnkept) {
    double minute = (System.nanoTime() - started) / 60e9;
    LiveWriter.Pinned pinned = writer.pin(kept, unkept);
    Table compacted = compactedCopy(catalog, rows, index, pinned.versions());
    long compactedSnapshot = compacted.currentSnapshot().snapshotId();
    double[][] seconds = new double[2][SCAN_ROUNDS];
    long keptRows = 0;
    long compactedRows = 0;
    for (int round = 0; round < SCAN_ROUNDS; round++) {
      keptRows = timedScan(kept, pinned.keptSnapshot(), seconds[0], round);
      compactedRows = timedScan(compacted, compactedSnapshot, seconds[1], round);
    }
    double unkeptSeconds = Double.NaN;
    if (scanUnkept) {
      double[] once = new double[1];
      long unkeptRows = timedScan(unkept, pinned.unkeptSnapshot(), once, 0);
      if (unkeptRows != compactedRows) {
        throw new IllegalStateException(
            "sample " + index + ": bench.unkept has " + unkeptRows + " rows, not " + compactedRows);
      }
      unkeptSeconds = once[0];
    }
    if (keptRows != compactedRows || compactedRows != pinned.versions().size()) {
      throw new IllegalStateException(
          "sample "
              + index
              + ": bench.kept has "
              + keptRows
              + " rows, the compacted copy "
              + compactedRows
              + ", the writer "
              + pinned.versions().size());
    }
    Sample sample =
        new Sample(
            minute,
            median(seconds[0]),
            unkeptSeconds,
            median(seconds[1]),
            files(kept, pinned.keptSnapshot()),
            files(unkept, pinned.unkeptSnapshot()),
            pinned.commits(),
            compactedRows);
    catalog.catalog().dropTable(identifier(index), true);
    System.out.println(sample);
    return sample;
  }

  private static TableIdentifier identifier(int index) {
    return TableIdentifier.of("bench", "compacted_" + index);
  }

  private static BenchmarkResult result(
      KeeperService keeper, LiveWriter writer, List<Sample> samples) {
    List<BenchmarkResult.Measurement> measurements = new ArrayList<>();
    Sample worst = samples.get(0);
    Sample worstUnkept = null;
    Sample lastUnkept = null;
    for (Sample sample : samples) {
      String at = String.format(Locale.ROOT, "minute %.1f", sample.minute());
      measurements.add(
          new BenchmarkResult.Measurement(at + ": kept scan", sample.kept() * 1000, "ms"));
      if (!Double.isNaN(sample.unkept())) {
        measurements.add(
            new BenchmarkResult.Measurement(at + ": unkept scan", sample.unkept() * 1000, "ms"));
        if (worstUnkept == null || sample.unkeptRatio() > worstUnkept.unkeptRatio()) {
          worstUnkept = sample;
        }
        lastUnkept = sample;
      }
      measurements.add(
          new BenchmarkResult.Measurement(
              at + ": compacted scan", sample.compacted() * 1000, "ms"));
      if (sample.keptRatio() > worst.keptRatio()) {
        worst = sample;
      }
    }
    long optimizeBytes = 0;
    long optimizeRuns = 0;
    long runBytesIn = 0;
    List<Long> runMillis = new ArrayList<>();
    for (RunRecord run : keeper.store().runs(new TableKey("floe", "bench.kept"), 1_000_000)) {
      if (run.kind().equals("optimize")) {
        optimizeBytes += run.bytesOut();
        optimizeRuns++;
        runMillis.add(run.duration().toMillis());
        runBytesIn += run.bytesIn();
      }
    }
    java.util.Collections.sort(runMillis);
    measurements.add(
        new BenchmarkResult.Measurement("writer commits per table", writer.commits(), ""));
    measurements.add(
        new BenchmarkResult.Measurement(
            "bytes of the first load (not counted below)", writer.loadedBytes() / 1e6, "MB"));
    measurements.add(
        new BenchmarkResult.Measurement(
            "bytes the writer's commits wrote to bench.kept", writer.bytesWritten() / 1e6, "MB"));
    measurements.add(
        new BenchmarkResult.Measurement("keeper optimize runs on bench.kept", optimizeRuns, ""));
    measurements.add(
        new BenchmarkResult.Measurement(
            "bytes the keeper wrote to bench.kept", optimizeBytes / 1e6, "MB"));
    if (!runMillis.isEmpty()) {
      // What bounds how often the keeper runs: a run's own length, or the writer's triggers.
      measurements.add(
          new BenchmarkResult.Measurement(
              "keeper run time, median", runMillis.get(runMillis.size() / 2), "ms"));
      measurements.add(
          new BenchmarkResult.Measurement(
              "keeper run time, p90", runMillis.get(runMillis.size() * 9 / 10), "ms"));
      measurements.add(
          new BenchmarkResult.Measurement(
              "keeper busy (run time / wall time)",
              100.0
                  * runMillis.stream().mapToLong(Long::longValue).sum()
                  / Math.max(1, samples.get(samples.size() - 1).minute() * 60_000),
              "%"));
      measurements.add(
          new BenchmarkResult.Measurement(
              "bytes a keeper run read, mean", runBytesIn / 1e6 / optimizeRuns, "MB"));
    }
    Sample last = samples.get(samples.size() - 1);
    List<BenchmarkResult.Ratio> ratios = new ArrayList<>();
    ratios.add(
        new BenchmarkResult.Ratio(
            "kept vs compacted, worst sample (minute "
                + String.format(Locale.ROOT, "%.1f", worst.minute())
                + ")",
            worst.kept(),
            worst.compacted(),
            "s",
            "<= 1.1"));
    ratios.add(
        new BenchmarkResult.Ratio(
            "kept vs compacted, at the end", last.kept(), last.compacted(), "s", "<= 1.1"));
    if (worstUnkept != null) {
      ratios.add(
          new BenchmarkResult.Ratio(
              "unkept vs compacted, worst sample measured",
              worstUnkept.unkept(),
              worstUnkept.compacted(),
              "s",
              ""));
      ratios.add(
          new BenchmarkResult.Ratio(
              "unkept vs compacted, last sample measured (minute "
                  + String.format(Locale.ROOT, "%.1f", lastUnkept.minute())
                  + ")",
              lastUnkept.unkept(),
              lastUnkept.compacted(),
              "s",
              ""));
    }
    ratios.add(
        new BenchmarkResult.Ratio(
            "write amplification (keeper bytes / writer bytes)",
            optimizeBytes / 1e6,
            writer.bytesWritten() / 1e6,
            "MB",
            ""));
    return new BenchmarkResult(measurements, ratios);
  }

  private static Table create(
      FloeCatalog catalog, String name, Rows rows, Map<String, String> extra) {
    Map<String, String> properties = new HashMap<>(extra);
    properties.put(TableProperties.FORMAT_VERSION, "2");
    return catalog
        .catalog()
        .createTable(TableIdentifier.of("bench", name), Rows.SCHEMA, rows.spec(), properties);
  }

  /** The rows in files of the target size, no deletes, in a new table. */
  private static Table compactedCopy(
      FloeCatalog catalog, Rows rows, int index, Map<Long, Integer> versions) {
    Table table =
        catalog
            .catalog()
            .createTable(
                identifier(index),
                Rows.SCHEMA,
                rows.spec(),
                Map.of(
                    TableProperties.FORMAT_VERSION,
                    "2",
                    OptimizePolicy.ENABLED,
                    "false",
                    MaintenanceLoop.ENABLED,
                    "false"));
    Map<Integer, List<Long>> byPartition = new TreeMap<>();
    versions.keySet().stream()
        .sorted()
        .forEach(id -> byPartition.computeIfAbsent(rows.part(id), p -> new ArrayList<>()).add(id));
    OutputFileFactory outputs =
        OutputFileFactory.builderFor(table, 1, 1).format(FileFormat.PARQUET).build();
    GenericAppenderFactory appenders = new GenericAppenderFactory(table.schema(), table.spec());
    AppendFiles append = table.newAppend();
    for (List<Long> ids : byPartition.values()) {
      writeData(table, appenders, outputs, rows, ids, versions).forEach(append::appendFile);
    }
    append.commit();
    return table;
  }

  /** The rows in files of the target size, rolled by written bytes as Iceberg's writers do. */
  private static List<DataFile> writeData(
      Table table,
      GenericAppenderFactory appenders,
      OutputFileFactory outputs,
      Rows rows,
      List<Long> ids,
      Map<Long, Integer> versions) {
    PartitionKey partition = new PartitionKey(table.spec(), table.schema());
    partition.partition(rows.row(ids.get(0), 0));
    List<DataFile> files = new ArrayList<>();
    DataWriter<Record> writer = null;
    try {
      for (int i = 0; i < ids.size(); i++) {
        if (writer == null) {
          writer =
              appenders.newDataWriter(
                  outputs.newOutputFile(table.spec(), partition), FileFormat.PARQUET, partition);
        }
        long id = ids.get(i);
        writer.write(rows.row(id, versions.get(id)));
        if (i % 1000 == 999 && writer.length() >= rows.targetBytes()) {
          writer.close();
          files.add(writer.toDataFile());
          writer = null;
        }
      }
      if (writer != null) {
        writer.close();
        files.add(writer.toDataFile());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return files;
  }

  private static long timedScan(Table table, long snapshot, double[] into, int round) {
    long start = System.nanoTime();
    long count = 0;
    try (CloseableIterable<Record> records =
        IcebergGenerics.read(table).useSnapshot(snapshot).build()) {
      for (Record ignored : records) {
        count++;
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    into[round] = (System.nanoTime() - start) / 1e9;
    return count;
  }

  /** The table's rows as key -> version, checking each payload matches its version. */
  private static Map<Long, Integer> versions(Table table, long snapshot) {
    Map<Long, Integer> versions = new HashMap<>();
    try (CloseableIterable<Record> records =
        IcebergGenerics.read(table).useSnapshot(snapshot).build()) {
      for (Record record : records) {
        long id = (Long) record.getField("id");
        int version = ((Long) record.getField("version")).intValue();
        if (!Rows.payload(id, version, ((String) record.getField("payload")).length())
            .equals(record.getField("payload"))) {
          throw new IllegalStateException("key " + id + " has a wrong payload");
        }
        if (versions.put(id, version) != null) {
          throw new IllegalStateException("duplicate key " + id + " in " + table.name());
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return versions;
  }

  /** Live data and delete files of the snapshot. */
  /**
   * The table's files at the snapshot and the shape of a scan of it: manifests read to plan, file
   * tasks, delete files read by those tasks (Iceberg's generic reader reads each delete file once
   * per data file it applies to), and the planning time.
   */
  private static String files(Table table, long snapshot) {
    Snapshot at = table.snapshot(snapshot);
    Map<String, String> summary = at.summary();
    long start = System.nanoTime();
    int tasks = 0;
    int deleteReads = 0;
    try (CloseableIterable<FileScanTask> planned =
        table.newScan().useSnapshot(snapshot).planFiles()) {
      for (FileScanTask task : planned) {
        tasks++;
        deleteReads += task.deletes().size();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    double planMillis = (System.nanoTime() - start) / 1e6;
    return String.format(
        Locale.ROOT,
        "%s data + %s delete files; %d + %d manifests, %d tasks, %d delete reads, plan %.0f ms",
        summary.getOrDefault("total-data-files", "?"),
        summary.getOrDefault("total-delete-files", "?"),
        at.dataManifests(table.io()).size(),
        at.deleteManifests(table.io()).size(),
        tasks,
        deleteReads,
        planMillis);
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }

  /** The shape of the rows: {@code (id, part, version, payload)}, key {@code id}. */
  private record Rows(
      int keys, int partitions, int payloadBytes, long targetBytes, boolean recent) {

    static final Schema SCHEMA =
        new Schema(
            List.of(
                Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.required(2, "part", Types.IntegerType.get()),
                Types.NestedField.required(3, "version", Types.LongType.get()),
                Types.NestedField.optional(4, "payload", Types.StringType.get())),
            Set.of(1));
    static final Schema KEY = TypeUtil.select(SCHEMA, Set.of(1));
    private static final char[] ALPHABET =
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".toCharArray();

    PartitionSpec spec() {
      return PartitionSpec.builderFor(SCHEMA).identity("part").build();
    }

    /**
     * Uniform updates: keys spread over the partitions by {@code id % partitions}. Recent updates:
     * keys by range, {@code keys / partitions} to a partition, as rows partitioned by the day they
     * were created: new keys fill the last partition and then new ones.
     */
    int part(long id) {
      return recent
          ? (int) (id / Math.max(1, keys / partitions))
          : (int) Math.floorMod(id, (long) partitions);
    }

    Record row(long id, int version) {
      Record row = GenericRecord.create(SCHEMA);
      row.setField("id", id);
      row.setField("part", part(id));
      row.setField("version", (long) version);
      row.setField("payload", payload(id, version, payloadBytes));
      return row;
    }

    /** Incompressible text that depends on the key and its version only. */
    static String payload(long id, int version, int length) {
      SplittableRandom random = new SplittableRandom(id * 1_000_003L + version);
      char[] chars = new char[length];
      for (int i = 0; i < length; i++) {
        chars[i] = ALPHABET[random.nextInt(ALPHABET.length)];
      }
      return new String(chars);
    }
  }

  private record Sample(
      double minute,
      double kept,
      double unkept,
      double compacted,
      String keptFiles,
      String unkeptFiles,
      long commits,
      long rows) {

    double keptRatio() {
      return kept / compacted;
    }

    double unkeptRatio() {
      return unkept / compacted;
    }

    @Override
    public String toString() {
      return String.format(
          Locale.ROOT,
          "minute %4.1f (%,d commits, %,d rows): scan kept %.3f s (%s), compacted %.3f s,"
              + " unkept %s (%s); kept/compacted %.3f%s",
          minute,
          commits,
          rows,
          kept,
          keptFiles,
          compacted,
          Double.isNaN(unkept) ? "skipped" : String.format(Locale.ROOT, "%.3f s", unkept),
          unkeptFiles,
          keptRatio(),
          Double.isNaN(unkept)
              ? ""
              : String.format(Locale.ROOT, ", unkept/compacted %.3f", unkeptRatio()));
    }
  }

  /**
   * The streaming writer: each commit picks distinct keys ({@link #pick}), deletes or upserts each
   * (a new version), and commits the same changes to every table it writes (one {@link RowDelta}
   * each), at most {@code rate} rounds a second. Keeps the rows the tables should hold, as key ->
   * version.
   */
  private static final class LiveWriter {

    private final Rows rows;
    private final Random random;
    private final Map<Long, Integer> expected = new HashMap<>();
    private final AtomicLong bytesWritten = new AtomicLong();
    private final AtomicLong taskIds = new AtomicLong();
    private static final long RECENT_KEYS = 100_000;

    private long loadedBytes;
    private long nextId;
    private volatile boolean stopping;
    private volatile Throwable failure;
    private long commits;

    LiveWriter(Rows rows, Random random) {
      this.rows = rows;
      this.random = random;
    }

    /** The first version of every key, appended to every table in files of the target size. */
    void load(List<Table> tables) {
      for (long id = 0; id < rows.keys(); id++) {
        expected.put(id, 0);
      }
      nextId = rows.keys();
      for (Table table : tables) {
        Map<Integer, List<Long>> byPartition = new TreeMap<>();
        for (long id = 0; id < rows.keys(); id++) {
          byPartition.computeIfAbsent(rows.part(id), p -> new ArrayList<>()).add(id);
        }
        GenericAppenderFactory appenders = new GenericAppenderFactory(table.schema(), table.spec());
        OutputFileFactory outputs =
            OutputFileFactory.builderFor(table, 1, taskIds.incrementAndGet())
                .format(FileFormat.PARQUET)
                .build();
        AppendFiles append = table.newAppend();
        for (List<Long> ids : byPartition.values()) {
          for (DataFile file : writeData(table, appenders, outputs, rows, ids, expected)) {
            loadedBytes += file.fileSizeInBytes();
            append.appendFile(file);
          }
        }
        append.commit();
      }
      loadedBytes /= tables.size();
    }

    /** Bytes of the first load, per table. */
    long loadedBytes() {
      return loadedBytes;
    }

    void run(List<Table> tables, int rate, int changes) {
      long period = 1_000_000_000L / rate;
      long next = System.nanoTime();
      try {
        while (!stopping) {
          synchronized (this) {
            long[] ids = pick(changes);
            int version = (int) commits + 1;
            for (long id : ids) {
              if (id < nextId && random.nextInt(10) == 0) {
                expected.remove(id);
              } else {
                expected.put(id, version);
              }
            }
            nextId = Math.max(nextId, Arrays.stream(ids).max().orElse(-1) + 1);
            for (Table table : tables) {
              commit(table, ids);
            }
            commits++;
          }
          next += period;
          long wait = next - System.nanoTime();
          if (wait > 0) {
            Thread.sleep(wait / 1_000_000); // the writer's commit rate
          } else {
            next = System.nanoTime(); // behind: no burst to catch up
          }
        }
      } catch (Throwable e) {
        failure = e;
      }
    }

    /**
     * Distinct keys for one commit. Uniform: any existing key (one in ten deleted, the rest
     * updated). Recent: half of them new keys (inserts), the rest among the newest {@link
     * #RECENT_KEYS} keys (updates, one in ten of them deletes), as an orders table's changes are.
     */
    private long[] pick(int changes) {
      if (!rows.recent()) {
        return random.longs(0, rows.keys()).distinct().limit(changes).toArray();
      }
      int inserts = changes / 2;
      long[] ids = new long[changes];
      for (int i = 0; i < inserts; i++) {
        ids[i] = nextId + i;
      }
      long from = Math.max(0, nextId - RECENT_KEYS);
      long[] updates = random.longs(from, nextId).distinct().limit(changes - inserts).toArray();
      System.arraycopy(updates, 0, ids, inserts, updates.length);
      return Arrays.copyOf(ids, inserts + updates.length);
    }

    void stop() {
      stopping = true;
    }

    Throwable failure() {
      return failure;
    }

    synchronized long commits() {
      return commits;
    }

    synchronized Map<Long, Integer> expected() {
      return Map.copyOf(expected);
    }

    long bytesWritten() {
      return bytesWritten.get() / 2; // the same changes went to each of the two tables
    }

    record Pinned(
        long keptSnapshot, long unkeptSnapshot, long commits, Map<Long, Integer> versions) {}

    /** Both tables' snapshots and the rows they hold, between two commits. */
    synchronized Pinned pin(Table kept, Table unkept) {
      kept.refresh();
      unkept.refresh();
      return new Pinned(
          kept.currentSnapshot().snapshotId(),
          unkept.currentSnapshot().snapshotId(),
          commits,
          Map.copyOf(expected));
    }

    /** Writes the current version of each key (or its deletion) to {@code table}. */
    private void commit(Table table, long[] ids) {
      GenericAppenderFactory appenders =
          new GenericAppenderFactory(
              table,
              table.schema(),
              table.spec(),
              table.properties(),
              new int[] {1},
              Rows.KEY,
              null);
      OutputFileFactory outputs =
          OutputFileFactory.builderFor(table, 1, taskIds.incrementAndGet())
              .format(FileFormat.PARQUET)
              .build();
      Map<Integer, List<Long>> byPartition = new TreeMap<>();
      for (long id : ids) {
        byPartition.computeIfAbsent(rows.part(id), p -> new ArrayList<>()).add(id);
      }
      RowDelta delta = table.newRowDelta();
      try {
        for (List<Long> partitionIds : byPartition.values()) {
          PartitionKey partition = new PartitionKey(table.spec(), table.schema());
          partition.partition(rows.row(partitionIds.get(0), 0));
          EqualityDeleteWriter<Record> deletes =
              appenders.newEqDeleteWriter(
                  outputs.newOutputFile(table.spec(), partition), FileFormat.PARQUET, partition);
          try (deletes) {
            for (long id : partitionIds) {
              Record key = GenericRecord.create(Rows.KEY);
              key.setField("id", id);
              deletes.write(key);
            }
          }
          DeleteFile deleteFile = deletes.toDeleteFile();
          bytesWritten.addAndGet(deleteFile.fileSizeInBytes());
          delta.addDeletes(deleteFile);
          List<Long> upserted = partitionIds.stream().filter(expected::containsKey).toList();
          if (!upserted.isEmpty()) {
            for (DataFile dataFile :
                writeData(table, appenders, outputs, rows, upserted, expected)) {
              bytesWritten.addAndGet(dataFile.fileSizeInBytes());
              delta.addRows(dataFile);
            }
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      delta.commit();
    }
  }
}

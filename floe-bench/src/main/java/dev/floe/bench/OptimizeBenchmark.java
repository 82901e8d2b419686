package dev.floe.bench;

import dev.floe.core.config.CatalogSettings;
import dev.floe.core.optimize.OptimizeFailures;
import dev.floe.core.optimize.OptimizePlan;
import dev.floe.core.optimize.OptimizePolicy;
import dev.floe.core.optimize.OptimizeResult;
import dev.floe.iceberg.CatalogFactory;
import dev.floe.iceberg.FloeCatalog;
import dev.floe.iceberg.optimize.OptimizeJob;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.ThreadMXBean;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.actions.RewriteDataFilesActionResult;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.flink.actions.Actions;
import org.apache.iceberg.io.CloseableIterable;

/**
 * Floe's incremental optimize against Iceberg's own Flink rewrite of the same streaming-upsert
 * table, in one run: many old healthy partitions, a few hot ones with many small files and equality
 * deletes.
 *
 * <p>Baseline: {@code org.apache.iceberg.flink.actions.Actions.forTable(table)
 * .rewriteDataFiles().execute()} run the default way (a local Flink environment, default options),
 * which is what scheduled-procedure users run. With {@code --mode=memory}, a table with {@code
 * --deleted-keys} equality-deleted keys (run it with FLOE_JAVA_OPTS=-Xmx512m; {@code
 * --only=floe|baseline} runs one side, to find the heap the baseline needs).
 */
final class OptimizeBenchmark implements Benchmark {

  private static final Schema SCHEMA = BenchTables.SCHEMA;

  /**
   * The tables' target file size, scaled down from Iceberg's default 512 MiB to keep runs short.
   */
  private static final long TARGET_FILE_SIZE = 1L << 20;

  /**
   * The tables' {@code read.split.open-file-cost}, scaled down with the target size (Iceberg's
   * defaults: 4 MiB for 512 MiB). With the unscaled 4 MiB every small file of this table would
   * outweigh the 1 MiB target, be its own group, and the baseline would compact nothing.
   */
  private static final long OPEN_FILE_COST = TARGET_FILE_SIZE * 4 / 512;

  @Override
  public String name() {
    return "optimize";
  }

  @Override
  public String description() {
    return "Floe's incremental optimize vs Iceberg's Flink rewriteDataFiles on a streaming-upsert"
        + " table (--partitions, --hot, --files, --rows, --commits, --scans; --mode=memory --deleted-keys"
        + " --only=floe|baseline)";
  }

  @Override
  public BenchmarkResult run(BenchmarkContext context) throws Exception {
    String mode = context.parameters().getOrDefault("mode", "compare");
    try (FloeCatalog catalog =
        new CatalogFactory()
            .open(CatalogSettings.embedded(), context.scratchDirectory().resolve("lake"))) {
      ((SupportsNamespaces) catalog.catalog()).createNamespace(Namespace.of("bench"));
      if (mode.equals("memory")) {
        return memory(context, catalog);
      }
      return compare(context, catalog);
    }
  }

  private BenchmarkResult compare(BenchmarkContext context, FloeCatalog catalog) throws Exception {
    int partitions = context.intParameter("partitions", 20);
    int hot = context.intParameter("hot", 3);
    int files = context.intParameter("files", 3);
    int rows = context.intParameter("rows", 80_000);
    int commits = context.intParameter("commits", 40);
    Table floeTable = create(catalog, "floe", true);
    Table baselineTable = create(catalog, "baseline", true);
    for (Table table : List.of(floeTable, baselineTable)) {
      BenchTables.fillStreamingTable(table, partitions, hot, files, rows, commits);
    }
    floePolicyOverrides(context, floeTable);
    System.out.println("table: " + describe(floeTable));
    Set<String> hotDays = new HashSet<>();
    for (int day = partitions - hot; day < partitions; day++) {
      hotDays.add(BenchTables.dayValue(day));
    }
    System.out.println("layout before:");
    printLayout(floeTable, hotDays);

    Map<String, FileCost> costs = fileCosts(baselineTable);
    Phase floe = measure(() -> floeOptimize(context, floeTable));
    Phase baseline = measure(() -> flinkRewrite(baselineTable, costs));
    System.out.println("layout after Floe:");
    printLayout(floeTable, hotDays);
    System.out.println("layout after the baseline:");
    printLayout(baselineTable, hotDays);
    Scans scans = scanBoth(floeTable, baselineTable, context.intParameter("scans", 7));
    scanByPartitionClass(floeTable, baselineTable, hotDays, context.intParameter("scans", 7));
    List<BenchmarkResult.Measurement> measurements = new ArrayList<>();
    add(measurements, "Floe optimize", floe);
    add(measurements, "Flink rewriteDataFiles (baseline)", baseline);
    measurements.add(
        new BenchmarkResult.Measurement("Floe: data files after", files(floeTable), "files"));
    measurements.add(
        new BenchmarkResult.Measurement(
            "Floe: delete files after", deleteFiles(floeTable), "files"));
    measurements.add(
        new BenchmarkResult.Measurement(
            "baseline: data files after", files(baselineTable), "files"));
    measurements.add(
        new BenchmarkResult.Measurement(
            "baseline: delete files after", deleteFiles(baselineTable), "files"));
    String[] kinds = {"wall", "CPU"};
    for (int kind = 0; kind < 2; kind++) {
      measurements.add(
          new BenchmarkResult.Measurement(
              "Floe: scan " + kinds[kind] + " after, min", min(scans.floe()[kind]), "s"));
      measurements.add(
          new BenchmarkResult.Measurement(
              "baseline: scan " + kinds[kind] + " after, min", min(scans.baseline()[kind]), "s"));
      measurements.add(
          new BenchmarkResult.Measurement(
              "Floe: scan " + kinds[kind] + " after, median", median(scans.floe()[kind]), "s"));
      measurements.add(
          new BenchmarkResult.Measurement(
              "baseline: scan " + kinds[kind] + " after, median",
              median(scans.baseline()[kind]),
              "s"));
    }
    measurements.add(new BenchmarkResult.Measurement("rows after (both)", scans.rows, "rows"));
    return new BenchmarkResult(
        measurements,
        List.of(
            new BenchmarkResult.Ratio(
                "bytes read", floe.outcome.bytesRead, baseline.outcome.bytesRead, "B", "<= 0.2"),
            new BenchmarkResult.Ratio(
                "bytes written", floe.outcome.bytesWritten, baseline.outcome.bytesWritten, "B", ""),
            new BenchmarkResult.Ratio("wall time", floe.seconds, baseline.seconds, "s", "<= 0.5"),
            new BenchmarkResult.Ratio(
                "peak heap", floe.peakHeapBytes, baseline.peakHeapBytes, "B", ""),
            new BenchmarkResult.Ratio(
                "scan wall time after, min",
                min(scans.floe()[0]),
                min(scans.baseline()[0]),
                "s",
                "<= 1.0"),
            new BenchmarkResult.Ratio(
                "scan CPU time after, min",
                min(scans.floe()[1]),
                min(scans.baseline()[1]),
                "s",
                "<= 1.0"),
            new BenchmarkResult.Ratio(
                "scan CPU time after, median",
                median(scans.floe()[1]),
                median(scans.baseline()[1]),
                "s",
                "")));
  }

  /**
   * Full scans of both tables (Iceberg's generic reader, deletes applied, in this thread): one
   * warm-up scan of each, then {@code rounds} rounds alternating which table goes first, each timed
   * in wall time and in this thread's CPU time (the steadier figure on a shared machine; the
   * minimum over rounds is the least disturbed by other processes). Fails if the tables' row counts
   * differ.
   */
  private static Scans scanBoth(Table floeTable, Table baselineTable, int rounds) {
    long floeRows = scan(floeTable).rows;
    long baselineRows = scan(baselineTable).rows;
    if (floeRows != baselineRows) {
      throw new IllegalStateException("row counts differ: " + floeRows + " vs " + baselineRows);
    }
    double[][] floe = new double[2][rounds];
    double[][] baseline = new double[2][rounds];
    for (int round = 0; round < rounds; round++) {
      if (round % 2 == 0) {
        timedScan(floeTable, floe, round);
        timedScan(baselineTable, baseline, round);
      } else {
        timedScan(baselineTable, baseline, round);
        timedScan(floeTable, floe, round);
      }
    }
    System.out.println("scan wall seconds, Floe: " + Arrays.toString(floe[0]));
    System.out.println("scan wall seconds, baseline: " + Arrays.toString(baseline[0]));
    System.out.println("scan CPU seconds, Floe: " + Arrays.toString(floe[1]));
    System.out.println("scan CPU seconds, baseline: " + Arrays.toString(baseline[1]));
    return new Scans(floe, baseline, floeRows);
  }

  /**
   * The scan split by where the tables differ: the hot partitions (which both tools rewrote) and
   * the cold ones (Floe leaves them alone, the baseline rewrites them one to one), each timed in
   * this thread's CPU time over {@code rounds} alternating rounds after a warm-up. Shows which part
   * of the table makes a whole-table difference.
   */
  private static void scanByPartitionClass(
      Table floeTable, Table baselineTable, Set<String> hotDays, int rounds) {
    Expression hot = Expressions.in("day", hotDays.toArray());
    Expression cold = Expressions.notIn("day", hotDays.toArray());
    for (Map.Entry<String, Expression> part : Map.of("hot", hot, "cold", cold).entrySet()) {
      long floeRows = scan(floeTable, part.getValue()).rows;
      long baselineRows = scan(baselineTable, part.getValue()).rows;
      double[] floe = new double[rounds];
      double[] baseline = new double[rounds];
      for (int round = 0; round < rounds; round++) {
        if (round % 2 == 0) {
          floe[round] = cpuSeconds(floeTable, part.getValue());
          baseline[round] = cpuSeconds(baselineTable, part.getValue());
        } else {
          baseline[round] = cpuSeconds(baselineTable, part.getValue());
          floe[round] = cpuSeconds(floeTable, part.getValue());
        }
      }
      System.out.printf(
          Locale.ROOT,
          "scan CPU of the %s partitions (%d / %d rows): Floe min %.3f median %.3f s,"
              + " baseline min %.3f median %.3f s, ratio min %.3f median %.3f%n",
          part.getKey(),
          floeRows,
          baselineRows,
          min(floe),
          median(floe),
          min(baseline),
          median(baseline),
          min(floe) / min(baseline),
          median(floe) / median(baseline));
    }
  }

  private static double cpuSeconds(Table table, Expression filter) {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long cpu = threads.getCurrentThreadCpuTime();
    scan(table, filter);
    return (threads.getCurrentThreadCpuTime() - cpu) / 1e9;
  }

  /** Scans the table; stores wall seconds in {@code into[0][round]}, CPU in {@code [1][round]}. */
  private static void timedScan(Table table, double[][] into, int round) {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long cpu = threads.getCurrentThreadCpuTime();
    long start = System.nanoTime();
    scan(table);
    into[0][round] = (System.nanoTime() - start) / 1e9;
    into[1][round] = (threads.getCurrentThreadCpuTime() - cpu) / 1e9;
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int middle = sorted.length / 2;
    return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
  }

  /** Per table: wall seconds ({@code [0]}) and CPU seconds ({@code [1]}) of each round. */
  private record Scans(double[][] floe, double[][] baseline, long rows) {}

  private static double min(double[] values) {
    return Arrays.stream(values).min().orElseThrow();
  }

  private BenchmarkResult memory(BenchmarkContext context, FloeCatalog catalog) throws Exception {
    int deletedKeys = context.intParameter("deleted-keys", 5_000_000);
    int liveRows = context.intParameter("rows", 500_000);
    String only = context.parameters().getOrDefault("only", "both");
    boolean runFloe = !only.equals("baseline");
    boolean runBaseline = !only.equals("floe");
    System.out.printf("max heap %.0f MiB%n", Runtime.getRuntime().maxMemory() / (1024.0 * 1024));
    List<BenchmarkResult.Measurement> measurements = new ArrayList<>();
    measurements.add(new BenchmarkResult.Measurement("equality-deleted keys", deletedKeys, "keys"));
    Phase floe = null;
    if (runFloe) {
      Table floeTable = create(catalog, "floe", false);
      BenchTables.fillDeleteHeavyTable(floeTable, deletedKeys, liveRows);
      System.out.println("table: " + describe(floeTable));
      floe = measure(() -> floeOptimize(context, floeTable));
      add(measurements, "Floe optimize", floe);
      measurements.add(
          new BenchmarkResult.Measurement("Floe: rows after", scan(floeTable).rows, "rows"));
      catalog.catalog().dropTable(TableIdentifier.of("bench", "floe"), true);
    }
    Phase baseline = null;
    if (runBaseline) {
      Table baselineTable = create(catalog, "baseline", false);
      BenchTables.fillDeleteHeavyTable(baselineTable, deletedKeys, liveRows);
      System.out.println("table: " + describe(baselineTable));
      Map<String, FileCost> costs = fileCosts(baselineTable);
      try {
        baseline = measure(() -> flinkRewrite(baselineTable, costs));
        add(measurements, "Flink rewriteDataFiles (baseline)", baseline);
        measurements.add(
            new BenchmarkResult.Measurement(
                "baseline: rows after", scan(baselineTable).rows, "rows"));
      } catch (Exception | OutOfMemoryError e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
          root = root.getCause();
        }
        System.out.println("baseline failed: " + e + "; root cause: " + root);
        measurements.add(new BenchmarkResult.Measurement("baseline completed", 0, "(failed)"));
      }
    }
    List<BenchmarkResult.Ratio> ratios = new ArrayList<>();
    if (floe != null && baseline != null) {
      ratios.add(
          new BenchmarkResult.Ratio(
              "peak heap", floe.peakHeapBytes, baseline.peakHeapBytes, "B", ""));
      ratios.add(new BenchmarkResult.Ratio("wall time", floe.seconds, baseline.seconds, "s", ""));
    }
    return new BenchmarkResult(measurements, ratios);
  }

  private static void add(List<BenchmarkResult.Measurement> out, String label, Phase phase) {
    out.add(new BenchmarkResult.Measurement(label + ": wall time", phase.seconds, "s"));
    out.add(
        new BenchmarkResult.Measurement(
            label + ": bytes read", phase.outcome.bytesRead / (1024.0 * 1024), "MiB"));
    out.add(
        new BenchmarkResult.Measurement(
            label + ": bytes written", phase.outcome.bytesWritten / (1024.0 * 1024), "MiB"));
    out.add(
        new BenchmarkResult.Measurement(
            label + ": peak heap", phase.peakHeapBytes / (1024.0 * 1024), "MiB"));
  }

  // ---- the two ways of compacting ----

  private static Outcome floeOptimize(BenchmarkContext context, Table table) {
    table.refresh();
    OptimizePolicy policy = OptimizePolicy.fromProperties(table.name(), table.properties());
    OptimizeJob job = new OptimizeJob(context.scratchDirectory().resolve("spill"));
    OptimizeJob.Preview preview =
        job.preview(table.name(), table, policy, OptimizeFailures.none(), Instant.now());
    OptimizePlan plan = preview.plan();
    plan.tasks()
        .forEach(
            task ->
                System.out.printf(
                    "Floe plans %s: %s, %s%n",
                    task.partition().displayName(), task.kind().displayName(), task.reason()));
    OptimizeResult result = job.run(table, preview);
    if (!result.succeeded()) {
      throw new IllegalStateException("Floe optimize failed: " + result);
    }
    System.out.printf(
        "Floe planned %d partitions (%d deferred), %d rows deleted%n",
        plan.tasks().size(),
        plan.deferred().size(),
        result.partitions().stream().mapToLong(p -> p.rowsDeleted()).sum());
    return new Outcome(result.bytesRead(), result.bytesWritten(), 0);
  }

  /**
   * Iceberg's own Flink rewrite, the default way scheduled-procedure users run it: {@code
   * Actions.forTable(table).rewriteDataFiles().execute()} (a local Flink environment, the table's
   * target file size, every partition's files bin-packed and rewritten with their deletes applied,
   * one commit). Bytes read: the data files it replaced plus the delete files that applied to them
   * (listed before the run, outside the timing).
   */
  private static Outcome flinkRewrite(Table table, Map<String, FileCost> costs) {
    table.refresh();
    RewriteDataFilesActionResult result = Actions.forTable(table).rewriteDataFiles().execute();
    Set<String> deletesRead = new HashSet<>();
    long bytesRead = 0;
    for (DataFile replaced : result.deletedDataFiles()) {
      FileCost cost = costs.get(replaced.location());
      bytesRead += replaced.fileSizeInBytes();
      if (cost != null) {
        for (DeleteFile delete : cost.deletes()) {
          if (deletesRead.add(delete.location())) {
            bytesRead += delete.fileSizeInBytes();
          }
        }
      }
    }
    long bytesWritten = result.addedDataFiles().stream().mapToLong(DataFile::fileSizeInBytes).sum();
    System.out.printf(
        "Flink rewriteDataFiles replaced %d data files with %d%n",
        result.deletedDataFiles().size(), result.addedDataFiles().size());
    return new Outcome(bytesRead, bytesWritten, 0);
  }

  /** Each current data file's delete files, by location (what a rewrite of it must read). */
  private static Map<String, FileCost> fileCosts(Table table) {
    table.refresh();
    Map<String, FileCost> costs = new HashMap<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        costs.put(task.file().location(), new FileCost(List.copyOf(task.deletes())));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return costs;
  }

  private record FileCost(List<DeleteFile> deletes) {}

  // ---- tables ----

  private static Table create(FloeCatalog catalog, String name, boolean partitioned) {
    PartitionSpec spec =
        partitioned
            ? PartitionSpec.builderFor(SCHEMA).identity("day").build()
            : PartitionSpec.unpartitioned();
    return catalog
        .catalog()
        .createTable(
            TableIdentifier.of("bench", name),
            SCHEMA,
            spec,
            Map.of(
                TableProperties.FORMAT_VERSION,
                "2",
                TableProperties.WRITE_TARGET_FILE_SIZE_BYTES,
                String.valueOf(TARGET_FILE_SIZE),
                TableProperties.SPLIT_OPEN_FILE_COST,
                String.valueOf(OPEN_FILE_COST),
                OptimizePolicy.SMALL_FILE_RATIO,
                "0.3"));
  }

  // ---- measuring ----

  private static Outcome scan(Table table) {
    return scan(table, Expressions.alwaysTrue());
  }

  private static Outcome scan(Table table, Expression filter) {
    table.refresh();
    long rows = 0;
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).where(filter).build()) {
      for (Record ignored : records) {
        rows++;
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new Outcome(0, 0, rows);
  }

  private static long files(Table table) {
    table.refresh();
    return Long.parseLong(table.currentSnapshot().summary().getOrDefault("total-data-files", "0"));
  }

  private static long deleteFiles(Table table) {
    table.refresh();
    return Long.parseLong(
        table.currentSnapshot().summary().getOrDefault("total-delete-files", "0"));
  }

  /**
   * {@code --floe.optimize.NAME=VALUE} parameters set that policy property on Floe's table only
   * (e.g. {@code --floe.optimize.deletes.rewrite-file-ratio=0} turns the equality-to-position
   * conversion off), to measure what each policy leaves behind.
   */
  private static void floePolicyOverrides(BenchmarkContext context, Table table) {
    Map<String, String> overrides = context.policyOverrides();
    if (overrides.isEmpty()) {
      return;
    }
    org.apache.iceberg.UpdateProperties update = table.updateProperties();
    overrides.forEach(update::set);
    update.commit();
    System.out.println("Floe's table policy overrides: " + overrides);
  }

  /**
   * What a scan of the table has to read, per class of partitions (the hot ones and the cold ones):
   * data files and their sizes, the delete files the scan applies (Iceberg's planning has already
   * dropped those whose sequence number rules them out) and the rows they cover, plus the Parquet
   * layout of one data file. The delete files in the table but applying to nothing are in the
   * total.
   */
  private static void printLayout(Table table, Set<String> hotDays) {
    table.refresh();
    Map<String, LayoutCounts> classes = new java.util.TreeMap<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        String day = task.file().partition().get(0, String.class);
        classes
            .computeIfAbsent(hotDays.contains(day) ? "hot" : "cold", name -> new LayoutCounts())
            .add(task);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    System.out.println(
        "  table: "
            + table.currentSnapshot().summary().get("total-data-files")
            + " data files, "
            + table.currentSnapshot().summary().get("total-delete-files")
            + " delete files (including those that apply to nothing)");
    classes.forEach((name, counts) -> System.out.println("  " + name + ": " + counts));
  }

  /** Layout counters of one class of partitions. */
  private static final class LayoutCounts {
    private final Set<String> partitions = new HashSet<>();
    private final List<Long> sizes = new ArrayList<>();
    private long records;
    private long filesWithDeletes;
    private final Map<String, DeleteFile> deletes = new HashMap<>();
    private String largest;
    private long largestBytes = -1;

    void add(FileScanTask task) {
      partitions.add(task.file().partition().get(0, String.class));
      sizes.add(task.file().fileSizeInBytes());
      records += task.file().recordCount();
      if (!task.deletes().isEmpty()) {
        filesWithDeletes++;
      }
      task.deletes().forEach(delete -> deletes.put(delete.location(), delete));
      if (task.file().fileSizeInBytes() > largestBytes) {
        largestBytes = task.file().fileSizeInBytes();
        largest = task.file().location();
      }
    }

    @Override
    public String toString() {
      List<Long> sorted = sizes.stream().sorted().toList();
      long positionFiles =
          deletes.values().stream()
              .filter(d -> d.content() == org.apache.iceberg.FileContent.POSITION_DELETES)
              .count();
      long positionRows =
          deletes.values().stream()
              .filter(d -> d.content() == org.apache.iceberg.FileContent.POSITION_DELETES)
              .mapToLong(DeleteFile::recordCount)
              .sum();
      long equalityRows =
          deletes.values().stream()
              .filter(d -> d.content() == org.apache.iceberg.FileContent.EQUALITY_DELETES)
              .mapToLong(DeleteFile::recordCount)
              .sum();
      return String.format(
          Locale.ROOT,
          "%d partitions, %d data files (%d records; KiB min %.0f, median %.0f, max %.0f, total"
              + " %.0f); scan applies %d position delete files (%d positions) and %d equality"
              + " delete files (%d keys) to %d data files; the largest file: %s",
          partitions.size(),
          sizes.size(),
          records,
          sorted.get(0) / 1024.0,
          sorted.get(sorted.size() / 2) / 1024.0,
          sorted.get(sorted.size() - 1) / 1024.0,
          sorted.stream().mapToLong(Long::longValue).sum() / 1024.0,
          positionFiles,
          positionRows,
          deletes.size() - positionFiles,
          equalityRows,
          filesWithDeletes,
          parquetLayout(largest));
    }
  }

  /** Row groups, codec and encodings of one local Parquet file, from its footer. */
  private static String parquetLayout(String location) {
    java.nio.file.Path path =
        java.nio.file.Path.of(
            location.startsWith("file:") ? java.net.URI.create(location).getPath() : location);
    try (org.apache.parquet.hadoop.ParquetFileReader reader =
        org.apache.parquet.hadoop.ParquetFileReader.open(
            new org.apache.parquet.io.LocalInputFile(path))) {
      List<org.apache.parquet.hadoop.metadata.BlockMetaData> blocks = reader.getRowGroups();
      StringBuilder out = new StringBuilder();
      out.append(blocks.size()).append(" row groups");
      if (!blocks.isEmpty()) {
        out.append(" of ").append(blocks.get(0).getRowCount()).append(" rows");
        for (org.apache.parquet.hadoop.metadata.ColumnChunkMetaData column :
            blocks.get(0).getColumns()) {
          out.append(", ")
              .append(column.getPath().toDotString())
              .append(' ')
              .append(column.getCodec())
              .append(' ')
              .append(column.getEncodings())
              .append(' ')
              .append(column.getTotalSize())
              .append('/')
              .append(column.getTotalUncompressedSize())
              .append(" B");
        }
      }
      out.append(", created by ").append(reader.getFooter().getFileMetaData().getCreatedBy());
      return out.toString();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String describe(Table table) {
    table.refresh();
    Map<String, String> summary = table.currentSnapshot().summary();
    return summary.get("total-data-files")
        + " data files, "
        + summary.get("total-delete-files")
        + " delete files, "
        + summary.get("total-records")
        + " records, "
        + summary.get("total-equality-deletes")
        + " equality-deleted keys, "
        + Long.parseLong(summary.get("total-files-size")) / (1024 * 1024)
        + " MiB";
  }

  private record Outcome(long bytesRead, long bytesWritten, long rows) {}

  private record Phase(Outcome outcome, double seconds, long peakHeapBytes) {}

  private interface Work {
    Outcome run() throws Exception;
  }

  private static Phase measure(Work work) throws Exception {
    System.gc();
    List<MemoryPoolMXBean> heap =
        ManagementFactory.getMemoryPoolMXBeans().stream()
            .filter(pool -> pool.getType() == MemoryType.HEAP)
            .toList();
    heap.forEach(MemoryPoolMXBean::resetPeakUsage);
    long start = System.nanoTime();
    Outcome outcome = work.run();
    double seconds = (System.nanoTime() - start) / 1e9;
    long peak = heap.stream().mapToLong(pool -> pool.getPeakUsage().getUsed()).sum();
    return new Phase(outcome, seconds, peak);
  }
}

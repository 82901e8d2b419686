package dev.floe.bench;

import dev.floe.core.config.CatalogSettings;
import dev.floe.core.optimize.OptimizePlan;
import dev.floe.core.optimize.OptimizePlanner;
import dev.floe.core.optimize.OptimizePolicy;
import dev.floe.core.optimize.OptimizeResult;
import dev.floe.core.optimize.TableState;
import dev.floe.iceberg.CatalogFactory;
import dev.floe.iceberg.FloeCatalog;
import dev.floe.iceberg.optimize.OptimizeScanner;
import dev.floe.iceberg.optimize.TableOptimizer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RewriteFiles;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
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
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;

/**
 * Floe's incremental optimize against a full rewrite of the same streaming-upsert table, in one
 * run: many old healthy partitions, a few hot ones with many small files and equality deletes.
 *
 * <p>Baseline: Iceberg's own generic full rewrite (every data file read with Iceberg's {@code
 * IcebergGenerics} reader, which applies equality deletes from an in-memory set, and replaced in
 * one {@code RewriteFiles} commit). The Flink {@code Actions.rewriteDataFiles()} baseline needs the
 * Iceberg Flink runtime, which the project does not depend on yet; this is the interim baseline.
 * With {@code --mode=memory}, a table with {@code --deleted-keys} equality-deleted keys (run it
 * with FLOE_JAVA_OPTS=-Xmx512m).
 */
final class OptimizeBenchmark implements Benchmark {

  private static final Schema SCHEMA =
      new Schema(
          List.of(
              Types.NestedField.required(1, "id", Types.LongType.get()),
              Types.NestedField.required(2, "day", Types.StringType.get()),
              Types.NestedField.optional(3, "payload", Types.StringType.get())),
          Set.of(1));

  private static final Schema KEY = TypeUtil.select(SCHEMA, Set.of(1));

  @Override
  public String name() {
    return "optimize";
  }

  @Override
  public String description() {
    return "Floe's incremental optimize vs Iceberg's generic full rewrite of a streaming-upsert"
        + " table (--partitions, --hot, --rows, --commits; --mode=memory --deleted-keys)";
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
    int partitions = context.intParameter("partitions", 30);
    int hot = context.intParameter("hot", 3);
    int rows = context.intParameter("rows", 20_000);
    int commits = context.intParameter("commits", 40);
    Table floeTable = create(catalog, "floe", true);
    Table baselineTable = create(catalog, "baseline", true);
    for (Table table : List.of(floeTable, baselineTable)) {
      fillStreamingTable(table, partitions, hot, rows, commits);
    }
    System.out.println("table: " + describe(floeTable));

    Phase floe = measure(() -> floeOptimize(context, floeTable));
    Phase baseline = measure(() -> fullRewrite(baselineTable));
    Phase floeScan = measure(() -> scan(floeTable));
    Phase baselineScan = measure(() -> scan(baselineTable));
    if (floeScan.outcome.rows != baselineScan.outcome.rows) {
      throw new IllegalStateException(
          "row counts differ: " + floeScan.outcome.rows + " vs " + baselineScan.outcome.rows);
    }
    List<BenchmarkResult.Measurement> measurements = new ArrayList<>();
    add(measurements, "Floe optimize", floe);
    add(measurements, "full rewrite (baseline)", baseline);
    measurements.add(
        new BenchmarkResult.Measurement("Floe: data files after", files(floeTable), "files"));
    measurements.add(
        new BenchmarkResult.Measurement(
            "baseline: data files after", files(baselineTable), "files"));
    measurements.add(new BenchmarkResult.Measurement("Floe: scan after", floeScan.seconds, "s"));
    measurements.add(
        new BenchmarkResult.Measurement("baseline: scan after", baselineScan.seconds, "s"));
    measurements.add(
        new BenchmarkResult.Measurement("rows after (both)", floeScan.outcome.rows, "rows"));
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
                "scan time after", floeScan.seconds, baselineScan.seconds, "s", "<= 1.0")));
  }

  private BenchmarkResult memory(BenchmarkContext context, FloeCatalog catalog) throws Exception {
    int deletedKeys = context.intParameter("deleted-keys", 5_000_000);
    int liveRows = context.intParameter("rows", 500_000);
    Table floeTable = create(catalog, "floe", false);
    fillDeleteHeavyTable(floeTable, deletedKeys, liveRows);
    Table baselineTable = create(catalog, "baseline", false);
    fillDeleteHeavyTable(baselineTable, deletedKeys, liveRows);
    System.out.println("table: " + describe(floeTable));
    System.out.printf("max heap %.0f MiB%n", Runtime.getRuntime().maxMemory() / (1024.0 * 1024));

    Phase floe = measure(() -> floeOptimize(context, floeTable));
    long floeRows = scan(floeTable).rows;
    Phase baseline;
    String baselineFailure = "";
    try {
      baseline = measure(() -> fullRewrite(baselineTable));
    } catch (OutOfMemoryError e) {
      baseline = null;
      baselineFailure = "OutOfMemoryError: " + e.getMessage();
    }
    System.gc();
    List<BenchmarkResult.Measurement> measurements = new ArrayList<>();
    add(measurements, "Floe optimize", floe);
    measurements.add(new BenchmarkResult.Measurement("Floe: rows after", floeRows, "rows"));
    measurements.add(new BenchmarkResult.Measurement("equality-deleted keys", deletedKeys, "keys"));
    if (baseline != null) {
      add(measurements, "full rewrite (baseline)", baseline);
    } else {
      System.out.println("baseline failed: " + baselineFailure);
      measurements.add(new BenchmarkResult.Measurement("baseline completed", 0, "(failed)"));
    }
    List<BenchmarkResult.Ratio> ratios = new ArrayList<>();
    if (baseline != null) {
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
    TableState state = new OptimizeScanner().scan(table.name(), table, policy);
    OptimizePlan plan = new OptimizePlanner().plan(state, policy, Instant.now());
    OptimizeResult result =
        new TableOptimizer(context.scratchDirectory().resolve("spill"))
            .execute(table, plan, policy);
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

  /** Reads every row with Iceberg's generic reader (deletes applied), rewrites every file. */
  private static Outcome fullRewrite(Table table) {
    table.refresh();
    long startingSnapshot = table.currentSnapshot().snapshotId();
    long bytesRead = 0;
    List<DataFile> oldData = new ArrayList<>();
    List<DeleteFile> oldDeletes = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks =
        table.newScan().useSnapshot(startingSnapshot).planFiles()) {
      Map<String, DeleteFile> deletes = new HashMap<>();
      for (FileScanTask task : tasks) {
        oldData.add(task.file());
        bytesRead += task.file().fileSizeInBytes();
        task.deletes().forEach(delete -> deletes.putIfAbsent(delete.location(), delete));
      }
      oldDeletes.addAll(deletes.values());
      bytesRead += deletes.values().stream().mapToLong(DeleteFile::fileSizeInBytes).sum();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    long target =
        Long.parseLong(
            table
                .properties()
                .getOrDefault(TableProperties.WRITE_TARGET_FILE_SIZE_BYTES, "536870912"));
    Map<String, Writer> writers = new HashMap<>();
    try (CloseableIterable<Record> rows =
        IcebergGenerics.read(table).useSnapshot(startingSnapshot).build()) {
      for (Record row : rows) {
        PartitionKey partition = new PartitionKey(table.spec(), table.schema());
        partition.partition(row);
        writers
            .computeIfAbsent(
                table.spec().partitionToPath(partition),
                path -> new Writer(table, partition.copy(), target))
            .write(row);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    List<DataFile> newData = new ArrayList<>();
    writers.values().forEach(writer -> newData.addAll(writer.finish()));
    RewriteFiles rewrite = table.newRewrite().validateFromSnapshot(startingSnapshot);
    oldData.forEach(rewrite::deleteFile);
    oldDeletes.forEach(rewrite::deleteFile);
    newData.forEach(rewrite::addFile);
    rewrite.commit();
    return new Outcome(bytesRead, newData.stream().mapToLong(DataFile::fileSizeInBytes).sum(), 0);
  }

  /** A rolling writer of one partition. */
  private static final class Writer {
    private final Table table;
    private final StructLike partition;
    private final long target;
    private final List<DataFile> files = new ArrayList<>();
    private DataWriter<Record> current;
    private long rows;

    Writer(Table table, StructLike partition, long target) {
      this.table = table;
      this.partition = partition;
      this.target = target;
    }

    void write(Record row) {
      if (current == null) {
        current =
            new GenericAppenderFactory(table.schema(), table.spec())
                .newDataWriter(newFile(table, partition), FileFormat.PARQUET, partition);
      }
      current.write(row);
      if (++rows % 1000 == 0 && current.length() >= target) {
        close();
      }
    }

    private void close() {
      try {
        current.close();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      files.add(current.toDataFile());
      current = null;
    }

    List<DataFile> finish() {
      if (current != null) {
        close();
      }
      return files;
    }
  }

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
                TableProperties.FORMAT_VERSION, "2",
                TableProperties.WRITE_TARGET_FILE_SIZE_BYTES, String.valueOf(1L << 20),
                OptimizePolicy.SMALL_FILE_RATIO, "0.3"));
  }

  /**
   * Old partitions: one bulk-loaded file each (healthy). Hot partitions: a bulk load, then {@code
   * commits} streaming upsert commits (equality deletes for updated and deleted keys, new rows),
   * each a small data file and a small delete file per hot partition.
   */
  private static void fillStreamingTable(
      Table table, int partitions, int hot, int rows, int commits) {
    Random random = new Random(1);
    for (int day = 0; day < partitions; day++) {
      List<Record> records = new ArrayList<>();
      for (int i = 0; i < rows; i++) {
        records.add(row(key(day, i), day, random));
      }
      table.newAppend().appendFile(writeData(table, records, day)).commit();
    }
    GenericAppenderFactory deletes =
        new GenericAppenderFactory(
            table, SCHEMA, table.spec(), table.properties(), new int[] {1}, KEY, null);
    for (int commit = 0; commit < commits; commit++) {
      RowDelta delta = table.newRowDelta();
      for (int day = partitions - hot; day < partitions; day++) {
        List<Record> upserts = new ArrayList<>();
        List<Long> deletedKeys = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
          long key = key(day, random.nextInt(rows));
          deletedKeys.add(key);
          if (random.nextInt(5) > 0) {
            upserts.add(row(key, day, random));
          }
        }
        delta.addDeletes(writeEqualityDeletes(table, deletes, deletedKeys, day));
        delta.addRows(writeData(table, upserts, day));
      }
      delta.commit();
    }
  }

  /**
   * One partition: {@code deletedKeys + liveRows} rows in files of about 500,000, then equality
   * deletes of the keys below {@code deletedKeys} in files of about 500,000. As with streaming
   * upserts of random keys, every file spans the whole key range (file {@code f} holds the keys
   * {@code = f mod files}), so column statistics cannot narrow which deletes apply to which file.
   */
  private static void fillDeleteHeavyTable(Table table, int deletedKeys, int liveRows) {
    Random random = new Random(2);
    int perFile = 500_000;
    long total = (long) deletedKeys + liveRows;
    int dataFiles = (int) ((total + perFile - 1) / perFile);
    for (int file = 0; file < dataFiles; file++) {
      List<Record> records = new ArrayList<>();
      for (long id = file; id < total; id += dataFiles) {
        records.add(row(id, 0, random));
      }
      table.newAppend().appendFile(writeData(table, records, -1)).commit();
    }
    GenericAppenderFactory deletes =
        new GenericAppenderFactory(
            table, SCHEMA, table.spec(), table.properties(), new int[] {1}, KEY, null);
    int deleteFiles = (deletedKeys + perFile - 1) / perFile;
    for (int file = 0; file < deleteFiles; file++) {
      List<Long> keys = new ArrayList<>();
      for (long id = file; id < deletedKeys; id += deleteFiles) {
        keys.add(id);
      }
      table.newRowDelta().addDeletes(writeEqualityDeletes(table, deletes, keys, -1)).commit();
    }
  }

  private static long key(int day, int i) {
    return (long) day * 100_000_000L + i;
  }

  private static Record row(long id, int day, Random random) {
    Record record = GenericRecord.create(SCHEMA);
    record.setField("id", id);
    record.setField("day", String.format("2026-%02d-%02d", 1 + day / 28 % 12, 1 + day % 28));
    record.setField("payload", Long.toHexString(random.nextLong()));
    return record;
  }

  private static StructLike partitionOf(Table table, int day) {
    if (day < 0 || table.spec().isUnpartitioned()) {
      return null;
    }
    PartitionKey partition = new PartitionKey(table.spec(), SCHEMA);
    partition.partition(row(0, day, new Random(0)));
    return partition;
  }

  private static EncryptedOutputFile newFile(Table table, StructLike partition) {
    String name = UUID.randomUUID() + ".parquet";
    String location =
        partition == null
            ? table.locationProvider().newDataLocation(name)
            : table.locationProvider().newDataLocation(table.spec(), partition, name);
    return table.encryption().encrypt(table.io().newOutputFile(location));
  }

  private static DataFile writeData(Table table, List<Record> records, int day) {
    StructLike partition = partitionOf(table, day);
    DataWriter<Record> writer =
        new GenericAppenderFactory(table.schema(), table.spec())
            .newDataWriter(newFile(table, partition), FileFormat.PARQUET, partition);
    try (writer) {
      records.forEach(writer::write);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return writer.toDataFile();
  }

  private static DeleteFile writeEqualityDeletes(
      Table table, GenericAppenderFactory factory, List<Long> keys, int day) {
    StructLike partition = partitionOf(table, day);
    EqualityDeleteWriter<Record> writer =
        factory.newEqDeleteWriter(newFile(table, partition), FileFormat.PARQUET, partition);
    try (writer) {
      for (long id : keys) {
        Record key = GenericRecord.create(KEY);
        key.setField("id", id);
        writer.write(key);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return writer.toDeleteFile();
  }

  // ---- measuring ----

  private static Outcome scan(Table table) {
    table.refresh();
    long rows = 0;
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
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

package dev.floe.bench;

import dev.floe.iceberg.CatalogFactory;
import dev.floe.iceberg.io.HadoopConf;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;

/**
 * What one sync checkpoint's commits cost on the embedded catalog: {@code --tables} tables each get
 * a row delta (one data file, one equality delete file) per round, {@code --threads} at a time as
 * the sync's committer commits them, with Floe's Hadoop configuration ({@link HadoopConf}: local
 * files without a {@code chmod} child process) against Hadoop's default one, in the same run.
 */
final class CheckpointCommitBenchmark implements Benchmark {

  private static final Schema SCHEMA =
      new Schema(
          List.of(
              Types.NestedField.required(1, "id", Types.LongType.get()),
              Types.NestedField.optional(2, "v", Types.StringType.get())),
          Set.of(1));

  @Override
  public String name() {
    return "checkpoint-commits";
  }

  @Override
  public String description() {
    return "one checkpoint's row-delta commits to many tables, Floe's Hadoop configuration vs"
        + " Hadoop's default (--tables, --threads, --rounds)";
  }

  @Override
  public BenchmarkResult run(BenchmarkContext context) throws Exception {
    int tables = context.intParameter("tables", 100);
    int threads = context.intParameter("threads", 12);
    int rounds = context.intParameter("rounds", 5);
    List<Double> floe = new ArrayList<>();
    List<Double> hadoop = new ArrayList<>();
    // interleaved, each on a new catalog, so a busy moment of the machine hits both alike; the
    // first pass of each warms the JIT up and is not counted
    for (int repeat = 0; repeat < 3; repeat++) {
      Path directory = context.scratchDirectory().resolve("pass" + repeat);
      List<Double> floeRounds =
          rounds(HadoopConf.create(), directory.resolve("floe"), tables, threads, rounds);
      List<Double> hadoopRounds =
          rounds(new Configuration(), directory.resolve("hadoop"), tables, threads, rounds);
      if (repeat > 0) {
        floe.addAll(floeRounds);
        hadoop.addAll(hadoopRounds);
      }
    }
    double floeMedian = median(floe);
    double hadoopMedian = median(hadoop);
    System.out.printf(
        java.util.Locale.ROOT,
        "%d tables, %d threads: rounds with Floe's configuration %s s, Hadoop's default %s s%n",
        tables,
        threads,
        floe,
        hadoop);
    return new BenchmarkResult(
        List.of(
            new BenchmarkResult.Measurement("round of commits, Floe, median", floeMedian, "s"),
            new BenchmarkResult.Measurement(
                "round of commits, Hadoop default, median", hadoopMedian, "s")),
        List.of(
            new BenchmarkResult.Ratio(
                "round of " + tables + " commits", floeMedian, hadoopMedian, "s", "")));
  }

  /** The seconds of each round after a first one that warms up. */
  private static List<Double> rounds(
      Configuration configuration, Path directory, int tables, int threads, int rounds)
      throws Exception {
    // no JVM-wide file system cache: each configuration gets its own local file system
    configuration.setBoolean("fs.file.impl.disable.cache", true);
    Map<String, String> properties = CatalogFactory.embeddedProperties(directory);
    java.nio.file.Files.createDirectories(directory);
    Catalog catalog = CatalogUtil.buildIcebergCatalog("bench", properties, configuration);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      ((SupportsNamespaces) catalog).createNamespace(Namespace.of("bench"));
      for (int table = 0; table < tables; table++) {
        catalog.createTable(
            TableIdentifier.of("bench", "t" + table),
            SCHEMA,
            PartitionSpec.unpartitioned(),
            Map.of(TableProperties.FORMAT_VERSION, "2"));
      }
      List<Double> seconds = new ArrayList<>();
      for (int round = 0; round <= rounds; round++) {
        long start = System.nanoTime();
        List<Future<?>> commits = new ArrayList<>();
        for (int table = 0; table < tables; table++) {
          TableIdentifier identifier = TableIdentifier.of("bench", "t" + table);
          int file = round;
          commits.add(pool.submit(() -> commit(catalog.loadTable(identifier), file)));
        }
        for (Future<?> commit : commits) {
          commit.get();
        }
        if (round > 0) {
          seconds.add(Math.round((System.nanoTime() - start) / 1e7) / 100.0);
        }
      }
      return seconds;
    } finally {
      pool.shutdownNow();
      if (catalog instanceof java.io.Closeable closeable) {
        closeable.close();
      }
    }
  }

  /** What the sync commits for a table a checkpoint changed: new rows and their deletes. */
  private static Void commit(Table table, int file) {
    DataFile rows =
        DataFiles.builder(table.spec())
            .withPath(table.location() + "/data/rows-" + file + ".parquet")
            .withFormat(FileFormat.PARQUET)
            .withFileSizeInBytes(4096)
            .withRecordCount(10)
            .build();
    DeleteFile deletes =
        FileMetadata.deleteFileBuilder(table.spec())
            .ofEqualityDeletes(1)
            .withPath(table.location() + "/data/deletes-" + file + ".parquet")
            .withFormat(FileFormat.PARQUET)
            .withFileSizeInBytes(1024)
            .withRecordCount(5)
            .build();
    table.newRowDelta().addRows(rows).addDeletes(deletes).commit();
    return null;
  }

  private static double median(List<Double> values) {
    List<Double> sorted = new ArrayList<>(values);
    java.util.Collections.sort(sorted);
    int middle = sorted.size() / 2;
    return sorted.size() % 2 == 1
        ? sorted.get(middle)
        : (sorted.get(middle - 1) + sorted.get(middle)) / 2;
  }
}

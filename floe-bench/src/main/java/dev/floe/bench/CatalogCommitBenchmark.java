package dev.floe.bench;

import dev.floe.core.config.CatalogSettings;
import dev.floe.core.config.CatalogType;
import dev.floe.iceberg.CatalogFactory;
import dev.floe.iceberg.FloeCatalog;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
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
 * Commit throughput and latency of Floe's embedded catalog (Iceberg's JdbcCatalog on SQLite, WAL)
 * against Iceberg's HadoopCatalog on the same disk, with concurrent writers: the embedded default
 * must not make commits the bottleneck of a sync job.
 */
final class CatalogCommitBenchmark implements Benchmark {

  private static final Schema SCHEMA =
      new Schema(
          List.of(
              Types.NestedField.required(1, "id", Types.LongType.get()),
              Types.NestedField.optional(2, "payload", Types.StringType.get())));

  @Override
  public String name() {
    return "catalog-commits";
  }

  @Override
  public String description() {
    return "commits/s of the embedded SQLite catalog vs Iceberg's HadoopCatalog (--writers, --commits)";
  }

  @Override
  public BenchmarkResult run(BenchmarkContext context) throws Exception {
    int writers = context.intParameter("writers", 2);
    int commits = context.intParameter("commits", 200);
    Path embeddedData = context.scratchDirectory().resolve("embedded");
    Path hadoopData = context.scratchDirectory().resolve("hadoop");
    Path warmHadoop = context.scratchDirectory().resolve("warm-hadoop");

    // Warm up the JIT and both catalogs once, then measure.
    measure(
        CatalogSettings.embedded(),
        context.scratchDirectory().resolve("warm-embedded"),
        writers,
        20);
    measure(hadoop(warmHadoop), warmHadoop, writers, 20);
    Run floe = measure(CatalogSettings.embedded(), embeddedData, writers, commits);
    Run baseline = measure(hadoop(hadoopData), hadoopData, writers, commits);

    List<BenchmarkResult.Measurement> measurements = new ArrayList<>();
    for (Run run : List.of(floe, baseline)) {
      String label = run == floe ? "embedded SQLite JdbcCatalog" : "HadoopCatalog (baseline)";
      measurements.add(
          new BenchmarkResult.Measurement(
              label + ": commits", run.latenciesMillis.length, "commits"));
      measurements.add(
          new BenchmarkResult.Measurement(label + ": wall time", run.wallSeconds, "s"));
      measurements.add(
          new BenchmarkResult.Measurement(label + ": throughput", run.throughput(), "commits/s"));
      measurements.add(
          new BenchmarkResult.Measurement(
              label + ": commit latency p50", run.percentile(0.50), "ms"));
      measurements.add(
          new BenchmarkResult.Measurement(
              label + ": commit latency p95", run.percentile(0.95), "ms"));
    }
    return new BenchmarkResult(
        measurements,
        List.of(
            new BenchmarkResult.Ratio(
                "throughput", floe.throughput(), baseline.throughput(), "commits/s", ""),
            new BenchmarkResult.Ratio(
                "commit latency p95", floe.percentile(0.95), baseline.percentile(0.95), "ms", "")));
  }

  private static CatalogSettings hadoop(Path dataDirectory) {
    return new CatalogSettings(
        CatalogType.HADOOP,
        "bench",
        Optional.empty(),
        Optional.of(dataDirectory.resolve("warehouse").toUri().toString()),
        Map.of());
  }

  private static Run measure(CatalogSettings settings, Path dataDirectory, int writers, int commits)
      throws Exception {
    try (FloeCatalog floeCatalog = new CatalogFactory().open(settings, dataDirectory)) {
      Catalog catalog = floeCatalog.catalog();
      Namespace namespace = Namespace.of("bench");
      if (catalog instanceof SupportsNamespaces namespaces
          && !namespaces.namespaceExists(namespace)) {
        namespaces.createNamespace(namespace);
      }
      ExecutorService pool = Executors.newFixedThreadPool(writers);
      try {
        long start = System.nanoTime();
        List<Future<long[]>> futures = new ArrayList<>();
        for (int writer = 0; writer < writers; writer++) {
          TableIdentifier identifier = TableIdentifier.of(namespace, "t" + writer);
          Table table =
              catalog.createTable(
                  identifier,
                  SCHEMA,
                  PartitionSpec.unpartitioned(),
                  Map.of(TableProperties.FORMAT_VERSION, "2"));
          futures.add(pool.submit(() -> commitLoop(table, commits)));
        }
        List<Long> all = new ArrayList<>();
        for (Future<long[]> future : futures) {
          for (long nanos : future.get()) {
            all.add(nanos);
          }
        }
        double wallSeconds = (System.nanoTime() - start) / 1e9;
        double[] millis = all.stream().mapToDouble(nanos -> nanos / 1e6).sorted().toArray();
        return new Run(wallSeconds, millis);
      } finally {
        pool.shutdownNow();
      }
    }
  }

  private static long[] commitLoop(Table table, int commits) {
    long[] latencies = new long[commits];
    for (int i = 0; i < commits; i++) {
      long start = System.nanoTime();
      table
          .newFastAppend()
          .appendFile(
              DataFiles.builder(table.spec())
                  .withPath(table.location() + "/data/f" + i + ".parquet")
                  .withFormat(FileFormat.PARQUET)
                  .withFileSizeInBytes(1024)
                  .withRecordCount(1)
                  .build())
          .commit();
      latencies[i] = System.nanoTime() - start;
    }
    return latencies;
  }

  private record Run(double wallSeconds, double[] latenciesMillis) {
    double throughput() {
      return latenciesMillis.length / wallSeconds;
    }

    double percentile(double quantile) {
      double[] sorted = Arrays.copyOf(latenciesMillis, latenciesMillis.length);
      Arrays.sort(sorted);
      return sorted[Math.min(sorted.length - 1, (int) Math.ceil(quantile * sorted.length) - 1)];
    }
  }
}

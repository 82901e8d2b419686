package dev.floe.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * {@code ./bench [NAME [--param=value ...]]}: runs one benchmark and prints the machine, the raw
 * figures and the ratios against the baseline measured in the same run.
 */
public final class BenchMain {

  private static final List<Benchmark> BENCHMARKS =
      List.of(
          new CatalogCommitBenchmark(),
          new CheckpointCommitBenchmark(),
          new SyncSnapshotBenchmark(),
          new SyncFreshnessBenchmark(),
          new SyncTablesBenchmark(),
          new KafkaUpsertBenchmark(),
          new OptimizeBenchmark(),
          new KeeperRefreshBenchmark(),
          new KeeperLiveBenchmark(),
          new WorkersBenchmark(),
          new OrphanPlanningBenchmark(),
          new VerifyBenchmark());

  private BenchMain() {}

  public static void main(String[] args) throws Exception {
    if (args.length == 0 || args[0].equals("--help") || args[0].equals("-h")) {
      System.out.println("Usage: ./bench NAME [--param=value ...]");
      System.out.println();
      System.out.println("Benchmarks:");
      for (Benchmark benchmark : BENCHMARKS) {
        System.out.printf("  %-18s %s%n", benchmark.name(), benchmark.description());
      }
      System.exit(args.length == 0 ? 2 : 0);
    }
    Optional<Benchmark> benchmark =
        BENCHMARKS.stream().filter(candidate -> candidate.name().equals(args[0])).findFirst();
    if (benchmark.isEmpty()) {
      System.err.println(
          "Unknown benchmark '"
              + args[0]
              + "'. Run ./bench --help for the list: "
              + BENCHMARKS.stream().map(Benchmark::name).toList()
              + ".");
      System.exit(2);
    }
    Map<String, String> parameters = new LinkedHashMap<>();
    for (int i = 1; i < args.length; i++) {
      String arg = args[i];
      int equals = arg.indexOf('=');
      if (!arg.startsWith("--") || equals < 0) {
        System.err.println("Parameters are --name=value, got '" + arg + "'.");
        System.exit(2);
      }
      parameters.put(arg.substring(2, equals), arg.substring(equals + 1));
    }
    Path scratch = Files.createTempDirectory("floe-bench-");
    try {
      System.out.println(
          "Floe benchmark: " + benchmark.get().name() + " - " + benchmark.get().description());
      System.out.println("machine: " + machine());
      System.out.println("parameters: " + (parameters.isEmpty() ? "defaults" : parameters));
      BenchmarkResult result = benchmark.get().run(new BenchmarkContext(scratch, parameters));
      print(result);
    } finally {
      deleteRecursively(scratch);
    }
  }

  private static void print(BenchmarkResult result) {
    System.out.println();
    System.out.println("raw figures:");
    for (BenchmarkResult.Measurement measurement : result.measurements()) {
      System.out.printf(
          Locale.ROOT,
          "  %-60s %12.2f %s%n",
          measurement.name(),
          measurement.value(),
          measurement.unit());
    }
    System.out.println();
    System.out.println("ratios (Floe / baseline, measured in this run):");
    for (BenchmarkResult.Ratio ratio : result.ratios()) {
      System.out.printf(
          Locale.ROOT,
          "  %-40s %8.3f  (%.2f vs %.2f %s)%s%n",
          ratio.name(),
          ratio.value(),
          ratio.floe(),
          ratio.baseline(),
          ratio.unit(),
          ratio.goal().isEmpty() ? "" : "  goal " + ratio.goal());
    }
  }

  static String machine() {
    Runtime runtime = Runtime.getRuntime();
    return String.format(
        Locale.ROOT,
        "%d cores, %.1f GiB memory, max heap %.1f GiB, Java %s (%s), %s %s",
        runtime.availableProcessors(),
        totalMemoryBytes() / (1024.0 * 1024 * 1024),
        runtime.maxMemory() / (1024.0 * 1024 * 1024),
        System.getProperty("java.version"),
        System.getProperty("java.vm.name"),
        System.getProperty("os.name"),
        System.getProperty("os.arch"));
  }

  private static long totalMemoryBytes() {
    if (ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.OperatingSystemMXBean os) {
      return os.getTotalMemorySize();
    }
    return -1;
  }

  private static void deleteRecursively(Path path) throws IOException {
    try (Stream<Path> files = Files.walk(path)) {
      files.sorted(Comparator.reverseOrder()).forEach(file -> file.toFile().delete());
    }
  }
}

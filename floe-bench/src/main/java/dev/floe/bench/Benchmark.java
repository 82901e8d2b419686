package dev.floe.bench;

/**
 * One benchmark: measures Floe against a baseline in the same run and on the same machine, so the
 * ratio means something whatever the machine. Benchmarks are not tests; run them with {@code
 * ./bench NAME}.
 */
interface Benchmark {

  /** The name {@code ./bench} takes. */
  String name();

  /** One line: what is measured against what. */
  String description();

  /** Runs the benchmark; blocks until done. */
  BenchmarkResult run(BenchmarkContext context) throws Exception;
}

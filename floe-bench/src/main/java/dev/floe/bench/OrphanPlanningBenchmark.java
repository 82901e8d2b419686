package dev.floe.bench;

import dev.floe.core.maintenance.ListedFile;
import dev.floe.core.maintenance.OrphanPlan;
import dev.floe.core.maintenance.OrphanPlanner;
import dev.floe.core.maintenance.ReachableLocations;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Orphan planning over a large listing: Floe's planner (every location normalized, scheme and
 * authority matched, conflicts detected) against the naive exact-string set difference, which is
 * faster but wrong whenever the listing spells paths differently from the metadata.
 */
final class OrphanPlanningBenchmark implements Benchmark {

  @Override
  public String name() {
    return "orphan-planning";
  }

  @Override
  public String description() {
    return "orphan planning of N listed files vs exact-string set difference (--files)";
  }

  @Override
  public BenchmarkResult run(BenchmarkContext context) {
    int files = context.intParameter("files", 1_000_000);
    Instant now = Instant.parse("2026-11-29T12:00:00Z");
    Instant old = now.minus(Duration.ofDays(10));
    List<String> reachable = new ArrayList<>(files);
    List<ListedFile> listed = new ArrayList<>(files);
    for (int i = 0; i < files; i++) {
      String path = "/warehouse/shop/orders/data/day=" + (i % 365) + "/" + i + "-00001.parquet";
      // Metadata writes file:///, a Hadoop listing writes file:/ (the case of apache/iceberg#4194).
      listed.add(new ListedFile("file:" + path, 1024, old));
      if (i % 2 == 0) {
        reachable.add("file://" + path);
      }
    }
    OrphanPlanner planner = new OrphanPlanner();
    // Warm up both.
    for (int i = 0; i < 2; i++) {
      planner.plan(listed, new ReachableLocations(reachable), Duration.ofDays(3), now);
      naive(listed, reachable);
    }
    long start = System.nanoTime();
    OrphanPlan plan =
        planner.plan(listed, new ReachableLocations(reachable), Duration.ofDays(3), now);
    double floeMillis = (System.nanoTime() - start) / 1e6;
    start = System.nanoTime();
    int naiveOrphans = naive(listed, reachable);
    double naiveMillis = (System.nanoTime() - start) / 1e6;

    return new BenchmarkResult(
        List.of(
            new BenchmarkResult.Measurement("listed files", files, "files"),
            new BenchmarkResult.Measurement("Floe planner: time", floeMillis, "ms"),
            new BenchmarkResult.Measurement(
                "Floe planner: orphans found", plan.orphans().size(), "files"),
            new BenchmarkResult.Measurement(
                "exact-string difference (baseline): time", naiveMillis, "ms"),
            new BenchmarkResult.Measurement(
                "exact-string difference (baseline): orphans found (live files among them)",
                naiveOrphans,
                "files")),
        List.of(new BenchmarkResult.Ratio("planning time", floeMillis, naiveMillis, "ms", "")));
  }

  private static int naive(List<ListedFile> listed, List<String> reachable) {
    Set<String> referenced = new HashSet<>(reachable);
    int orphans = 0;
    for (ListedFile file : listed) {
      if (!referenced.contains(file.location())) {
        orphans++;
      }
    }
    return orphans;
  }
}

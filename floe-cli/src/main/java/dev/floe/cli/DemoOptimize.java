package dev.floe.cli;

import dev.floe.core.optimize.OptimizeFailures;
import dev.floe.core.optimize.OptimizePlan;
import dev.floe.core.optimize.OptimizePolicy;
import dev.floe.core.optimize.OptimizeResult;
import dev.floe.core.optimize.PartitionTask;
import dev.floe.iceberg.FloeCatalog;
import dev.floe.iceberg.optimize.OptimizeJob;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Locale;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * The demo's optimize part: the synced orders table (small files and equality deletes from the
 * streaming sync) before and after one run of the optimize job that {@code floe optimize} and the
 * keeper run.
 */
final class DemoOptimize {

  static final String TABLE = "orders";

  private DemoOptimize() {}

  /** Returns whether the run succeeded (nothing to do counts as success). */
  static boolean run(FloeCatalog catalog, Path spillRoot, PrintWriter out) {
    TableIdentifier identifier = TableIdentifier.of(DemoSync.NAMESPACE, TABLE);
    String name = identifier.toString();
    Table table = catalog.catalog().loadTable(identifier);
    OptimizePolicy policy = OptimizePolicy.fromProperties(name, table.properties());
    OptimizeJob job = new OptimizeJob(spillRoot);
    OptimizeJob.Preview preview =
        job.preview(name, table, policy, OptimizeFailures.none(), Instant.now());
    long rowsBefore = DemoSync.lakeRows(catalog, TABLE);
    OptimizeCommand.printHealth(out, "    before: health", preview.state());
    OptimizePlan plan = preview.plan();
    for (PartitionTask task : plan.tasks()) {
      out.printf(
          Locale.ROOT,
          "    plan: %s %s, %d files in, about %d out (%s)%n",
          task.kind().displayName(),
          task.partition().displayName(),
          task.filesIn(),
          task.expectedFilesOut(),
          task.reason());
    }
    if (plan.isEmpty()) {
      out.println("    nothing to do: the table is healthy");
      return true;
    }
    long started = System.nanoTime();
    OptimizeResult result = job.run(table, preview);
    double seconds = (System.nanoTime() - started) / 1e9;
    table.refresh();
    OptimizeCommand.printHealth(out, "    after:  health", job.scan(name, table, policy));
    long rowsAfter = DemoSync.lakeRows(catalog, TABLE);
    out.printf(
        Locale.ROOT,
        "    %s in %.1f s; rows %d before, %d after%n",
        result.succeeded() ? "optimized" : "optimize failed",
        seconds,
        rowsBefore,
        rowsAfter);
    return result.succeeded() && rowsBefore == rowsAfter;
  }
}

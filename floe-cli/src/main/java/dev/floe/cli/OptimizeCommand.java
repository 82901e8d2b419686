package dev.floe.cli;

import dev.floe.core.config.FloeSettings;
import dev.floe.core.error.FloeException;
import dev.floe.core.optimize.DeferredPartition;
import dev.floe.core.optimize.OptimizeFailures;
import dev.floe.core.optimize.OptimizePlan;
import dev.floe.core.optimize.OptimizePlanner;
import dev.floe.core.optimize.OptimizePolicy;
import dev.floe.core.optimize.OptimizeResult;
import dev.floe.core.optimize.PartitionOutcome;
import dev.floe.core.optimize.PartitionState;
import dev.floe.core.optimize.PartitionTask;
import dev.floe.core.optimize.TableState;
import dev.floe.core.state.TableKey;
import dev.floe.core.state.TableStateStore;
import dev.floe.iceberg.FloeCatalog;
import dev.floe.iceberg.optimize.OptimizeJob;
import dev.floe.iceberg.optimize.OptimizeTableCheck;
import java.io.PrintWriter;
import java.time.Clock;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code floe optimize NS.TABLE}: one incremental compaction run on one table. */
@Command(
    name = "optimize",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Measure a format-v2 Iceberg table's health, plan an incremental compaction (small files"
          + " bin-packed, position and equality deletes applied, worst partitions first, within"
          + " a byte budget), print the plan, run it and print what changed. Streaming writers"
          + " keep writing meanwhile. Thresholds come from the table's floe.optimize.*"
          + " properties (docs/optimize.md).",
      "Exit code: 0 done (or nothing to do), 1 a file group failed (retried on a later run),"
          + " 2 bad input (the table is left untouched)."
    })
final class OptimizeCommand implements Callable<Integer> {

  private static final Pattern BYTES =
      Pattern.compile(
          "(\\d+)\\s*(|b|k|kb|kib|m|mb|mib|g|gb|gib|t|tb|tib)", Pattern.CASE_INSENSITIVE);

  @ParentCommand FloeCommand floe;

  @Parameters(index = "0", paramLabel = "NS.TABLE", description = "The table, e.g. shop.orders.")
  String table;

  @Option(names = "--dry-run", description = "Print the health and the plan; change nothing.")
  boolean dryRun;

  @Option(
      names = "--budget",
      paramLabel = "BYTES",
      description =
          "Bytes this run may read, e.g. 500m or 10g (default: floe.optimize.budget-bytes, 10g).")
  String budget;

  @Override
  public Integer call() {
    PrintWriter out = floe.spec.commandLine().getOut();
    FloeSettings settings = floe.settings();
    TableIdentifier identifier = identifier(table);
    Clock clock = floe.context().clock();
    FloeCatalog catalog = floe.context().catalog();
    if (!catalog.catalog().tableExists(identifier)) {
      throw FloeException.badInput(
          "Table "
              + identifier
              + " does not exist in catalog '"
              + catalog.name()
              + "'. Give it as NAMESPACE.TABLE, e.g. shop.orders.");
    }
    Table loaded = catalog.catalog().loadTable(identifier);
    String name = identifier.toString();
    OptimizeTableCheck.check(name, loaded);
    OptimizePolicy policy = OptimizePolicy.fromProperties(name, loaded.properties());
    if (budget != null) {
      policy = policy.withBudgetBytes(parseBytes(budget));
    }
    TableStateStore stateStore = floe.context().stateStore();
    TableKey key = new TableKey(catalog.name(), name);
    OptimizeFailures failures = stateStore.optimizeFailures(key);

    OptimizeJob job = new OptimizeJob(floe.context().spillDirectory());
    OptimizeJob.Preview preview = job.preview(name, loaded, policy, failures, clock.instant());
    TableState before = preview.state();
    out.println(
        "Table "
            + name
            + before
                .snapshot()
                .map(snapshot -> " at snapshot " + snapshot.snapshotId())
                .orElse(" (no snapshot yet)"));
    printHealth(out, "Health", before);
    if (!policy.enabled()) {
      out.println(
          "Optimize is disabled for this table ("
              + OptimizePolicy.ENABLED
              + "=false); nothing to do.");
      return ExitCodes.OK;
    }
    OptimizePlan plan = preview.plan();
    printPlan(out, plan);
    if (plan.isEmpty()) {
      out.println("Nothing to do.");
      return ExitCodes.OK;
    }
    if (dryRun) {
      out.println("Dry run: nothing was changed.");
      return ExitCodes.OK;
    }
    out.flush();
    OptimizeResult result = job.run(loaded, preview);
    stateStore.saveOptimizeFailures(key, result.updateFailures(failures, clock.instant()));
    printResult(out, result);
    loaded.refresh();
    printHealth(out, "After", job.scan(name, loaded, policy));
    return result.succeeded() ? ExitCodes.OK : ExitCodes.PROBLEM_FOUND;
  }

  static TableIdentifier identifier(String text) {
    if (text == null || !text.contains(".") || text.startsWith(".") || text.endsWith(".")) {
      throw FloeException.badInput(
          "'" + text + "' is not a table name. Give it as NAMESPACE.TABLE, e.g. shop.orders.");
    }
    return TableIdentifier.parse(text);
  }

  static long parseBytes(String text) {
    Matcher matcher = BYTES.matcher(text.trim());
    if (!matcher.matches()) {
      throw FloeException.badInput(
          "--budget must be a number of bytes, optionally with a unit (k, m, g, t), e.g. 500m or"
              + " 10g; got '"
              + text
              + "'.");
    }
    String unit = matcher.group(2).toLowerCase(Locale.ROOT);
    int shift =
        unit.isEmpty() || unit.equals("b")
            ? 0
            : switch (unit.charAt(0)) {
              case 'k' -> 10;
              case 'm' -> 20;
              case 'g' -> 30;
              default -> 40;
            };
    long value;
    try {
      value = Long.parseLong(matcher.group(1));
    } catch (NumberFormatException e) {
      value = -1;
    }
    if (value <= 0 || value > (Long.MAX_VALUE >> shift)) {
      throw FloeException.badInput(
          "--budget must be at least 1 byte and at most 8 EiB; got '" + text + "'.");
    }
    return value << shift;
  }

  static void printHealth(PrintWriter out, String label, TableState state) {
    PartitionState totals = state.totals();
    out.printf(
        Locale.ROOT,
        "%s %d/100: %d data files (%d small, %d large) in %d partitions, %s; %d delete files (%d"
            + " position, %d equality), delete ratio %.2f%n",
        label,
        state.healthScore(),
        totals.dataFiles(),
        totals.smallFiles(),
        totals.largeFiles(),
        state.partitions().size(),
        OptimizePlanner.bytes(totals.dataBytes()),
        totals.deleteFiles(),
        totals.positionDeleteFiles(),
        totals.equalityDeleteFiles(),
        totals.deleteRatio());
  }

  private static void printPlan(PrintWriter out, OptimizePlan plan) {
    out.println();
    out.printf(
        "Plan: %d partitions, %s of a %s budget, target file size %s%n",
        plan.tasks().size(),
        OptimizePlanner.bytes(plan.plannedBytes()),
        OptimizePlanner.bytes(plan.budgetBytes()),
        OptimizePlanner.bytes(plan.targetFileSize()));
    if (!plan.tasks().isEmpty()) {
      int width = partitionWidth(plan);
      out.printf(
          "  %-" + width + "s  %-7s  %6s  %9s  %9s  %6s  %s%n",
          "PARTITION",
          "KIND",
          "HEALTH",
          "FILES IN",
          "BYTES IN",
          "OUT",
          "WHY");
      for (PartitionTask task : plan.tasks()) {
        out.printf(
            "  %-" + width + "s  %-7s  %6d  %9d  %9s  %6d  %s%n",
            task.partition().displayName(),
            task.kind().displayName(),
            task.healthScore(),
            task.filesIn(),
            OptimizePlanner.bytes(task.bytesIn()),
            task.expectedFilesOut(),
            task.reason());
      }
    }
    if (!plan.deferred().isEmpty()) {
      out.println("Left for a later run:");
      for (DeferredPartition deferred : plan.deferred()) {
        out.println("  " + deferred.partition().displayName() + ": " + deferred.reason());
      }
    }
  }

  private static int partitionWidth(OptimizePlan plan) {
    int width = "PARTITION".length();
    for (PartitionTask task : plan.tasks()) {
      width = Math.max(width, task.partition().displayName().length());
    }
    return width;
  }

  private static void printResult(PrintWriter out, OptimizeResult result) {
    out.println();
    out.println("Result:");
    for (PartitionOutcome outcome : result.partitions()) {
      out.printf(
          "  %s: %s, %d/%d groups committed; %d data files -> %d, %d converted to position"
              + " deletes, %d delete files added, %d removed; %s read, %s written, %d rows"
              + " deleted%n",
          outcome.partition().displayName(),
          outcome.kind().displayName(),
          outcome.committed(),
          outcome.groups(),
          outcome.filesRewritten(),
          outcome.filesAdded(),
          outcome.filesConverted(),
          outcome.deleteFilesAdded(),
          outcome.deleteFilesRemoved(),
          OptimizePlanner.bytes(outcome.bytesRead()),
          OptimizePlanner.bytes(outcome.bytesWritten()),
          outcome.rowsDeleted());
      for (String problem : outcome.problems()) {
        out.println("    problem: " + problem);
      }
    }
  }
}

package dev.floe.cli;

import dev.floe.core.maintenance.MaintenancePolicy;
import dev.floe.iceberg.maintenance.SnapshotExpirer;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import org.apache.iceberg.Table;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code floe expire NS.TABLE}: expire old snapshots and delete the files only they reached. */
@Command(
    name = "expire",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Expire old snapshots of a table and delete the files no remaining snapshot reaches.",
      "Never expires the current snapshot, a branch or tag head, the newest"
          + " floe.expire.min-snapshots (default 10), snapshots younger than"
          + " floe.expire.max-snapshot-age (default 1d), or a Flink job's latest checkpointed"
          + " snapshot and the history down to it. See docs/maintenance.md.",
      "Exit code: 0 done, 2 refused (unknown table, gc.enabled=false, bad option)."
    })
final class ExpireCommand implements Callable<Integer> {

  @ParentCommand FloeCommand floe;

  @Parameters(paramLabel = "NS.TABLE", description = "The table, e.g. shop.orders.")
  String table;

  @Option(
      names = "--dry-run",
      description = "Print what would be expired and deleted; change nothing.")
  boolean dryRun;

  @Option(
      names = "--older-than",
      paramLabel = "DURATION",
      description = "Expire snapshots older than this (default: floe.expire.max-snapshot-age).")
  String olderThan;

  @Option(
      names = "--retain-last",
      paramLabel = "N",
      description = "Always keep the newest N snapshots (default: floe.expire.min-snapshots).")
  Integer retainLast;

  @Override
  public Integer call() {
    PrintWriter out = floe.spec.commandLine().getOut();
    FloeContext context = floe.context();
    Table loaded = context.table(table);
    MaintenancePolicy policy = MaintenancePolicy.fromProperties(table, loaded.properties());
    policy =
        MaintenanceSupport.duration("--older-than", olderThan)
            .map(policy::withMaxSnapshotAge)
            .orElse(policy);
    policy =
        MaintenanceSupport.atLeast("--retain-last", retainLast, 1)
            .map(policy::withMinSnapshots)
            .orElse(policy);
    SnapshotExpirer expirer = new SnapshotExpirer();
    SnapshotExpirer.Preview preview =
        expirer.preview(table, loaded, policy, context.clock().instant());
    return MaintenanceSupport.printThenCommit(out, expirer, loaded, preview, dryRun);
  }
}

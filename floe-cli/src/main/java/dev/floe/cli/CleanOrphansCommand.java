package dev.floe.cli;

import dev.floe.core.maintenance.MaintenanceAction;
import dev.floe.core.maintenance.MaintenancePolicy;
import dev.floe.iceberg.maintenance.OrphanFileCleaner;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.apache.iceberg.Table;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code floe clean-orphans NS.TABLE}: delete old files nothing in the table references. */
@Command(
    name = "clean-orphans",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Delete files under the table location (data and metadata) that no snapshot, branch, tag,"
          + " statistics file or metadata file references, and that are older than"
          + " floe.orphan.min-age (default 3d). Refuses ages below 1h without --force, and"
          + " deletes nothing when a listed path matches a live file under another scheme or"
          + " authority. See docs/maintenance.md.",
      "Exit code: 0 done, 1 refused because of path conflicts, 2 refused (unknown table,"
          + " gc.enabled=false, unsafe age, bad option)."
    })
final class CleanOrphansCommand implements Callable<Integer> {

  @ParentCommand FloeCommand floe;

  @Parameters(paramLabel = "NS.TABLE", description = "The table, e.g. shop.orders.")
  String table;

  @Option(
      names = "--dry-run",
      description = "Print what would be deleted (paths, count, bytes); change nothing.")
  boolean dryRun;

  @Option(
      names = "--older-than",
      paramLabel = "DURATION",
      description = "Only delete files older than this (default: floe.orphan.min-age, 3d).")
  String olderThan;

  @Option(
      names = "--force",
      description = "Allow --older-than below 1h (only when no writer can be running).")
  boolean force;

  @Override
  public Integer call() {
    PrintWriter out = floe.spec.commandLine().getOut();
    FloeContext context = floe.context();
    Table loaded = context.table(table);
    MaintenancePolicy policy = MaintenancePolicy.fromProperties(table, loaded.properties());
    Optional<Duration> age = MaintenanceSupport.duration("--older-than", olderThan);
    policy =
        MaintenanceSupport.orphanPolicy(table, policy, MaintenanceAction.CLEAN_ORPHANS, age, force);
    OrphanFileCleaner cleaner = new OrphanFileCleaner();
    OrphanFileCleaner.Preview preview =
        cleaner.preview(table, loaded, policy, context.clock().instant());
    return MaintenanceSupport.printThenCommit(out, cleaner, loaded, preview, dryRun);
  }
}

package dev.floe.cli;

import dev.floe.iceberg.maintenance.DanglingDeleteRemover;
import dev.floe.iceberg.maintenance.MaintenanceOutcome;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import org.apache.iceberg.Table;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code floe remove-dangling-deletes NS.TABLE}: drop delete files that apply to nothing. */
@Command(
    name = "remove-dangling-deletes",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Remove, with a commit, delete files that no longer apply to any live data file (their"
          + " data was compacted or deleted). The files themselves go when expiry removes the"
          + " last snapshot that references them. See docs/maintenance.md.",
      "Exit code: 0 done, 2 refused (unknown table, bad option)."
    })
final class RemoveDanglingDeletesCommand implements Callable<Integer> {

  @ParentCommand FloeCommand floe;

  @Parameters(paramLabel = "NS.TABLE", description = "The table, e.g. shop.orders.")
  String table;

  @Option(
      names = "--dry-run",
      description = "Print the delete files that would be removed; change nothing.")
  boolean dryRun;

  @Override
  public Integer call() {
    PrintWriter out = floe.spec.commandLine().getOut();
    Table loaded = floe.context().table(table);
    DanglingDeleteRemover remover = new DanglingDeleteRemover();
    DanglingDeleteRemover.Preview preview = remover.preview(table, loaded);
    MaintenanceSupport.printPreview(out, preview.preview(), dryRun);
    if (dryRun) {
      return ExitCodes.OK;
    }
    out.flush();
    MaintenanceOutcome outcome = remover.commit(loaded, preview);
    out.println(
        outcome.committed()
            ? "Done: committed the removal of "
                + outcome.preview().filesToDelete().size()
                + " delete file(s)."
            : "Done: nothing to remove.");
    return ExitCodes.OK;
  }
}

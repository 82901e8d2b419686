package dev.floe.cli;

import dev.floe.core.maintenance.HistoryObservation;
import dev.floe.core.maintenance.HistoryVerdict;
import dev.floe.core.maintenance.ObservedSnapshot;
import dev.floe.core.state.TableKey;
import dev.floe.iceberg.maintenance.HistoryChecker;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import org.apache.iceberg.Table;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code floe check-history NS.TABLE}: has the table's history been rewound since last time? */
@Command(
    name = "check-history",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Compare the table's history with the observation stored by the previous run (under"
          + " <data-dir>/state/history/), report snapshots that dropped out of history (a rewind,"
          + " e.g. stale metadata written back over newer metadata), and store the new"
          + " observation. See docs/maintenance.md.",
      "Exit code: 0 history intact (or first observation), 1 rewound or unverifiable, 2 bad"
          + " input."
    })
final class CheckHistoryCommand implements Callable<Integer> {

  @ParentCommand FloeCommand floe;

  @Parameters(paramLabel = "NS.TABLE", description = "The table, e.g. shop.orders.")
  String table;

  @Override
  public Integer call() {
    PrintWriter out = floe.spec.commandLine().getOut();
    FloeContext context = floe.context();
    Table loaded = context.table(table);
    TableKey key = context.key(table);
    HistoryChecker.Check check =
        new HistoryChecker(context.stateStore()).check(key, loaded, context.clock().instant());
    HistoryObservation current = check.current();
    String now =
        current.currentSnapshotId().isPresent()
            ? "current snapshot "
                + current.currentSnapshotId().getAsLong()
                + ", "
                + current.ancestry().size()
                + " snapshot(s) in its history"
            : "no snapshot yet";
    if (check.verdict().isEmpty()) {
      out.println(
          "Table "
              + table
              + ": first observation ("
              + now
              + "); recorded in "
              + context.stateStore().historyLocation(key)
              + ".");
      return ExitCodes.OK;
    }
    HistoryVerdict verdict = check.verdict().get();
    switch (verdict.status()) {
      case INTACT -> {
        out.println("Table " + table + ": " + verdict.explanation() + " (" + now + ").");
        return ExitCodes.OK;
      }
      case REWOUND -> {
        out.println("Table " + table + ": REWOUND: " + verdict.explanation() + ".");
        out.println("Lost snapshots (newest first):");
        for (ObservedSnapshot lost : verdict.lost()) {
          out.println(
              "  "
                  + lost.id()
                  + " committed "
                  + lost.committedAt()
                  + ", "
                  + MaintenanceSupport.records(lost.addedRecords())
                  + " added, "
                  + MaintenanceSupport.records(lost.totalRecords())
                  + " in the table");
        }
        out.println(
            "The lost commits' metadata files may still be in the table's metadata directory;"
                + " previous observation: "
                + check.previous().map(HistoryObservation::metadataLocation).orElse("?")
                + ". The next run compares with the rewound state.");
        return ExitCodes.PROBLEM_FOUND;
      }
      default -> {
        out.println(
            "Table " + table + ": history cannot be verified: " + verdict.explanation() + ".");
        return ExitCodes.PROBLEM_FOUND;
      }
    }
  }
}

package dev.floe.cli;

import dev.floe.core.error.FloeException;
import dev.floe.core.maintenance.DurationText;
import dev.floe.core.maintenance.FileToDelete;
import dev.floe.core.maintenance.MaintenanceAction;
import dev.floe.core.maintenance.MaintenancePolicy;
import dev.floe.core.maintenance.MaintenancePreview;
import dev.floe.core.maintenance.SnapshotFacts;
import dev.floe.iceberg.maintenance.MaintenanceJob;
import dev.floe.iceberg.maintenance.MaintenanceOutcome;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Optional;
import org.apache.iceberg.Table;

/** What the maintenance commands share: their options, previewing then committing, printing. */
final class MaintenanceSupport {

  private MaintenanceSupport() {}

  static Optional<Duration> duration(String option, String value) {
    if (value == null) {
      return Optional.empty();
    }
    return Optional.of(
        DurationText.parse(value)
            .orElseThrow(
                () ->
                    FloeException.badInput(
                        option
                            + " must be a duration such as 30m, 12h or 3d, got '"
                            + value
                            + "'. Nothing was changed.")));
  }

  static Optional<Integer> atLeast(String option, Integer value, int minimum) {
    if (value == null) {
      return Optional.empty();
    }
    if (value < minimum) {
      throw FloeException.badInput(
          option + " must be at least " + minimum + ", got " + value + ". Nothing was changed.");
    }
    return Optional.of(value);
  }

  /**
   * The policy of a clean-orphans or clean-metadata run: its orphan age is {@code --older-than}
   * when given, else the table's {@code floe.orphan.min-age}; an age below 1h needs {@code
   * --force}.
   *
   * @param olderThan the parsed {@code --older-than}
   * @throws FloeException BAD_INPUT for gc.enabled=false (checked first, as the job would), or an
   *     age below 1h without {@code --force}
   */
  static MaintenancePolicy orphanPolicy(
      String table,
      MaintenancePolicy policy,
      MaintenanceAction action,
      Optional<Duration> olderThan,
      boolean force) {
    policy.requireGcEnabled(table, action);
    MaintenancePolicy result = olderThan.map(policy::withOrphanMinAge).orElse(policy);
    if (!result.orphanAgeBelowSafeMinimum()) {
      return result;
    }
    if (!force) {
      throw FloeException.badInput(
          "Table "
              + table
              + ": "
              + (olderThan.isPresent() ? "--older-than" : MaintenancePolicy.ORPHAN_MIN_AGE)
              + " is "
              + DurationText.format(result.orphanMinAge())
              + ", below the safe minimum of 1h: files a writer has written but not yet"
              + " committed would be deleted. Nothing was changed. Use 1h or more, or add --force"
              + " if no writer can be running.");
    }
    return result.acceptingUnsafeOrphanAge();
  }

  /**
   * Prints the preview; unless it is a dry run or the preview is blocked, commits exactly that
   * preview and prints what the commit did. Returns the exit code.
   */
  static <P extends MaintenanceJob.Preview> int printThenCommit(
      PrintWriter out, MaintenanceJob<P> job, Table table, P preview, boolean dryRun) {
    MaintenancePreview shown = preview.preview();
    printPreview(out, shown, dryRun);
    if (dryRun || shown.blocked()) {
      return exitCode(shown);
    }
    out.flush();
    return printDone(out, job.commit(table, preview));
  }

  static void printPreview(PrintWriter out, MaintenancePreview preview, boolean dryRun) {
    out.println(
        "Table "
            + preview.table()
            + ": "
            + preview.action().description()
            + (dryRun ? " (dry run: nothing changed)" : ""));
    if (!preview.snapshotsToExpire().isEmpty()
        || preview.action() == MaintenanceAction.EXPIRE_SNAPSHOTS) {
      out.println("Snapshots to expire: " + preview.snapshotsToExpire().size());
      for (SnapshotFacts snapshot : preview.snapshotsToExpire()) {
        out.println(
            "  "
                + snapshot.id()
                + " committed "
                + snapshot.committedAt()
                + ", "
                + records(snapshot.addedRecords())
                + " added");
      }
    }
    out.println(
        (dryRun ? "Files to delete: " : "Files planned: ")
            + preview.filesToDelete().size()
            + " ("
            + bytes(preview.bytesToDelete())
            + ")");
    for (FileToDelete file : preview.filesToDelete()) {
      out.println("  " + file.location() + " (" + bytes(file.sizeBytes()) + ")");
    }
    if (preview.filesKept() > 0) {
      out.println(
          "Kept, younger than the age threshold: " + preview.filesKept() + " unreferenced file(s)");
    }
    for (String blocker : preview.blockers()) {
      out.println("Refused: " + blocker);
    }
    if (preview.blocked()) {
      out.println(
          "Nothing was deleted: a listed file has the path of a live file under another scheme or"
              + " authority, so Floe cannot prove it is an orphan. Fix the table location or"
              + " remove such files by hand.");
    }
  }

  private static int printDone(PrintWriter out, MaintenanceOutcome outcome) {
    out.println(
        "Done: "
            + (outcome.committed() ? "committed; " : "")
            + "deleted "
            + outcome.deletedFiles()
            + " file(s) ("
            + bytes(outcome.deletedBytes())
            + ")"
            + (outcome.failedDeletes().isEmpty()
                ? "."
                : "; "
                    + outcome.failedDeletes().size()
                    + " could not be deleted (a later run retries):"));
    outcome.failedDeletes().forEach(failure -> out.println("  " + failure));
    if (!outcome.stillReferenced().isEmpty()) {
      out.println(
          "Kept, referenced by the table again since the preview: "
              + outcome.stillReferenced().size()
              + " file(s)");
      outcome.stillReferenced().forEach(location -> out.println("  " + location));
    }
    return outcome.failedDeletes().isEmpty() ? ExitCodes.OK : ExitCodes.PROBLEM_FOUND;
  }

  static int exitCode(MaintenancePreview preview) {
    return preview.blocked() ? ExitCodes.PROBLEM_FOUND : ExitCodes.OK;
  }

  static String records(long count) {
    return count < 0 ? "unknown records" : count + " records";
  }

  static String bytes(long count) {
    return count < 0 ? "size unknown" : count + " bytes";
  }
}

package dev.floe.cli;

import dev.floe.core.config.FloeSettings;
import dev.floe.core.error.FloeException;
import dev.floe.core.maintenance.DurationText;
import dev.floe.core.maintenance.FileToDelete;
import dev.floe.core.maintenance.MaintenancePolicy;
import dev.floe.core.maintenance.MaintenancePreview;
import dev.floe.core.maintenance.SnapshotFacts;
import dev.floe.iceberg.CatalogFactory;
import dev.floe.iceberg.FloeCatalog;
import dev.floe.iceberg.maintenance.MaintenanceOutcome;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Optional;

/** What the maintenance commands share: opening the catalog, options, printing previews. */
final class MaintenanceSupport {

  private MaintenanceSupport() {}

  static FloeCatalog openCatalog(FloeSettings settings) {
    return new CatalogFactory().open(settings.catalog(), settings.dataDirectory());
  }

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

  /** Orphan age from --older-than, else the table property; returns the source for messages. */
  static String orphanAgeSource(String olderThan) {
    return olderThan != null ? "--older-than" : MaintenancePolicy.ORPHAN_MIN_AGE;
  }

  static void printPreview(PrintWriter out, MaintenancePreview preview, boolean dryRun) {
    out.println(
        "Table "
            + preview.table()
            + ": "
            + preview.action().description()
            + (dryRun ? " (dry run: nothing changed)" : ""));
    if (!preview.snapshotsToExpire().isEmpty()
        || preview.action() == dev.floe.core.maintenance.MaintenanceAction.EXPIRE_SNAPSHOTS) {
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

  static int printOutcome(PrintWriter out, MaintenanceOutcome outcome) {
    printPreview(out, outcome.preview(), false);
    if (outcome.preview().blocked()) {
      return ExitCodes.PROBLEM_FOUND;
    }
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

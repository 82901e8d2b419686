package dev.floe.iceberg.optimize;

import dev.floe.core.optimize.GroupOutcome;
import dev.floe.core.optimize.PlannedSnapshot;
import dev.floe.core.optimize.TaskKind;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.RewriteFiles;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Table;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits one rewritten file group (docs/optimize.md, "Committer"): the rewrite with {@code
 * RewriteFiles}, validated from the planned snapshot and given the planned snapshot's sequence
 * number, so that equality deletes committed since then keep applying to the new files and never
 * conflict; then the converted files' position deletes with a {@code RowDelta} that checks the
 * files still exist. A commit that fails is a conflict: its output is deleted. A commit whose state
 * is unknown keeps its output, always.
 */
final class FileGroupCommitter {

  private static final Logger LOG = LoggerFactory.getLogger(FileGroupCommitter.class);

  /**
   * The outcome, and the data files the commit covered: replaced, or converted with all their
   * deletes (empty unless committed).
   */
  record Committed(GroupOutcome outcome, List<DataFile> covered, String problem) {}

  Committed commit(Table table, PlannedSnapshot planned, GroupResult result, TaskKind kind) {
    List<DataFile> covered = new ArrayList<>();
    if (!result.replaced().isEmpty()) {
      RewriteFiles rewrite =
          table
              .newRewrite()
              .validateFromSnapshot(planned.snapshotId())
              .dataSequenceNumber(planned.sequenceNumber())
              .set(OptimizeSummary.KIND, kind.displayName());
      result.replaced().forEach(rewrite::deleteFile);
      result.added().forEach(rewrite::addFile);
      try {
        rewrite.commit();
      } catch (CommitStateUnknownException e) {
        LOG.warn("commit state unknown for a rewrite of {}; keeping its files", table.name(), e);
        return new Committed(GroupOutcome.UNKNOWN, List.of(), unknown(e, result));
      } catch (RuntimeException e) {
        LOG.info("rewrite of {} failed; deleting its output", table.name(), e);
        deleteData(table, result.added());
        deleteDeletes(table, result.addedDeletes());
        return new Committed(GroupOutcome.FAILED, List.of(), failed(e, result));
      }
      covered.addAll(result.replaced());
    }
    List<DataFile> convertedWithDeletes = new ArrayList<>();
    for (DataFile file : result.converted()) {
      boolean hasNewDeletes =
          result.addedDeletes().stream()
              .anyMatch(delete -> file.location().contentEquals(referenced(delete)));
      (hasNewDeletes ? convertedWithDeletes : covered).add(file);
    }
    if (!result.addedDeletes().isEmpty()) {
      RowDelta delta =
          table
              .newRowDelta()
              .validateFromSnapshot(planned.snapshotId())
              .validateDataFilesExist(
                  convertedWithDeletes.stream().map(DataFile::location).toList())
              .set(OptimizeSummary.KIND, kind.displayName());
      result.addedDeletes().forEach(delta::addDeletes);
      try {
        delta.commit();
      } catch (CommitStateUnknownException e) {
        LOG.warn("commit state unknown for a conversion of {}; keeping its files", table.name(), e);
        return new Committed(GroupOutcome.UNKNOWN, covered, unknown(e, result));
      } catch (RuntimeException e) {
        LOG.info("conversion of {} failed; deleting its output", table.name(), e);
        deleteDeletes(table, result.addedDeletes());
        return new Committed(GroupOutcome.FAILED, covered, failed(e, result));
      }
      covered.addAll(convertedWithDeletes);
    }
    return new Committed(GroupOutcome.COMMITTED, covered, "");
  }

  /**
   * Removes delete files that apply to no data file any more, validated from the planned snapshot.
   * Returns how many were removed (0 when the commit failed: they stay, harmlessly).
   */
  int removeDanglingDeletes(Table table, PlannedSnapshot planned, List<DeleteFile> dangling) {
    if (dangling.isEmpty()) {
      return 0;
    }
    RewriteFiles rewrite =
        table
            .newRewrite()
            .validateFromSnapshot(planned.snapshotId())
            .set(OptimizeSummary.KIND, OptimizeSummary.DANGLING_DELETES);
    dangling.forEach(rewrite::deleteFile);
    try {
      rewrite.commit();
      return dangling.size();
    } catch (CommitStateUnknownException e) {
      LOG.warn("commit state unknown removing dangling deletes of {}", table.name(), e);
      return 0;
    } catch (RuntimeException e) {
      LOG.info("removing dangling deletes of {} failed; they stay", table.name(), e);
      return 0;
    }
  }

  private static CharSequence referenced(DeleteFile delete) {
    CharSequence path = org.apache.iceberg.util.ContentFileUtil.referencedDataFile(delete);
    return path == null ? "" : path;
  }

  private static String failed(RuntimeException e, GroupResult result) {
    return "conflict or failure committing "
        + result.replaced().size()
        + " rewritten and "
        + result.converted().size()
        + " converted files ("
        + e.getClass().getSimpleName()
        + ": "
        + e.getMessage()
        + "); output deleted, retried on a later run";
  }

  private static String unknown(RuntimeException e, GroupResult result) {
    return "commit state unknown for "
        + result.replaced().size()
        + " rewritten files ("
        + e.getMessage()
        + "); output kept, the next scan shows whether it landed";
  }

  /** Deletes every file a group's rewrite wrote (it will never be committed). */
  static void deleteOutput(Table table, GroupResult result) {
    deleteData(table, result.added());
    deleteDeletes(table, result.addedDeletes());
  }

  private static void deleteData(Table table, List<DataFile> files) {
    files.forEach(file -> table.io().deleteFile(file.location()));
  }

  private static void deleteDeletes(Table table, List<DeleteFile> files) {
    files.forEach(file -> table.io().deleteFile(file.location()));
  }
}

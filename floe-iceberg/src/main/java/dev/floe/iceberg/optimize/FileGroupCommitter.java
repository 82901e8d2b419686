package dev.floe.iceberg.optimize;

import dev.floe.core.optimize.GroupOutcome;
import dev.floe.core.optimize.PlannedSnapshot;
import dev.floe.core.optimize.TaskKind;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongFunction;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.RewriteFiles;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.SnapshotUpdate;
import org.apache.iceberg.Table;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits one rewritten file group (docs/optimize.md, "Committer"): the rewrite with {@code
 * RewriteFiles}, validated from the planned snapshot and given the planned snapshot's sequence
 * number, so that equality deletes committed since then keep applying to the new files and never
 * conflict; then the converted files' position deletes with a {@code RowDelta} that checks the
 * files still exist. A commit that loses the race for the catalog to another writer ({@code
 * CommitFailedException} once Iceberg's own retries, the table's {@code commit.retry.*}, are spent)
 * is tried again with the same output, up to {@value #RACE_ATTEMPTS} times with a growing, jittered
 * wait: a streaming writer that commits several times a second would otherwise win every race and
 * the keeper would throw away each rewrite it made. A commit that fails otherwise is a conflict
 * (e.g. a file it replaces is gone): its output is deleted. A commit whose state is unknown keeps
 * its output, always.
 */
final class FileGroupCommitter {

  private static final Logger LOG = LoggerFactory.getLogger(FileGroupCommitter.class);

  /** How many times a commit that lost the catalog race is made, in all. */
  static final int RACE_ATTEMPTS = 12;

  private static final long FIRST_RACE_WAIT_MILLIS = 100;
  private static final long MAX_RACE_WAIT_MILLIS = 5_000;

  /**
   * The outcome, and the data files the commit covered: replaced, or converted with all their
   * deletes (empty unless committed).
   */
  record Committed(GroupOutcome outcome, List<DataFile> covered, String problem) {}

  Committed commit(Table table, PlannedSnapshot planned, GroupResult result, TaskKind kind) {
    List<DataFile> covered = new ArrayList<>();
    if (!result.replaced().isEmpty()) {
      try {
        commitRacing(
            table,
            planned.snapshotId(),
            validatedTo -> {
              RewriteFiles rewrite =
                  table
                      .newRewrite()
                      .validateFromSnapshot(validatedTo)
                      .dataSequenceNumber(planned.sequenceNumber())
                      .set(OptimizeSummary.KIND, kind.displayName());
              result.replaced().forEach(rewrite::deleteFile);
              result.added().forEach(rewrite::addFile);
              return rewrite;
            });
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
      try {
        commitRacing(
            table,
            planned.snapshotId(),
            validatedTo -> {
              RowDelta delta =
                  table
                      .newRowDelta()
                      .validateFromSnapshot(validatedTo)
                      .validateDataFilesExist(
                          convertedWithDeletes.stream().map(DataFile::location).toList())
                      .set(OptimizeSummary.KIND, kind.displayName());
              result.addedDeletes().forEach(delta::addDeletes);
              return delta;
            });
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
    try {
      commitRacing(
          table,
          planned.snapshotId(),
          validatedTo -> {
            RewriteFiles rewrite =
                table
                    .newRewrite()
                    .validateFromSnapshot(validatedTo)
                    .set(OptimizeSummary.KIND, OptimizeSummary.DANGLING_DELETES);
            dangling.forEach(rewrite::deleteFile);
            return rewrite;
          });
      return dangling.size();
    } catch (CommitStateUnknownException e) {
      LOG.warn("commit state unknown removing dangling deletes of {}", table.name(), e);
      return 0;
    } catch (RuntimeException e) {
      LOG.info("removing dangling deletes of {} failed; they stay", table.name(), e);
      return 0;
    }
  }

  /**
   * Commits a freshly built operation, validated from {@code plannedSnapshotId}; when it loses the
   * catalog race ({@code CommitFailedException}), builds and commits it again after a wait, at most
   * {@value #RACE_ATTEMPTS} times in all. Any other failure, and the last lost race, is thrown.
   *
   * <p>Each attempt validates only the history the attempts before it have not: a lost race means
   * the attempt's validation passed against a base at least as new as the snapshot the table had
   * just before it (Iceberg refreshes before it applies, and throws {@code CommitFailedException}
   * only from the catalog's swap, after validating), so the next attempt validates from that
   * snapshot on. Without this, every lost race would make the next attempt read the manifests of
   * every commit since the plan again, slower each time, and against a writer committing several
   * times a second the keeper would never land (the window between refresh and swap only grows).
   * The rewrite's data sequence number stays the planned one whatever the validation start.
   */
  static void commitRacing(
      Table table, long plannedSnapshotId, LongFunction<? extends SnapshotUpdate<?>> operation) {
    long wait = FIRST_RACE_WAIT_MILLIS;
    long validatedTo = plannedSnapshotId;
    for (int attempt = 1; ; attempt++) {
      long before = currentSnapshotId(table, validatedTo);
      try {
        operation.apply(validatedTo).commit();
        if (attempt > 1) {
          LOG.info("commit to {} landed at attempt {}", table.name(), attempt);
        }
        return;
      } catch (CommitFailedException e) {
        if (attempt >= RACE_ATTEMPTS) {
          throw e;
        }
        LOG.info(
            "commit to {} lost the race to another writer (attempt {} of {}); trying again",
            table.name(),
            attempt,
            RACE_ATTEMPTS);
        validatedTo = before;
        pause(wait + ThreadLocalRandom.current().nextLong(wait));
        wait = Math.min(wait * 2, MAX_RACE_WAIT_MILLIS);
      }
    }
  }

  /** The table's current snapshot, refreshed; {@code otherwise} when it has none. */
  private static long currentSnapshotId(Table table, long otherwise) {
    table.refresh();
    org.apache.iceberg.Snapshot current = table.currentSnapshot();
    return current == null ? otherwise : current.snapshotId();
  }

  private static void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CommitFailedException("interrupted while waiting to commit again");
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

package dev.floe.sync;

import static java.util.Objects.requireNonNull;

import dev.floe.core.error.FloeException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.core.fs.Path;
import org.apache.flink.runtime.checkpoint.CheckpointException;
import org.apache.flink.runtime.checkpoint.CheckpointFailureReason;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * One run of a sync: the initial snapshot copy (unless the sync resumed in its binlog phase), then
 * one Flink binlog job. {@link RunningSync} is the handle callers hold, across the runs of a sync
 * that restarts itself.
 */
final class SyncRun implements AutoCloseable {

  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(SyncRun.class);

  /** How long to wait before asking again for a savepoint that the job could not take yet. */
  private static final Duration SAVEPOINT_RETRY = Duration.ofMillis(250);

  private final Map<String, TableIdentifier> tables;
  private final Optional<String> restoredFrom;
  private final Optional<String> resumedFrom;
  private final StateDirectory stateDirectory;
  private final SnapshotCopier copier;

  /** The binlog job once submitted; empty when the sync was stopped during the snapshot. */
  private final CompletableFuture<Optional<JobClient>> job = new CompletableFuture<>();

  private final Object lock = new Object();
  private boolean stopping;

  /** A sync resumed in its binlog phase. */
  SyncRun(
      JobClient client,
      Map<String, TableIdentifier> tables,
      Optional<Path> restoredFrom,
      StateDirectory stateDirectory) {
    this.tables = Map.copyOf(requireNonNull(tables, "tables is null"));
    this.restoredFrom =
        requireNonNull(restoredFrom, "restoredFrom is null").map(StateDirectory::display);
    this.resumedFrom = this.restoredFrom;
    this.stateDirectory = requireNonNull(stateDirectory, "stateDirectory is null");
    this.copier = null;
    job.complete(Optional.of(requireNonNull(client, "client is null")));
  }

  /** A sync that first copies the tables, then submits the binlog job, on its own thread. */
  SyncRun(
      SnapshotCopier copier,
      List<SnapshotCopier.TableCopy> copies,
      Callable<JobClient> binlogPhase,
      Map<String, TableIdentifier> tables,
      StateDirectory stateDirectory,
      boolean resumed) {
    this.tables = Map.copyOf(requireNonNull(tables, "tables is null"));
    this.restoredFrom = Optional.empty();
    this.resumedFrom =
        resumed ? Optional.of("the initial snapshot's committed progress") : Optional.empty();
    this.stateDirectory = requireNonNull(stateDirectory, "stateDirectory is null");
    this.copier = requireNonNull(copier, "copier is null");
    Thread thread =
        new Thread(
            () -> {
              try {
                SnapshotCopier.Outcome outcome = copier.copy(copies);
                synchronized (lock) {
                  if (outcome == SnapshotCopier.Outcome.STOPPED || stopping) {
                    job.complete(Optional.empty());
                  } else {
                    job.complete(Optional.of(binlogPhase.call()));
                  }
                }
              } catch (Throwable e) {
                LOG.error("the sync's copy or binlog phase failed to start", e);
                job.completeExceptionally(e);
              }
            },
            "floe-sync-snapshot");
    thread.setDaemon(true);
    thread.start();
  }

  /** The Iceberg table of each source table ({@code database.table}). */
  Map<String, TableIdentifier> tables() {
    return tables;
  }

  /** Where this sync's checkpoints and savepoints live. */
  StateDirectory stateDirectory() {
    return stateDirectory;
  }

  /**
   * The checkpoint or savepoint this run resumed from, if any: a local directory as a path, others
   * as their URI.
   */
  Optional<String> restoredFrom() {
    return restoredFrom;
  }

  /**
   * What this run continues, if it is not a fresh start: a checkpoint or savepoint, or the initial
   * snapshot's committed progress.
   */
  Optional<String> resumedFrom() {
    return resumedFrom;
  }

  /** The binlog job once submitted; empty during the copy, or when the copy stopped or failed. */
  Optional<JobClient> binlogJob() {
    return job.isDone() && !job.isCompletedExceptionally() ? job.join() : Optional.empty();
  }

  /**
   * Stops: during the snapshot, after the chunks in flight, which are committed; afterwards with a
   * savepoint. Returns where the next run resumes from.
   */
  String stop(Duration timeout) throws ExecutionException, InterruptedException, TimeoutException {
    Optional<JobClient> client = stopSnapshot(timeout);
    if (client.isEmpty()) {
      return "the initial snapshot's committed progress";
    }
    return "savepoint " + stopWithSavepoint(client.get(), timeout);
  }

  /**
   * Stops the job with a savepoint. A job submitted a moment ago (the copy just ended) may not run
   * all its tasks yet, and Flink refuses a savepoint until it does: that refusal is retried until
   * the timeout, since the tasks start within seconds.
   */
  private String stopWithSavepoint(JobClient client, Duration timeout)
      throws ExecutionException, InterruptedException, TimeoutException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      long left = Math.max(1, deadline - System.nanoTime());
      try {
        return client
            .stopWithSavepoint(
                false, stateDirectory.path("savepoints").toString(), SavepointFormatType.CANONICAL)
            .get(left, TimeUnit.NANOSECONDS);
      } catch (ExecutionException e) {
        if (!tasksNotRunningYet(e) || System.nanoTime() - deadline > 0) {
          throw e;
        }
        Thread.sleep(SAVEPOINT_RETRY.toMillis()); // the tasks are being deployed
      }
    }
  }

  private static boolean tasksNotRunningYet(Throwable failure) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof CheckpointException checkpoint
          && checkpoint.getCheckpointFailureReason()
              == CheckpointFailureReason.NOT_ALL_REQUIRED_TASKS_RUNNING) {
        return true;
      }
    }
    return false;
  }

  /** Cancels without a savepoint; retained checkpoints and committed snapshot progress remain. */
  void cancel(Duration timeout) throws ExecutionException, InterruptedException, TimeoutException {
    Optional<JobClient> client = stopSnapshot(timeout);
    if (client.isPresent()) {
      client.get().cancel().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      awaitEnd(client.get(), timeout);
    }
  }

  /** Waits until the job's tasks are gone (a cancel is acknowledged before they stop). */
  private static void awaitEnd(JobClient client, Duration timeout)
      throws InterruptedException, TimeoutException {
    try {
      client.getJobExecutionResult().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException | java.util.concurrent.CancellationException cancelled) {
      // the expected end of a cancelled job
    }
  }

  private Optional<JobClient> stopSnapshot(Duration timeout)
      throws ExecutionException, InterruptedException, TimeoutException {
    synchronized (lock) {
      stopping = true;
    }
    if (copier != null) {
      copier.stop();
    }
    return job.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /**
   * Blocks until the sync ends: it runs until stopped or failed.
   *
   * @throws FloeException when the snapshot copy fails for a reason the user can act on
   * @throws ExecutionException when the Flink job fails
   */
  void await() throws ExecutionException, InterruptedException {
    Optional<JobClient> client;
    try {
      client = job.get();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof FloeException floe) {
        throw floe;
      }
      throw e;
    }
    if (client.isPresent()) {
      client.get().getJobExecutionResult().get();
    }
  }

  /** Stops the copy or cancels the job if it still runs; an ended job is left alone. */
  @Override
  public void close() throws Exception {
    Optional<JobClient> client;
    try {
      client = stopSnapshot(Duration.ofMinutes(2));
    } catch (ExecutionException failed) {
      return;
    }
    if (client.isEmpty() || client.get().getJobExecutionResult().isDone()) {
      return;
    }
    try {
      if (!client.get().getJobStatus().get().isGloballyTerminalState()) {
        client.get().cancel().get(60, TimeUnit.SECONDS);
        awaitEnd(client.get(), Duration.ofSeconds(60));
      }
    } catch (IllegalStateException | ExecutionException alreadyGone) {
      // the local cluster shut down with the job between the check and the call
    }
  }
}

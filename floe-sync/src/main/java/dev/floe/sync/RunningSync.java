package dev.floe.sync;

import static java.util.Objects.requireNonNull;

import dev.floe.core.error.FloeException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.iceberg.catalog.TableIdentifier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A started sync: the initial snapshot copy (unless the sync resumed in its binlog phase), then the
 * Flink binlog job.
 *
 * <p>A MySQL sync may restart itself while it runs: when its binlog job created the Iceberg table
 * of a table renamed into the selection ({@link dev.floe.core.sync.SyncProperties#COPY_NEEDED}),
 * the rows that table had before the rename are copied by stopping the job with a savepoint,
 * copying the table as {@code --resnapshot} does, and restoring the job. This handle stays the same
 * across those runs: {@link #stop}, {@link #cancel} and {@link #await} act on the run of the
 * moment.
 */
public final class RunningSync implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(RunningSync.class);

  /** How often the binlog phase looks for tables renamed into the selection. */
  static final Duration RENAME_POLL = Duration.ofSeconds(5);

  /** How long the job's status may take to arrive (a remote cluster's REST API). */
  private static final Duration STATUS_TIMEOUT = Duration.ofSeconds(10);

  /** How long the savepoint before a copy of renamed-in tables may take. */
  private static final Duration RESTART_STOP_TIMEOUT = Duration.ofMinutes(2);

  /**
   * How a sync finds the tables renamed into its selection whose earlier rows wait for a copy, and
   * starts again to copy them.
   */
  interface Restarter {

    /** The source tables ({@code database.table}) whose earlier rows wait for a copy. */
    List<String> copyNeeded() throws Exception;

    /**
     * Starts the sync again once its job stopped with a savepoint; the run copies the tables {@link
     * #copyNeeded} named, then restores the job.
     */
    SyncRun restart();
  }

  private final SyncRun first;
  private final Object lock = new Object();

  /** The run of the moment; replaced when the sync restarted itself. */
  private SyncRun current;

  /** Whether the sync is between the savepoint of one run and the start of the next. */
  private boolean restarting;

  /** Whether a caller asked the sync to end (stop, cancel, close). */
  private boolean ending;

  /** Why a restart failed: the sync then ended with the run before it stopped. */
  private Throwable restartFailure;

  /** Where the run before a failed restart stopped, when its savepoint was taken. */
  private String stoppedAt;

  RunningSync(SyncRun first, Optional<Restarter> restarter) {
    this.first = requireNonNull(first, "first is null");
    this.current = first;
    requireNonNull(restarter, "restarter is null")
        .ifPresent(
            watch -> {
              Thread thread = new Thread(() -> watch(watch), "floe-sync-renames");
              thread.setDaemon(true);
              thread.start();
            });
  }

  /** The Iceberg table of each source table ({@code database.table}) this run syncs. */
  public Map<String, TableIdentifier> tables() {
    return current().tables();
  }

  /** Where this sync's checkpoints and savepoints live. */
  public StateDirectory stateDirectory() {
    return first.stateDirectory();
  }

  /**
   * The checkpoint or savepoint this sync resumed from when it started, if any: a local directory
   * as a path, others as their URI.
   */
  public Optional<String> restoredFrom() {
    return first.restoredFrom();
  }

  /**
   * What this sync continued when it started, if it is not a fresh start: a checkpoint or
   * savepoint, or the initial snapshot's committed progress.
   */
  public Optional<String> resumedFrom() {
    return first.resumedFrom();
  }

  /**
   * Stops: during the snapshot, after the chunks in flight, which are committed; afterwards with a
   * savepoint. Returns where the next run resumes from.
   */
  public String stop(Duration timeout)
      throws ExecutionException, InterruptedException, TimeoutException {
    SyncRun run = end();
    synchronized (lock) {
      if (restartFailure != null) {
        return stoppedAt != null ? stoppedAt : "its newest retained checkpoint";
      }
    }
    return run.stop(timeout);
  }

  /** Cancels without a savepoint; retained checkpoints and committed snapshot progress remain. */
  public void cancel(Duration timeout)
      throws ExecutionException, InterruptedException, TimeoutException {
    SyncRun run = end();
    synchronized (lock) {
      if (restartFailure != null) {
        return; // the job already ended
      }
    }
    run.cancel(timeout);
  }

  /**
   * Blocks until the sync ends: it runs until stopped or failed.
   *
   * @throws FloeException when the snapshot copy fails for a reason the user can act on, or a copy
   *     of renamed-in tables could not start
   * @throws ExecutionException when the Flink job fails
   */
  public void await() throws ExecutionException, InterruptedException {
    while (true) {
      SyncRun run = current();
      ExecutionException failed = null;
      try {
        run.await();
      } catch (ExecutionException e) {
        failed = e;
      }
      synchronized (lock) {
        while (restarting) {
          lock.wait();
        }
        if (restartFailure != null) {
          if (restartFailure instanceof FloeException floe) {
            throw floe;
          }
          throw new ExecutionException(restartFailure);
        }
        if (current != run) {
          continue; // restarted itself: the next run goes on
        }
      }
      if (failed != null) {
        throw failed;
      }
      return;
    }
  }

  /** Stops the copy or cancels the job if it still runs; an ended job is left alone. */
  @Override
  public void close() throws Exception {
    end().close();
  }

  private SyncRun current() {
    synchronized (lock) {
      return current;
    }
  }

  /** Ends the watch for renamed tables and waits out a restart under way: the run to end. */
  private SyncRun end() throws InterruptedException {
    synchronized (lock) {
      ending = true;
      lock.notifyAll();
      while (restarting) {
        lock.wait();
      }
      return current;
    }
  }

  /**
   * Looks for tables renamed into the selection while the binlog job runs, and restarts the sync to
   * copy their earlier rows; ends when the sync is asked to end or a restart failed.
   */
  private void watch(Restarter restarter) {
    try {
      while (true) {
        SyncRun run;
        synchronized (lock) {
          lock.wait(RENAME_POLL.toMillis()); // the poll interval, or woken to end
          if (ending) {
            return;
          }
          run = current;
        }
        if (run.binlogJob().isEmpty()) {
          continue; // still copying: the job is not there to restart
        }
        List<String> needed;
        try {
          if (run.binlogJob()
              .get()
              .getJobStatus()
              .get(STATUS_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
              .isTerminalState()) {
            return; // the job ended (restarts happen on this thread): the sync is over
          }
          needed = restarter.copyNeeded();
        } catch (Exception e) {
          LOG.warn("cannot look for tables renamed into the sync's selection: {}", e.toString());
          continue;
        }
        if (needed.isEmpty()) {
          continue;
        }
        synchronized (lock) {
          if (ending) {
            return;
          }
          restarting = true;
        }
        restart(restarter, run, needed);
        synchronized (lock) {
          if (restartFailure != null) {
            return;
          }
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void restart(Restarter restarter, SyncRun run, List<String> needed) {
    String savepoint = null;
    try {
      LOG.info(
          "{} renamed into the sync's selection with rows the binlog does not bring: stopping"
              + " the job with a savepoint to copy {}",
          needed,
          needed.size() == 1 ? "it" : "them");
      savepoint = run.stop(RESTART_STOP_TIMEOUT);
      SyncRun next = restarter.restart();
      synchronized (lock) {
        current = next;
      }
    } catch (Throwable e) {
      LOG.error(
          "the copy of {}, renamed into the sync's selection, could not start; the sync ended ({})."
              + " Starting it again copies {}",
          needed,
          savepoint == null ? "the job could not stop with a savepoint" : savepoint,
          needed.size() == 1 ? "it" : "them",
          e);
      if (savepoint == null) {
        try {
          run.cancel(RESTART_STOP_TIMEOUT);
        } catch (Exception cancelFailed) {
          e.addSuppressed(cancelFailed);
        }
      }
      synchronized (lock) {
        restartFailure = e;
        stoppedAt = savepoint;
      }
    } finally {
      synchronized (lock) {
        restarting = false;
        lock.notifyAll();
      }
    }
  }
}

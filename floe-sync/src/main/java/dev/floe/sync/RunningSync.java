package dev.floe.sync;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.iceberg.catalog.TableIdentifier;

/** A submitted sync job. */
public final class RunningSync implements AutoCloseable {

  private final JobClient client;
  private final Map<String, TableIdentifier> tables;
  private final Optional<Path> restoredFrom;
  private final Path stateDirectory;

  RunningSync(
      JobClient client,
      Map<String, TableIdentifier> tables,
      Optional<Path> restoredFrom,
      Path stateDirectory) {
    this.client = requireNonNull(client, "client is null");
    this.tables = Map.copyOf(requireNonNull(tables, "tables is null"));
    this.restoredFrom = requireNonNull(restoredFrom, "restoredFrom is null");
    this.stateDirectory = requireNonNull(stateDirectory, "stateDirectory is null");
  }

  /** The Iceberg table of each source table ({@code database.table}). */
  public Map<String, TableIdentifier> tables() {
    return tables;
  }

  /** The checkpoint or savepoint this run resumed from, if any. */
  public Optional<Path> restoredFrom() {
    return restoredFrom;
  }

  public JobStatus status() throws ExecutionException, InterruptedException {
    return client.getJobStatus().get();
  }

  /** Stops with a savepoint (everything up to it committed) and returns the savepoint's path. */
  public String stop(Duration timeout)
      throws ExecutionException, InterruptedException, TimeoutException {
    return client
        .stopWithSavepoint(
            false,
            stateDirectory.resolve("savepoints").toUri().toString(),
            SavepointFormatType.CANONICAL)
        .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Cancels without a savepoint; the retained checkpoints still allow a resume. */
  public void cancel(Duration timeout)
      throws ExecutionException, InterruptedException, TimeoutException {
    client.cancel().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Blocks until the job ends (it runs until stopped or failed). */
  public void await() throws ExecutionException, InterruptedException {
    client.getJobExecutionResult().get();
  }

  /** Cancels the job if it still runs; a job that already ended (and its cluster) is left alone. */
  @Override
  public void close() throws Exception {
    if (client.getJobExecutionResult().isDone()) {
      return;
    }
    try {
      if (!client.getJobStatus().get().isGloballyTerminalState()) {
        client.cancel().get(60, TimeUnit.SECONDS);
      }
    } catch (IllegalStateException | ExecutionException alreadyGone) {
      // the local cluster shut down with the job between the check and the call
    }
  }
}

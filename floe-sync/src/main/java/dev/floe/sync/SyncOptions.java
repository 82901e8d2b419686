package dev.floe.sync;

import static java.util.Objects.requireNonNull;

import dev.floe.core.config.SyncSettings;
import dev.floe.core.source.MySqlSourceAddress;
import dev.floe.core.sync.TableSelection;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * One sync job's settings.
 *
 * @param name names the job and its checkpoint directory; a restart with the same name resumes
 * @param source the MySQL/MariaDB source
 * @param selection which tables, and where they land
 * @param checkpointInterval how often changes are committed to Iceberg
 * @param parallelism snapshot readers and Iceberg writers
 * @param stateDirectory where checkpoints, savepoints and the snapshot state of this sync live
 *     (local, or on HDFS)
 * @param serverTimeZone the source's time zone for TIMESTAMP columns; empty means ask the server
 * @param snapshotChunkRows rows per snapshot chunk: the unit of parallel, lock-free reading, of
 *     data files and of resuming
 * @param snapshotRowsPerSecond a cap on the rows per second the snapshot reads; 0 = none
 * @param partitions partitioning of new tables per source table ({@code database.table})
 * @param heartbeatInterval how often the binlog reader asks MySQL for a heartbeat while no change
 *     arrives: it moves the checkpointed position to the server's head, so an idle sync's lag stays
 *     small ({@link SyncProgress})
 */
public record SyncOptions(
    String name,
    MySqlSourceAddress source,
    TableSelection selection,
    Duration checkpointInterval,
    int parallelism,
    StateDirectory stateDirectory,
    Optional<String> serverTimeZone,
    int snapshotChunkRows,
    long snapshotRowsPerSecond,
    Map<String, String> partitions,
    Duration heartbeatInterval) {

  /** Settings with a local state directory. */
  public SyncOptions(
      String name,
      MySqlSourceAddress source,
      TableSelection selection,
      Duration checkpointInterval,
      int parallelism,
      Path stateDirectory,
      Optional<String> serverTimeZone,
      int snapshotChunkRows,
      long snapshotRowsPerSecond,
      Map<String, String> partitions,
      Duration heartbeatInterval) {
    this(
        name,
        source,
        selection,
        checkpointInterval,
        parallelism,
        StateDirectory.local(stateDirectory),
        serverTimeZone,
        snapshotChunkRows,
        snapshotRowsPerSecond,
        partitions,
        heartbeatInterval);
  }

  /** Settings with a local state directory and the default binlog heartbeat. */
  public SyncOptions(
      String name,
      MySqlSourceAddress source,
      TableSelection selection,
      Duration checkpointInterval,
      int parallelism,
      Path stateDirectory,
      Optional<String> serverTimeZone,
      int snapshotChunkRows,
      long snapshotRowsPerSecond,
      Map<String, String> partitions) {
    this(
        name,
        source,
        selection,
        checkpointInterval,
        parallelism,
        stateDirectory,
        serverTimeZone,
        snapshotChunkRows,
        snapshotRowsPerSecond,
        partitions,
        SyncSettings.DEFAULT_HEARTBEAT_INTERVAL);
  }

  /** Settings with a local state directory, without a cap on the snapshot's read rate. */
  public SyncOptions(
      String name,
      MySqlSourceAddress source,
      TableSelection selection,
      Duration checkpointInterval,
      int parallelism,
      Path stateDirectory,
      Optional<String> serverTimeZone,
      int snapshotChunkRows) {
    this(
        name,
        source,
        selection,
        checkpointInterval,
        parallelism,
        stateDirectory,
        serverTimeZone,
        snapshotChunkRows,
        0,
        Map.of(),
        SyncSettings.DEFAULT_HEARTBEAT_INTERVAL);
  }

  public SyncOptions {
    requireNonNull(name, "name is null");
    requireNonNull(source, "source is null");
    requireNonNull(selection, "selection is null");
    requireNonNull(checkpointInterval, "checkpointInterval is null");
    requireNonNull(stateDirectory, "stateDirectory is null");
    requireNonNull(serverTimeZone, "serverTimeZone is null");
    if (parallelism < 1) {
      throw new IllegalArgumentException("parallelism must be at least 1, got " + parallelism);
    }
    if (snapshotChunkRows < 1) {
      throw new IllegalArgumentException(
          "snapshotChunkRows must be at least 1, got " + snapshotChunkRows);
    }
    partitions = Map.copyOf(requireNonNull(partitions, "partitions is null"));
    if (snapshotRowsPerSecond < 0) {
      throw new IllegalArgumentException(
          "snapshotRowsPerSecond must not be negative, got " + snapshotRowsPerSecond);
    }
    requireNonNull(heartbeatInterval, "heartbeatInterval is null");
    if (heartbeatInterval.isNegative() || heartbeatInterval.isZero()) {
      throw new IllegalArgumentException(
          "heartbeatInterval must be positive, got " + heartbeatInterval);
    }
  }
}

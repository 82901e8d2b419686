package dev.floe.core.config;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The {@code sync:} section of floe.yaml: defaults for {@code floe sync}; its flags override each
 * value.
 *
 * @param tables regular expressions over {@code database.table} to sync
 * @param exclude regular expressions over {@code database.table} to leave out
 * @param targetNamespace one Iceberg namespace for all tables; empty = the database name
 * @param checkpointInterval how often changes are committed
 * @param parallelism snapshot readers and Iceberg writers
 * @param chunkRows rows per snapshot chunk
 * @param serverTimeZone the source's zone for TIMESTAMP columns; empty = ask the server
 * @param snapshotRowsPerSecond cap on the rows per second the initial snapshot reads; 0 = none
 * @param partitions partition spec per source table ({@code database.table} to e.g. {@code
 *     day(created_at), bucket(16, id)}) for the tables sync creates
 * @param flink {@code HOST:PORT} of a Flink cluster's REST endpoint that runs the binlog job; empty
 *     = a local Flink (MiniCluster) in the {@code floe sync} process
 * @param routes {@code REGEX -> NAMESPACE.TABLE}: the synced tables matching REGEX land in one
 *     Iceberg table
 * @param heartbeatInterval how often the binlog reader asks MySQL for a heartbeat while no change
 *     arrives, so that an idle sync's position (and so its lag) stays current
 * @param kafka the settings of a sync from Kafka topics
 * @param stateDirectory where the syncs keep their state, a directory per sync name: a local path
 *     or an {@code hdfs://} URI; empty = {@code <data-dir>/sync}
 */
public record SyncSettings(
    List<String> tables,
    List<String> exclude,
    Optional<String> targetNamespace,
    Duration checkpointInterval,
    int parallelism,
    int chunkRows,
    Optional<String> serverTimeZone,
    long snapshotRowsPerSecond,
    Map<String, String> partitions,
    Optional<String> flink,
    List<String> routes,
    Duration heartbeatInterval,
    KafkaSyncSettings kafka,
    Optional<String> stateDirectory) {

  public static final Duration DEFAULT_CHECKPOINT_INTERVAL = Duration.ofSeconds(10);
  public static final int DEFAULT_PARALLELISM = 2;
  public static final int DEFAULT_CHUNK_ROWS = 100_000;

  /**
   * The binlog heartbeat: short enough that an idle sync reports a lag of a few seconds, long
   * enough to cost MySQL nothing (one small event per interval per sync).
   */
  public static final int DEFAULT_HEARTBEAT_INTERVAL_SECONDS = 5;

  public static final Duration DEFAULT_HEARTBEAT_INTERVAL =
      Duration.ofSeconds(DEFAULT_HEARTBEAT_INTERVAL_SECONDS);

  public SyncSettings {
    tables = List.copyOf(requireNonNull(tables, "tables is null"));
    exclude = List.copyOf(requireNonNull(exclude, "exclude is null"));
    requireNonNull(targetNamespace, "targetNamespace is null");
    requireNonNull(checkpointInterval, "checkpointInterval is null");
    requireNonNull(serverTimeZone, "serverTimeZone is null");
    partitions = Map.copyOf(requireNonNull(partitions, "partitions is null"));
    requireNonNull(flink, "flink is null");
    routes = List.copyOf(requireNonNull(routes, "routes is null"));
    requireNonNull(heartbeatInterval, "heartbeatInterval is null");
    requireNonNull(kafka, "kafka is null");
    requireNonNull(stateDirectory, "stateDirectory is null");
  }

  /** Settings without Kafka keys. */
  public SyncSettings(
      List<String> tables,
      List<String> exclude,
      Optional<String> targetNamespace,
      Duration checkpointInterval,
      int parallelism,
      int chunkRows,
      Optional<String> serverTimeZone,
      long snapshotRowsPerSecond,
      Map<String, String> partitions,
      Optional<String> flink,
      List<String> routes,
      Duration heartbeatInterval) {
    this(
        tables,
        exclude,
        targetNamespace,
        checkpointInterval,
        parallelism,
        chunkRows,
        serverTimeZone,
        snapshotRowsPerSecond,
        partitions,
        flink,
        routes,
        heartbeatInterval,
        KafkaSyncSettings.defaults(),
        Optional.empty());
  }

  public static SyncSettings defaults() {
    return new SyncSettings(
        List.of(),
        List.of(),
        Optional.empty(),
        DEFAULT_CHECKPOINT_INTERVAL,
        DEFAULT_PARALLELISM,
        DEFAULT_CHUNK_ROWS,
        Optional.empty(),
        0,
        Map.of(),
        Optional.empty(),
        List.of(),
        DEFAULT_HEARTBEAT_INTERVAL);
  }
}

package dev.floe.sync;

import java.io.Serializable;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.cdc.connectors.mysql.source.MySqlSource;
import org.apache.flink.cdc.connectors.mysql.table.StartupOptions;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;

/**
 * The binlog pipeline, run after {@link SnapshotCopier} has copied the tables: the Flink CDC MySQL
 * source reading the binlog from the position taken before the copy, records keyed by table and
 * primary key, {@link IcebergChangeWriter}s, and one {@link IcebergChangeCommitter}.
 */
final class SyncJob {

  static final String SOURCE_UID = "floe-mysql-source";
  static final String WRITER_UID = "floe-iceberg-writer";
  static final String COMMITTER_UID = "floe-iceberg-committer";

  /** Every database but MySQL's own (Debezium matches without regard to case). */
  static final String USER_DATABASES = "(?!(mysql|information_schema|performance_schema|sys)$).*";

  private SyncJob() {}

  static void build(
      StreamExecutionEnvironment environment,
      SyncOptions options,
      String serverTimeZone,
      SyncTargets targets,
      List<String> tables,
      CatalogLoader catalogLoader,
      SnapshotState state,
      BinlogPosition overlapBound) {
    // Every type the job sends or keeps has its own serializer (docs/sync.md, "State format"):
    // a type that would fall back to Kryo fails the job's construction instead.
    environment.getConfig().disableGenericTypes();
    SourceEndpoint endpoint = SourceEndpoint.of(options.source());
    Properties debezium = new Properties();
    debezium.setProperty("bigint.unsigned.handling.mode", "precise");
    debezium.setProperty("decimal.handling.mode", "precise");
    debezium.setProperty("binary.handling.mode", "bytes");
    debezium.setProperty("time.precision.mode", "adaptive_time_microseconds");
    // With no binlog event at all the source emits no heartbeat: ask the server for its own
    // heartbeat events at the same interval (Debezium requests them every 0.8 keep-alive periods).
    debezium.setProperty(
        "connect.keep.alive.interval.ms",
        Long.toString(Math.max(1, Math.round(options.heartbeatInterval().toMillis() / 0.8))));
    int firstServerId = 5400 + ThreadLocalRandom.current().nextInt(1_000_000);
    MySqlSource<ChangeRecord> source =
        MySqlSource.<ChangeRecord>builder()
            .hostname(endpoint.host())
            .port(endpoint.port())
            .username(endpoint.user())
            .password(endpoint.password())
            .databaseList(USER_DATABASES)
            // The selection's patterns, not the tables found at start: a table created while the
            // job runs is captured too (ChangeDeserializer checks each table against the
            // selection again).
            .tableList(targets.captureList())
            .serverId(firstServerId + "-" + (firstServerId + options.parallelism()))
            .serverTimeZone(serverTimeZone)
            // SnapshotCopier copied the tables; the binlog is read from before its first read
            // (a restored job continues from its checkpointed offset instead).
            .startupOptions(
                StartupOptions.specificOffset(state.start().file(), state.start().position()))
            .includeSchemaChanges(true)
            // While no change arrives, heartbeats carry the reader's position up to the server's
            // head into each checkpoint: that is how an idle sync's lag is known to be small.
            .heartbeatInterval(options.heartbeatInterval())
            .debeziumProperties(debezium)
            .deserializer(
                new ChangeDeserializer(catalogLoader, targets, overlapBound, state.recopies()))
            .build();
    DataStream<ChangeRecord> changes =
        environment
            .fromSource(source, WatermarkStrategy.noWatermarks(), "mysql " + endpoint)
            .uid(SOURCE_UID)
            .setParallelism(options.parallelism());
    writeAndCommit(
        changes, catalogLoader, tables, state.syncId(), SourceProgress.NONE, options.parallelism());
  }

  /**
   * The write path every sync shares: changes keyed by table and primary key, {@link
   * IcebergChangeWriter}s, and one {@link IcebergChangeCommitter}.
   *
   * @param knownTables the Iceberg tables known at start ({@code namespace.table}), for metrics
   * @param initialProgress what the source had read before the job's first record (Kafka: the
   *     starting offsets); {@link SourceProgress#NONE} for a binlog
   */
  static void writeAndCommit(
      DataStream<ChangeRecord> changes,
      CatalogLoader catalogLoader,
      List<String> knownTables,
      String syncId,
      SourceProgress initialProgress,
      int parallelism) {
    changes
        .keyBy(new RowKeySelector())
        .transform(
            "iceberg writer",
            new SerializerTypeInfo<>(TableCommittable.class, TableCommittableSerializer.INSTANCE),
            new IcebergChangeWriter(catalogLoader))
        .uid(WRITER_UID)
        .setParallelism(parallelism)
        .transform(
            "iceberg committer",
            Types.VOID,
            new IcebergChangeCommitter(catalogLoader, knownTables, syncId, initialProgress))
        .uid(COMMITTER_UID)
        .setParallelism(1)
        .setMaxParallelism(1)
        .sinkTo(new DiscardingSink<>())
        .name("end")
        .setParallelism(1);
  }

  /** Routes every change of one row to one writer: table plus primary-key values. */
  static final class RowKeySelector implements KeySelector<ChangeRecord, String>, Serializable {
    private static final long serialVersionUID = 1L;

    @Override
    public String getKey(ChangeRecord change) {
      return change.key();
    }
  }
}

package dev.floe.bench;

import dev.floe.core.config.CatalogSettings;
import dev.floe.core.sync.TableSelection;
import dev.floe.iceberg.CatalogFactory;
import dev.floe.iceberg.FloeCatalog;
import dev.floe.iceberg.io.HadoopConf;
import dev.floe.sync.KafkaFormat;
import dev.floe.sync.KafkaSyncOptions;
import dev.floe.sync.KafkaSyncRunner;
import dev.floe.sync.RunningSync;
import dev.floe.sync.StateDirectory;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.formats.common.TimestampFormat;
import org.apache.flink.formats.json.debezium.DebeziumJsonDeserializationSchema;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.ExecutionCheckpointingOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.flink.TableLoader;
import org.apache.iceberg.flink.sink.FlinkSink;
import org.apache.iceberg.jdbc.JdbcCatalog;

/**
 * One side of {@code ./bench kafka-upsert} in a JVM of its own, so that its CPU time is its own:
 * either Floe's Kafka sync, or the baseline, a Flink job of Flink's {@code KafkaSource} with
 * Flink's Debezium JSON format into Iceberg's {@code FlinkSink} in upsert mode by {@code id}, on a
 * local MiniCluster with the same parallelism and checkpoint interval. Prints {@code running} once
 * the job is submitted and runs until the JVM is stopped.
 *
 * <p>Arguments: {@code floe|flinksink DATA_DIR BOOTSTRAP TOPIC[,TOPIC...] PARALLELISM
 * CHECKPOINT_SECONDS STATE_DIR}.
 */
public final class KafkaUpsertSinkProcess {

  static final String FLOE = "floe";
  static final String FLINK_SINK = "flinksink";

  /** The Kafka consumer group each side's source commits its offsets to at each checkpoint. */
  static String group(String side) {
    return side.equals(FLOE) ? "floe-sync-" + FLOE_SYNC_NAME : "flinksink-bench";
  }

  static final String FLOE_SYNC_NAME = "kafka-upsert";

  /** The Iceberg table each side writes. */
  static TableIdentifier table(String side) {
    return TableIdentifier.of(side, DebeziumWorkload.TABLE);
  }

  private KafkaUpsertSinkProcess() {}

  public static void main(String[] args) throws Exception {
    String side = args[0];
    Path data = Path.of(args[1]);
    String bootstrap = args[2];
    List<String> topics = List.of(args[3].split(","));
    int parallelism = Integer.parseInt(args[4]);
    Duration checkpointInterval = Duration.ofSeconds(Long.parseLong(args[5]));
    Path state = Path.of(args[6]);
    try (FloeCatalog catalog = new CatalogFactory().open(CatalogSettings.embedded(), data)) {
      if (side.equals(FLOE)) {
        runFloe(catalog, bootstrap, topics, parallelism, checkpointInterval, state);
      } else {
        runFlinkSink(catalog, bootstrap, topics, parallelism, checkpointInterval, state);
      }
    }
  }

  private static void runFloe(
      FloeCatalog catalog,
      String bootstrap,
      List<String> topics,
      int parallelism,
      Duration checkpointInterval,
      Path state)
      throws Exception {
    KafkaSyncOptions options =
        KafkaSyncOptions.of(
            FLOE_SYNC_NAME,
            bootstrap,
            String.join("|", topics.stream().map(java.util.regex.Pattern::quote).toList()),
            KafkaFormat.DEBEZIUM_JSON,
            TableSelection.of(
                List.of(DebeziumWorkload.DATABASE + "\\..*"), List.of(), Optional.of(FLOE)),
            checkpointInterval,
            parallelism,
            StateDirectory.local(state),
            KafkaSyncOptions.StartingOffsets.EARLIEST,
            Map.of(),
            Map.of(),
            ZoneOffset.UTC,
            KafkaSyncOptions.DEFAULT_DEAD_LETTER,
            KafkaSyncOptions.OnBadMessage.FAIL);
    RunningSync sync = new KafkaSyncRunner(catalog).start(options);
    System.out.println("running");
    System.out.flush();
    sync.await();
  }

  /** The columns of shop.orders as the Debezium messages carry them, in the table's order. */
  static DataType physicalRow() {
    return DataTypes.ROW(
        DataTypes.FIELD("id", DataTypes.BIGINT().notNull()),
        DataTypes.FIELD("customer_id", DataTypes.BIGINT()),
        DataTypes.FIELD("status", DataTypes.STRING()),
        DataTypes.FIELD("amount", DataTypes.DOUBLE()),
        DataTypes.FIELD("note", DataTypes.STRING()),
        DataTypes.FIELD("produced_ms", DataTypes.BIGINT()));
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static void runFlinkSink(
      FloeCatalog catalog,
      String bootstrap,
      List<String> topics,
      int parallelism,
      Duration checkpointInterval,
      Path state)
      throws Exception {
    Configuration configuration = new Configuration();
    configuration.set(
        CheckpointingOptions.CHECKPOINTS_DIRECTORY,
        state.resolve("checkpoints").toUri().toString());
    configuration.set(ExecutionCheckpointingOptions.CHECKPOINTING_INTERVAL, checkpointInterval);
    StreamExecutionEnvironment environment =
        StreamExecutionEnvironment.createLocalEnvironment(parallelism, configuration);
    DataType row = physicalRow();
    // Flink's own Debezium JSON format ('format' = 'debezium-json' in SQL), without the schema
    // envelope; no metadata columns (the list's element type is the format's package-private enum).
    DebeziumJsonDeserializationSchema debezium =
        new DebeziumJsonDeserializationSchema(
            row,
            (List) List.of(),
            InternalTypeInfo.of((RowType) row.getLogicalType()),
            false,
            false,
            TimestampFormat.ISO_8601);
    // The same consumer settings as Floe's source (KafkaSyncRunner).
    Properties properties = new Properties();
    properties.setProperty("isolation.level", "read_committed");
    properties.setProperty("partition.discovery.interval.ms", "10000");
    properties.setProperty("commit.offsets.on.checkpoint", "true");
    KafkaSource<RowData> source =
        KafkaSource.<RowData>builder()
            .setBootstrapServers(bootstrap)
            .setTopics(topics)
            .setGroupId(group(FLINK_SINK))
            .setProperties(properties)
            .setStartingOffsets(OffsetsInitializer.earliest())
            .setDeserializer(KafkaRecordDeserializationSchema.valueOnly(debezium))
            .build();
    DataStream<RowData> changes =
        environment
            .fromSource(source, WatermarkStrategy.noWatermarks(), "kafka " + topics)
            .setParallelism(parallelism);
    CatalogLoader catalogLoader =
        CatalogLoader.custom(
            catalog.name(), catalog.properties(), HadoopConf.create(), JdbcCatalog.class.getName());
    FlinkSink.forRowData(changes)
        .tableLoader(TableLoader.fromCatalog(catalogLoader, table(FLINK_SINK)))
        .upsert(true)
        .equalityFieldColumns(List.of("id"))
        .writeParallelism(parallelism)
        .append();
    JobClient client = environment.executeAsync("flinksink kafka-upsert");
    System.out.println("running");
    System.out.flush();
    client.getJobExecutionResult().get();
  }
}

package dev.floe.sync;

import static java.util.Objects.requireNonNull;

import dev.floe.core.error.FloeException;
import dev.floe.core.sync.SyncSummary;
import dev.floe.iceberg.FloeCatalog;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.util.SnapshotUtil;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts a Kafka sync (docs/kafka.md): checks the brokers and the topic pattern, works out where
 * each partition is read from, and runs the Flink job (Kafka source, {@link
 * KafkaChangeDeserializer}, the MySQL sync's writer and committer) on a local MiniCluster or a
 * {@link RemoteFlinkCluster}.
 *
 * <p>Resuming: from the newest checkpoint or savepoint of {@code <state>/checkpoints|savepoints}
 * when there is one (the source's offsets are in it); without one, each partition from the smallest
 * next offset the sync's tables recorded for it (each table skipping what it holds), and a
 * partition no table recorded from {@code --starting-offsets}.
 */
public final class KafkaSyncRunner {

  private static final Logger LOG = LoggerFactory.getLogger(KafkaSyncRunner.class);
  private static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(15);

  /** How often the source looks for new partitions and topics that match. */
  static final Duration PARTITION_DISCOVERY = Duration.ofSeconds(10);

  static final String SOURCE_UID = "floe-kafka-source";

  private final FloeCatalog catalog;
  private final Map<String, String> flinkSettings;
  private final Optional<RemoteFlinkCluster> cluster;

  public KafkaSyncRunner(FloeCatalog catalog) {
    this(catalog, Map.of(), Optional.empty());
  }

  private KafkaSyncRunner(
      FloeCatalog catalog,
      Map<String, String> flinkSettings,
      Optional<RemoteFlinkCluster> cluster) {
    this.catalog = requireNonNull(catalog, "catalog is null");
    this.flinkSettings = Map.copyOf(flinkSettings);
    this.cluster = requireNonNull(cluster, "cluster is null");
  }

  /** The same runner submitting the job to a Flink cluster. */
  public KafkaSyncRunner onCluster(RemoteFlinkCluster cluster) {
    return new KafkaSyncRunner(catalog, flinkSettings, Optional.of(cluster));
  }

  /** The same runner passing extra Flink configuration to the job; Floe's own settings win. */
  public KafkaSyncRunner withFlinkConfiguration(Map<String, String> settings) {
    return new KafkaSyncRunner(catalog, settings, cluster);
  }

  /** What the checks before the start found, for the command to print. */
  public record Plan(
      List<String> topics,
      int partitions,
      Optional<org.apache.flink.core.fs.Path> restorePoint,
      Map<String, KafkaOffsets> tableOffsets,
      KafkaOffsets start) {}

  /**
   * Checks the brokers and topics and submits the job; returns once it is submitted.
   *
   * @throws FloeException SOURCE_UNAVAILABLE when no broker answers; BAD_INPUT when the pattern
   *     matches no topic (the message lists those that exist), when a checkpoint cannot be read,
   *     when a partition's offset to resume from is no longer in Kafka, or when an existing target
   *     table differs from {@code --schema}; a target that does not exist is created from {@code
   *     --schema} once these checks pass
   */
  public RunningSync start(KafkaSyncOptions options) {
    cluster.ifPresent(remote -> remote.requireNotRunning(jobName(options)));
    Plan plan = plan(options);
    DeclaredTargetTable.createIfMissing(catalog.catalog(), options);
    JobClient client = submit(options, plan);
    Map<String, TableIdentifier> tables = new TreeMap<>();
    plan.tableOffsets().keySet().forEach(key -> tables.put(key, TableIdentifier.parse(key)));
    return new RunningSync(
        new SyncRun(client, tables, plan.restorePoint(), options.stateDirectory()),
        Optional.empty());
  }

  /**
   * Everything before the job: the broker check, the topics, the restore point and the offsets.
   *
   * @throws FloeException as {@link #start}
   */
  public Plan plan(KafkaSyncOptions options) {
    Pattern pattern = options.topicPattern();
    options.stateDirectory().requireReachable(SyncRunner.STATE_DIRECTORY_KEY);
    Optional<org.apache.flink.core.fs.Path> restorePoint =
        options.stateDirectory().latestRestorePoint();
    restorePoint.ifPresent(
        path -> {
          try {
            CheckpointedCommitterState.requireReadable(path);
          } catch (IOException | RuntimeException unreadable) {
            throw FloeException.badInput(
                "Cannot read the sync's checkpoint "
                    + StateDirectory.display(path)
                    + " ("
                    + unreadable.getMessage()
                    + "). Nothing was changed. Move that directory aside to restore the checkpoint"
                    + " before it, or remove "
                    + options.stateDirectory()
                    + " to resume from the tables' own offsets.");
          }
        });
    if (catalog.catalog().tableExists(options.deadLetter())) {
      KafkaTables.requireDeadLetterColumns(
          catalog.catalog().loadTable(options.deadLetter()), options.deadLetter());
    }
    DeclaredTargetTable.requireMatches(catalog.catalog(), options);
    Map<String, KafkaOffsets> tableOffsets =
        tableOffsets(catalog.catalog(), options.name(), namespaces(options));
    try (Admin admin = Admin.create(adminProperties(options))) {
      try {
        admin.describeCluster().nodes().get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      } catch (ExecutionException | TimeoutException unreachable) {
        throw FloeException.sourceUnavailable(
            "Cannot reach Kafka at "
                + options.bootstrapServers()
                + " ("
                + rootMessage(unreachable)
                + "). Check the addresses in --source kafka://HOST:PORT[,HOST:PORT...], that a"
                + " broker runs there, and the client settings (--kafka-property"
                + " security.protocol=..., sasl.*, ssl.*).",
            unreachable);
      }
      TreeSet<String> existing = new TreeSet<>(admin.listTopics().names().get());
      List<String> topics =
          existing.stream().filter(topic -> pattern.matcher(topic).matches()).toList();
      if (topics.isEmpty()) {
        List<String> shown = existing.stream().limit(50).toList();
        throw FloeException.badInput(
            "--topics '"
                + options.topics()
                + "' matches no topic on "
                + options.bootstrapServers()
                + " (the pattern must match whole topic names). Topics there: "
                + (shown.isEmpty() ? "none" : String.join(", ", shown))
                + (existing.size() > shown.size()
                    ? " and " + (existing.size() - shown.size()) + " more"
                    : "")
                + ".");
      }
      List<TopicPartition> partitions = new ArrayList<>();
      for (TopicDescription description :
          admin.describeTopics(topics).allTopicNames().get().values()) {
        for (TopicPartitionInfo info : description.partitions()) {
          partitions.add(new TopicPartition(description.name(), info.partition()));
        }
      }
      KafkaOffsets start =
          restorePoint.isPresent()
              ? KafkaOffsets.EMPTY
              : startOffsets(admin, options, partitions, tableOffsets);
      return new Plan(topics, partitions.size(), restorePoint, tableOffsets, start);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw FloeException.sourceUnavailable("Interrupted while asking Kafka", e);
    } catch (ExecutionException e) {
      throw FloeException.sourceUnavailable(
          "Kafka at " + options.bootstrapServers() + " refused a request: " + rootMessage(e), e);
    }
  }

  /**
   * Per partition, the smallest next offset any of the sync's tables recorded; for a partition no
   * table recorded, {@code --starting-offsets}.
   */
  private static KafkaOffsets startOffsets(
      Admin admin,
      KafkaSyncOptions options,
      List<TopicPartition> partitions,
      Map<String, KafkaOffsets> tableOffsets)
      throws InterruptedException, ExecutionException {
    Map<KafkaOffsets.Partition, Long> start = new HashMap<>();
    for (KafkaOffsets offsets : tableOffsets.values()) {
      offsets.next().forEach((partition, next) -> start.merge(partition, next, Math::min));
    }
    Map<TopicPartition, OffsetSpec> earliest = new HashMap<>();
    Map<TopicPartition, OffsetSpec> fallback = new HashMap<>();
    for (TopicPartition partition : partitions) {
      earliest.put(partition, OffsetSpec.earliest());
      if (!start.containsKey(
          new KafkaOffsets.Partition(partition.topic(), partition.partition()))) {
        fallback.put(
            partition,
            switch (options.startingOffsets().kind()) {
              case EARLIEST -> OffsetSpec.earliest();
              case LATEST -> OffsetSpec.latest();
              case TIMESTAMP ->
                  OffsetSpec.forTimestamp(options.startingOffsets().timestampMillis());
            });
      }
    }
    Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> first =
        admin.listOffsets(earliest).all().get();
    Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> chosen =
        fallback.isEmpty() ? Map.of() : admin.listOffsets(fallback).all().get();
    Map<TopicPartition, OffsetSpec> ends = new HashMap<>();
    for (TopicPartition partition : partitions) {
      KafkaOffsets.Partition key =
          new KafkaOffsets.Partition(partition.topic(), partition.partition());
      Long recorded = start.get(key);
      long kept = first.get(partition).offset();
      if (recorded != null) {
        if (recorded < kept) {
          throw FloeException.badInput(
              "The sync's tables hold topic "
                  + partition.topic()
                  + " partition "
                  + partition.partition()
                  + " up to offset "
                  + recorded
                  + ", but Kafka keeps that partition only from offset "
                  + kept
                  + " on (retention deleted the messages between): resuming would lose them."
                  + " Nothing was changed. Start over into new tables (another --name and"
                  + " --target-namespace) with --starting-offsets earliest.");
        }
      } else if (chosen.get(partition).offset() < 0) {
        ends.put(partition, OffsetSpec.latest()); // no message at or after the timestamp
      } else {
        start.put(key, chosen.get(partition).offset());
      }
    }
    if (!ends.isEmpty()) {
      admin
          .listOffsets(ends)
          .all()
          .get()
          .forEach(
              (partition, info) ->
                  start.put(
                      new KafkaOffsets.Partition(partition.topic(), partition.partition()),
                      info.offset()));
    }
    // Recorded offsets of partitions that no longer match are of no use to the source.
    java.util.Set<KafkaOffsets.Partition> matched = new java.util.HashSet<>();
    partitions.forEach(
        partition ->
            matched.add(new KafkaOffsets.Partition(partition.topic(), partition.partition())));
    start.keySet().retainAll(matched);
    return KafkaOffsets.of(start);
  }

  /**
   * Per Iceberg table this sync writes (property {@link KafkaTables#SYNC_PROPERTY}), the offsets
   * its newest commit recorded.
   */
  static Map<String, KafkaOffsets> tableOffsets(
      Catalog catalog, String syncName, Optional<List<Namespace>> only) {
    Map<String, KafkaOffsets> offsets = new LinkedHashMap<>();
    List<Namespace> namespaces =
        only.orElseGet(
            () ->
                catalog instanceof SupportsNamespaces listing
                    ? listing.listNamespaces()
                    : List.of());
    for (Namespace namespace : namespaces) {
      if (catalog instanceof SupportsNamespaces listing && !listing.namespaceExists(namespace)) {
        continue;
      }
      for (TableIdentifier identifier : catalog.listTables(namespace)) {
        Table table;
        try {
          table = catalog.loadTable(identifier);
        } catch (org.apache.iceberg.exceptions.NoSuchTableException droppedMeanwhile) {
          continue;
        }
        if (syncName.equals(table.properties().get(KafkaTables.SYNC_PROPERTY))) {
          offsets.put(identifier.toString(), recordedOffsets(table));
        }
      }
    }
    return offsets;
  }

  /**
   * The namespaces the sync's tables can be in, when the options say (plain JSON's target, or
   * --target-namespace and the routes' namespaces); empty: any, the catalog is searched.
   */
  static Optional<List<Namespace>> namespaces(KafkaSyncOptions options) {
    if (options.target().isPresent()) {
      return Optional.of(List.of(TableIdentifier.parse(options.target().get()).namespace()));
    }
    if (options.selection().targetNamespace().isEmpty()) {
      return Optional.empty();
    }
    java.util.Set<Namespace> namespaces = new java.util.LinkedHashSet<>();
    namespaces.add(Namespace.of(options.selection().targetNamespace().get()));
    options.selection().routes().forEach(route -> namespaces.add(Namespace.of(route.namespace())));
    return Optional.of(List.copyOf(namespaces));
  }

  /** The Kafka offsets the table's newest commit that has any recorded. */
  static KafkaOffsets recordedOffsets(Table table) {
    Snapshot current = table.currentSnapshot();
    if (current == null) {
      return KafkaOffsets.EMPTY;
    }
    for (Snapshot snapshot : SnapshotUtil.ancestorsOf(current.snapshotId(), table::snapshot)) {
      if (snapshot.summary().containsKey(SyncSummary.KAFKA_TOPICS)) {
        return KafkaOffsets.fromSummary(snapshot.summary());
      }
    }
    return KafkaOffsets.EMPTY;
  }

  private JobClient submit(KafkaSyncOptions options, Plan plan) {
    Configuration configuration =
        SyncRunner.jobConfiguration(
            flinkSettings,
            options.stateDirectory(),
            options.checkpointInterval(),
            plan.restorePoint());
    StreamExecutionEnvironment environment;
    if (cluster.isPresent()) {
      environment =
          cluster
              .get()
              .environment(
                  configuration,
                  JobJars.ofThisProcess(
                      SyncRunner.jobJarsDirectory(options.stateDirectory(), options.name())));
      environment.setParallelism(options.parallelism());
    } else {
      environment =
          StreamExecutionEnvironment.createLocalEnvironment(options.parallelism(), configuration);
    }
    environment.getConfig().disableGenericTypes();
    CatalogLoader catalogLoader = new CatalogLoader(catalog.name(), catalog.properties());
    // Plain JSON lands in its one target table, by the name its decoder gives each row.
    SyncTargets targets =
        options.format() == KafkaFormat.JSON
            ? new SyncTargets(List.of(".*"), List.of(), "", List.of())
            : SyncTargets.of(options.selection());
    Properties properties = new Properties();
    options.kafkaProperties().forEach(properties::setProperty);
    properties.setProperty("isolation.level", "read_committed");
    properties.setProperty(
        "partition.discovery.interval.ms", Long.toString(PARTITION_DISCOVERY.toMillis()));
    properties.setProperty("commit.offsets.on.checkpoint", "true");
    KafkaSource<ChangeRecord> source =
        KafkaSource.<ChangeRecord>builder()
            .setBootstrapServers(options.bootstrapServers())
            .setTopicPattern(options.topicPattern())
            .setGroupId("floe-sync-" + options.name())
            .setClientIdPrefix("floe-sync-" + options.name())
            .setProperties(properties)
            .setStartingOffsets(new KafkaStartOffsets(plan.start()))
            .setDeserializer(
                new KafkaChangeDeserializer(
                    catalogLoader,
                    targets,
                    options.name(),
                    options.decoder(),
                    options.partitions(),
                    plan.tableOffsets(),
                    options.deadLetter(),
                    options.onBadMessage(),
                    options.format() == KafkaFormat.JSON))
            .build();
    DataStream<ChangeRecord> changes =
        environment
            .fromSource(source, WatermarkStrategy.noWatermarks(), "kafka " + options.topics())
            .uid(SOURCE_UID)
            .setParallelism(options.parallelism());
    SyncJob.writeAndCommit(
        changes,
        catalogLoader,
        List.copyOf(plan.tableOffsets().keySet()),
        UUID.randomUUID().toString(),
        plan.start(),
        options.parallelism());
    try {
      JobClient client = environment.executeAsync(jobName(options));
      LOG.info(
          "kafka sync {} started as Flink job {} on {} ({} topics, {} partitions, restored from"
              + " {}, starting at {})",
          options.name(),
          client.getJobID(),
          cluster.map(Object::toString).orElse("a local MiniCluster"),
          plan.topics().size(),
          plan.partitions(),
          plan.restorePoint(),
          plan.restorePoint().isPresent() ? "the checkpoint's offsets" : plan.start());
      return client;
    } catch (Exception e) {
      throw FloeException.internal("Cannot start the Flink job: " + e.getMessage(), e);
    }
  }

  private static Properties adminProperties(KafkaSyncOptions options) {
    Properties properties = new Properties();
    options.kafkaProperties().forEach(properties::setProperty);
    properties.setProperty(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, options.bootstrapServers());
    properties.setProperty(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
    properties.setProperty(
        AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, Long.toString(ADMIN_TIMEOUT.toMillis()));
    return properties;
  }

  /** The job's name; one sync runs one job of that name at a time. */
  static String jobName(KafkaSyncOptions options) {
    return "floe sync " + options.name();
  }

  private static String rootMessage(Throwable error) {
    Throwable cause = error;
    while (cause.getCause() != null && cause.getCause() != cause) {
      cause = cause.getCause();
    }
    return cause.getClass().getSimpleName()
        + (cause.getMessage() == null ? "" : ": " + cause.getMessage());
  }
}

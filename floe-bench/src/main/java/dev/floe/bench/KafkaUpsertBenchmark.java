package dev.floe.bench;

import dev.floe.core.config.CatalogSettings;
import dev.floe.iceberg.CatalogFactory;
import dev.floe.iceberg.FloeCatalog;
import dev.floe.testing.KafkaBroker;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DeleteSchemaUtil;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Types;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Debezium JSON upserts from Kafka into Iceberg (issue 18 item 7): Floe's Kafka sync against the
 * job a Flink user writes by hand, Flink's {@code KafkaSource} with Flink's Debezium JSON format
 * into Iceberg's {@code FlinkSink} in upsert mode, each in a JVM of its own on a local MiniCluster
 * with the same parallelism and checkpoint interval.
 *
 * <p>Both read one pre-produced topic ({@link DebeziumWorkload}: a snapshot of {@code --keys} rows,
 * then {@code --changes} inserts, updates and deletes): rows per second and CPU seconds of the
 * side's JVM from its job's submission to the commit that made the last message visible. Then each
 * gets the same changes on a topic of its own at {@code --rate} messages a second for {@code
 * --seconds}: freshness is the time from producing a message to the commit of the snapshot that
 * shows its row. Finally the delete files each wrote are counted and a full scan of each result is
 * timed (Iceberg's generic reader, the median of three). Both results must equal the expected state
 * row for row, with no key twice, or the benchmark fails.
 */
final class KafkaUpsertBenchmark implements Benchmark {

  private static final String LOAD_TOPIC = "kbench.load";
  private static final long SEED = 18;
  private static final long LIVE_SEED = 7;
  private static final Duration CATCH_UP_LIMIT = Duration.ofMinutes(10);

  @Override
  public String name() {
    return "kafka-upsert";
  }

  @Override
  public String description() {
    return "Debezium JSON upserts from Kafka, Floe vs Flink KafkaSource + Iceberg FlinkSink"
        + " upsert: rows/s, CPU, delete files, scan time, freshness (--keys, --changes,"
        + " --partitions, --parallelism, --checkpoint-seconds, --rate, --seconds)";
  }

  /** What one side did. */
  private record SideResult(
      String side,
      double loadSeconds,
      double loadCpu,
      Deletes deletes,
      double scanSeconds,
      List<Long> freshness,
      Schema schema) {}

  /** The delete files and data files live in a table's current snapshot. */
  private record Deletes(
      int equalityFiles, int positionFiles, long equalityRows, long positionRows, int dataFiles) {
    int files() {
      return equalityFiles + positionFiles;
    }
  }

  @Override
  public BenchmarkResult run(BenchmarkContext context) throws Exception {
    int keys = context.intParameter("keys", 50_000);
    int changes = context.intParameter("changes", 250_000);
    int partitions = context.intParameter("partitions", 4);
    int parallelism = context.intParameter("parallelism", 2);
    int checkpointSeconds = context.intParameter("checkpoint-seconds", 5);
    int rate = context.intParameter("rate", 500);
    int seconds = context.intParameter("seconds", 45);
    Path data = context.scratchDirectory().resolve("data");
    try (KafkaBroker broker = KafkaBroker.start();
        FloeCatalog catalog = new CatalogFactory().open(CatalogSettings.embedded(), data);
        KafkaProducer<byte[], byte[]> producer = producer(broker.bootstrapServers());
        Admin admin = admin(broker.bootstrapServers())) {
      broker.createTopic(LOAD_TOPIC, partitions);
      for (String side : List.of(KafkaUpsertSinkProcess.FLINK_SINK, KafkaUpsertSinkProcess.FLOE)) {
        broker.createTopic(liveTopic(side), partitions);
      }
      DebeziumWorkload workload = DebeziumWorkload.empty(SEED);
      long produceStart = System.nanoTime();
      long now = System.currentTimeMillis();
      for (int i = 0; i < keys; i++) {
        send(producer, LOAD_TOPIC, workload.snapshotRow(now));
      }
      for (int i = 0; i < changes; i++) {
        send(producer, LOAD_TOPIC, workload.nextChange(now));
      }
      producer.flush();
      System.out.printf(
          Locale.ROOT,
          "produced %d Debezium messages (%d snapshot rows, %d changes) to %s (%d partitions) in"
              + " %.1f s; %d rows at the end%n",
          keys + changes,
          keys,
          changes,
          LOAD_TOPIC,
          partitions,
          (System.nanoTime() - produceStart) / 1e9,
          workload.rows().size());
      createBaselineTable(catalog);

      List<SideResult> results = new ArrayList<>();
      for (String side : List.of(KafkaUpsertSinkProcess.FLINK_SINK, KafkaUpsertSinkProcess.FLOE)) {
        CpuMeter.awaitIdle(null, 30);
        results.add(
            runSide(
                side,
                context,
                broker,
                catalog,
                producer,
                admin,
                workload,
                keys + changes,
                parallelism,
                checkpointSeconds,
                rate,
                seconds));
      }
      SideResult baseline = results.get(0);
      SideResult floe = results.get(1);
      if (!columns(floe.schema()).equals(columns(baseline.schema()))) {
        throw new IllegalStateException(
            "The two tables differ: Floe's has "
                + columns(floe.schema())
                + ", FlinkSink's "
                + columns(baseline.schema()));
      }
      return result(keys + changes, checkpointSeconds, baseline, floe);
    }
  }

  private static BenchmarkResult result(
      int messages, int checkpointSeconds, SideResult baseline, SideResult floe) {
    List<BenchmarkResult.Measurement> measurements = new ArrayList<>();
    measurements.add(new BenchmarkResult.Measurement("messages in the load topic", messages, ""));
    for (SideResult side : List.of(floe, baseline)) {
      String who = side.side().equals(KafkaUpsertSinkProcess.FLOE) ? "Floe" : "FlinkSink";
      measurements.add(
          new BenchmarkResult.Measurement(
              who + ": load, submit to last commit", side.loadSeconds(), "s"));
      measurements.add(
          new BenchmarkResult.Measurement(
              who + ": load rows/s", messages / side.loadSeconds(), "rows/s"));
      measurements.add(
          new BenchmarkResult.Measurement(who + ": load CPU (its JVM)", side.loadCpu(), "s"));
      measurements.add(
          new BenchmarkResult.Measurement(
              who + ": equality delete files", side.deletes().equalityFiles(), "files"));
      measurements.add(
          new BenchmarkResult.Measurement(
              who + ": position delete files", side.deletes().positionFiles(), "files"));
      measurements.add(
          new BenchmarkResult.Measurement(
              who + ": equality delete rows", side.deletes().equalityRows(), "rows"));
      measurements.add(
          new BenchmarkResult.Measurement(
              who + ": position delete rows", side.deletes().positionRows(), "rows"));
      measurements.add(
          new BenchmarkResult.Measurement(
              who + ": data files", side.deletes().dataFiles(), "files"));
      measurements.add(
          new BenchmarkResult.Measurement(
              who + ": full scan (median of 3)", side.scanSeconds(), "s"));
      measurements.add(
          new BenchmarkResult.Measurement(
              who + ": freshness p50", percentile(side.freshness(), 0.50) / 1000.0, "s"));
      measurements.add(
          new BenchmarkResult.Measurement(
              who + ": freshness p95", percentile(side.freshness(), 0.95) / 1000.0, "s"));
      measurements.add(
          new BenchmarkResult.Measurement(
              who + ": row versions timed", side.freshness().size(), "rows"));
    }
    List<BenchmarkResult.Ratio> ratios =
        List.of(
            new BenchmarkResult.Ratio(
                "load rows/s",
                messages / floe.loadSeconds(),
                messages / baseline.loadSeconds(),
                "rows/s",
                ">= 1.0"),
            new BenchmarkResult.Ratio(
                "load CPU seconds", floe.loadCpu(), baseline.loadCpu(), "s", ""),
            new BenchmarkResult.Ratio(
                "delete files",
                floe.deletes().files(),
                baseline.deletes().files(),
                "files",
                "< 1.0"),
            new BenchmarkResult.Ratio(
                "delete rows",
                floe.deletes().equalityRows() + floe.deletes().positionRows(),
                baseline.deletes().equalityRows() + baseline.deletes().positionRows(),
                "rows",
                ""),
            new BenchmarkResult.Ratio(
                "full scan of the result",
                floe.scanSeconds(),
                baseline.scanSeconds(),
                "s",
                "< 1.0"),
            new BenchmarkResult.Ratio(
                "freshness p95 (checkpoint " + checkpointSeconds + " s)",
                percentile(floe.freshness(), 0.95) / 1000.0,
                percentile(baseline.freshness(), 0.95) / 1000.0,
                "s",
                ""));
    return new BenchmarkResult(measurements, ratios);
  }

  private SideResult runSide(
      String side,
      BenchmarkContext context,
      KafkaBroker broker,
      FloeCatalog catalog,
      KafkaProducer<byte[], byte[]> producer,
      Admin admin,
      DebeziumWorkload loaded,
      int messages,
      int parallelism,
      int checkpointSeconds,
      int rate,
      int seconds)
      throws Exception {
    String who = side.equals(KafkaUpsertSinkProcess.FLOE) ? "Floe" : "FlinkSink";
    TableIdentifier identifier = KafkaUpsertSinkProcess.table(side);
    Path log = context.scratchDirectory().resolve(side + ".log");
    List<String> topics = List.of(LOAD_TOPIC, liveTopic(side));
    Process process =
        startProcess(
            side,
            context.scratchDirectory().resolve("data"),
            broker.bootstrapServers(),
            topics,
            parallelism,
            checkpointSeconds,
            context.scratchDirectory().resolve("state-" + side),
            log);
    try {
      awaitRunning(process, log);
      long startMillis = System.currentTimeMillis();
      double startCpu = CpuMeter.processCpuSeconds(process.pid());
      CatchUp load =
          awaitCaughtUp(
              process, log, catalog, identifier, admin, side, topics, checkpointSeconds, true);
      double loadSeconds = (load.lastCommitMillis() - startMillis) / 1000.0;
      double loadCpu = load.cpuAt(load.lastCommitMillis()) - startCpu;
      requireExpected(who + " after the load", load(catalog, identifier), loaded.rows());
      System.out.printf(
          Locale.ROOT,
          "%s: %d messages committed %.1f s after the job's submission (%.0f rows/s, %.1f CPU s)%n",
          who,
          messages,
          loadSeconds,
          messages / loadSeconds,
          loadCpu);

      // Freshness: the same changes for both sides, at a fixed rate, on the side's own topic.
      DebeziumWorkload live = loaded.copy(LIVE_SEED);
      CommitFreshness freshness = new CommitFreshness(load(catalog, identifier));
      AtomicReference<Exception> failed = new AtomicReference<>();
      Thread sender =
          new Thread(
              () -> {
                try {
                  paced(producer, liveTopic(side), live, rate, seconds);
                } catch (Exception e) {
                  failed.set(e);
                }
              },
              "kafka-upsert-live");
      sender.start();
      while (sender.isAlive()) {
        TimeUnit.MILLISECONDS.sleep(500); // the polling period of the freshness measurement
        requireAlive(process, log);
        freshness.poll(load(catalog, identifier));
      }
      if (failed.get() != null) {
        throw failed.get();
      }
      awaitCaughtUp(
          process, log, catalog, identifier, admin, side, topics, checkpointSeconds, false);
      freshness.poll(load(catalog, identifier));
      stop(process);

      Table table = load(catalog, identifier);
      requireExpected(who + " at the end", table, live.rows());
      Deletes deletes = deletes(table);
      double scan = medianScanSeconds(table, 3);
      List<Long> latencies = freshness.latencies();
      Collections.sort(latencies);
      System.out.printf(
          Locale.ROOT,
          "%s: %d delete files (%d equality, %d position), full scan %.2f s, freshness p95 %.2f s"
              + " over %d row versions%n",
          who,
          deletes.files(),
          deletes.equalityFiles(),
          deletes.positionFiles(),
          scan,
          percentile(latencies, 0.95) / 1000.0,
          latencies.size());
      return new SideResult(side, loadSeconds, loadCpu, deletes, scan, latencies, table.schema());
    } finally {
      process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    }
  }

  private static String liveTopic(String side) {
    return "kbench.live." + side;
  }

  /** The baseline's table: what Floe's sync creates from these messages (checked at the end). */
  private static void createBaselineTable(FloeCatalog catalog) {
    Schema schema =
        new Schema(
            List.of(
                Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.optional(2, "customer_id", Types.LongType.get()),
                Types.NestedField.optional(3, "status", Types.StringType.get()),
                Types.NestedField.optional(4, "amount", Types.DoubleType.get()),
                Types.NestedField.optional(5, "note", Types.StringType.get()),
                Types.NestedField.optional(6, "produced_ms", Types.LongType.get())),
            Set.of(1));
    TableIdentifier identifier = KafkaUpsertSinkProcess.table(KafkaUpsertSinkProcess.FLINK_SINK);
    if (catalog.catalog() instanceof SupportsNamespaces namespaces) {
      namespaces.createNamespace(identifier.namespace());
    }
    catalog
        .catalog()
        .buildTable(identifier, schema)
        .withProperty(TableProperties.FORMAT_VERSION, "2")
        .create();
  }

  private static List<String> columns(Schema schema) {
    List<String> columns = new ArrayList<>();
    for (Types.NestedField field : schema.columns()) {
      columns.add(field.name() + " " + field.type());
    }
    columns.add("key " + schema.identifierFieldNames());
    return columns;
  }

  private static KafkaProducer<byte[], byte[]> producer(String bootstrap) {
    Properties properties = new Properties();
    properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    properties.put(ProducerConfig.ACKS_CONFIG, "all");
    properties.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    properties.put(ProducerConfig.LINGER_MS_CONFIG, "0");
    properties.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    properties.put(
        ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    return new KafkaProducer<>(properties);
  }

  private static Admin admin(String bootstrap) {
    Properties properties = new Properties();
    properties.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    return Admin.create(properties);
  }

  /** Sends a change keyed by its primary key, as Debezium does (one key, one partition). */
  private static void send(
      KafkaProducer<byte[], byte[]> producer, String topic, DebeziumWorkload.Change change) {
    producer.send(
        new ProducerRecord<>(
            topic,
            change.key().getBytes(StandardCharsets.UTF_8),
            change.value().getBytes(StandardCharsets.UTF_8)),
        (metadata, error) -> {
          if (error != null) {
            System.err.println("a message was not sent: " + error);
          }
        });
  }

  /** Sends {@code rate} changes a second for {@code seconds}, each stamped when it is sent. */
  private static void paced(
      KafkaProducer<byte[], byte[]> producer,
      String topic,
      DebeziumWorkload workload,
      int rate,
      int seconds)
      throws InterruptedException {
    long pause = 1_000_000_000L / rate;
    long next = System.nanoTime();
    for (long i = 0; i < (long) rate * seconds; i++) {
      send(producer, topic, workload.nextChange(System.currentTimeMillis()));
      next += pause;
      long wait = next - System.nanoTime();
      if (wait > 0) {
        TimeUnit.NANOSECONDS.sleep(wait); // pacing the load at --rate
      }
    }
    producer.flush();
  }

  private static Process startProcess(
      String side,
      Path data,
      String bootstrap,
      List<String> topics,
      int parallelism,
      int checkpointSeconds,
      Path state,
      Path log)
      throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    for (String argument : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (argument.startsWith("--add-opens") || argument.startsWith("--add-exports")) {
        command.add(argument);
      }
    }
    command.add("-Xmx2g");
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(KafkaUpsertSinkProcess.class.getName());
    command.add(side);
    command.add(data.toString());
    command.add(bootstrap);
    command.add(String.join(",", topics));
    command.add(Integer.toString(parallelism));
    command.add(Integer.toString(checkpointSeconds));
    command.add(state.toString());
    return new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(log.toFile())
        .start();
  }

  private static void awaitRunning(Process process, Path log) throws Exception {
    long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
    while (!Files.readAllLines(log).contains("running")) {
      requireAlive(process, log);
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the job did not start within 2 minutes:\n" + tail(log));
      }
      TimeUnit.MILLISECONDS.sleep(100); // polling the child's output for its start
    }
  }

  private static void requireAlive(Process process, Path log) throws IOException {
    if (!process.isAlive()) {
      throw new IllegalStateException("the job's JVM ended:\n" + tail(log));
    }
  }

  private static String tail(Path log) throws IOException {
    List<String> lines = Files.readAllLines(log);
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
  }

  private static void stop(Process process) throws InterruptedException {
    process.destroy();
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    }
  }

  /**
   * When the side had committed everything: the time of its last commit that changed the table, and
   * its JVM's CPU time sampled on the way.
   */
  private record CatchUp(long lastCommitMillis, List<long[]> cpuSamples) {
    /** The CPU seconds of the first sample taken at or after {@code millis}. */
    double cpuAt(long millis) {
      for (long[] sample : cpuSamples) {
        if (sample[0] >= millis) {
          return sample[1] / 1000.0;
        }
      }
      return cpuSamples.get(cpuSamples.size() - 1)[1] / 1000.0;
    }
  }

  /**
   * Waits until the side's source committed, at a checkpoint, the end offset of every partition of
   * its topics and no commit changed the table for two checkpoint intervals since: its last change
   * to the table is then the commit of the checkpoint that covered the last message.
   */
  private static CatchUp awaitCaughtUp(
      Process process,
      Path log,
      FloeCatalog catalog,
      TableIdentifier identifier,
      Admin admin,
      String side,
      List<String> topics,
      int checkpointSeconds,
      boolean sampleCpu)
      throws Exception {
    Map<TopicPartition, Long> ends = endOffsets(admin, topics);
    List<long[]> samples = new ArrayList<>();
    long deadline = System.nanoTime() + CATCH_UP_LIMIT.toNanos();
    long quiet = (2L * checkpointSeconds + 2) * 1000;
    long lastCommit = -1;
    long lastChangeSeen = System.currentTimeMillis();
    while (true) {
      requireAlive(process, log);
      long now = System.currentTimeMillis();
      if (sampleCpu) {
        samples.add(new long[] {now, Math.round(CpuMeter.processCpuSeconds(process.pid()) * 1000)});
      }
      if (catalog.catalog().tableExists(identifier)) {
        long newest = lastChange(catalog.catalog().loadTable(identifier));
        if (newest != lastCommit) {
          lastCommit = newest;
          lastChangeSeen = now;
        }
      }
      if (lastCommit > 0
          && now - lastChangeSeen > quiet
          && committedAll(admin, KafkaUpsertSinkProcess.group(side), ends)) {
        return new CatchUp(lastCommit, samples);
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            side + " did not commit every message within " + CATCH_UP_LIMIT + ":\n" + tail(log));
      }
      TimeUnit.MILLISECONDS.sleep(250); // polling period: the CPU samples' resolution
    }
  }

  /** The time of the newest snapshot that added data or delete files. */
  private static long lastChange(Table table) {
    long newest = -1;
    for (Snapshot snapshot : table.snapshots()) {
      Map<String, String> summary = snapshot.summary();
      boolean changed =
          !"0".equals(summary.getOrDefault("added-data-files", "0"))
              || !"0".equals(summary.getOrDefault("added-delete-files", "0"));
      if (changed) {
        newest = Math.max(newest, snapshot.timestampMillis());
      }
    }
    return newest;
  }

  private static Map<TopicPartition, Long> endOffsets(Admin admin, List<String> topics)
      throws Exception {
    Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
    admin
        .describeTopics(topics)
        .allTopicNames()
        .get()
        .forEach(
            (topic, description) ->
                description
                    .partitions()
                    .forEach(
                        partition ->
                            latest.put(
                                new TopicPartition(topic, partition.partition()),
                                OffsetSpec.latest())));
    Map<TopicPartition, Long> ends = new HashMap<>();
    admin
        .listOffsets(latest)
        .all()
        .get()
        .forEach((partition, info) -> ends.put(partition, info.offset()));
    return ends;
  }

  private static boolean committedAll(Admin admin, String group, Map<TopicPartition, Long> ends)
      throws Exception {
    Map<TopicPartition, OffsetAndMetadata> committed =
        admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
    for (Map.Entry<TopicPartition, Long> end : ends.entrySet()) {
      OffsetAndMetadata offset = committed.get(end.getKey());
      long at = offset == null ? 0 : offset.offset();
      if (at < end.getValue()) {
        return false;
      }
    }
    return true;
  }

  private static Table load(FloeCatalog catalog, TableIdentifier identifier) {
    return catalog.catalog().loadTable(identifier);
  }

  /**
   * Fails unless the table holds exactly the expected rows, each key once.
   *
   * @throws IllegalStateException naming what differs
   */
  private static void requireExpected(
      String what, Table table, Map<Long, DebeziumWorkload.Row> expected) throws IOException {
    Map<Long, Record> found = new HashMap<>();
    List<String> differences = new ArrayList<>();
    int wrong = 0;
    try (CloseableIterable<Record> rows = IcebergGenerics.read(table).build()) {
      for (Record row : rows) {
        long id = (Long) row.getField("id");
        if (found.put(id, row) != null) {
          wrong++;
          if (differences.size() < 5) {
            differences.add("id " + id + " twice");
          }
        }
      }
    }
    for (Map.Entry<Long, DebeziumWorkload.Row> entry : expected.entrySet()) {
      Record row = found.get(entry.getKey());
      DebeziumWorkload.Row want = entry.getValue();
      if (row == null
          || !Long.valueOf(want.customerId()).equals(row.getField("customer_id"))
          || !want.status().equals(row.getField("status"))
          || !Double.valueOf(want.amountValue()).equals(row.getField("amount"))
          || !want.note().equals(row.getField("note"))
          || !Long.valueOf(want.producedMillis()).equals(row.getField("produced_ms"))) {
        wrong++;
        if (differences.size() < 5) {
          differences.add("id " + entry.getKey() + ": expected " + want + ", found " + row);
        }
      }
    }
    for (Long id : found.keySet()) {
      if (!expected.containsKey(id)) {
        wrong++;
        if (differences.size() < 5) {
          differences.add("id " + id + " should be deleted, found " + found.get(id));
        }
      }
    }
    if (wrong > 0) {
      throw new IllegalStateException(
          what
              + ": "
              + table.name()
              + " differs from the expected state in "
              + wrong
              + " rows ("
              + found.size()
              + " found, "
              + expected.size()
              + " expected), e.g. "
              + differences);
    }
  }

  private static Deletes deletes(Table table) throws IOException {
    int equalityFiles = 0;
    int positionFiles = 0;
    long equalityRows = 0;
    long positionRows = 0;
    Snapshot current = table.currentSnapshot();
    for (ManifestFile manifest : current.deleteManifests(table.io())) {
      try (ManifestReader<DeleteFile> reader =
          ManifestFiles.readDeleteManifest(manifest, table.io(), table.specs())) {
        for (DeleteFile file : reader) {
          if (file.content() == FileContent.EQUALITY_DELETES) {
            equalityFiles++;
            equalityRows += file.recordCount();
          } else {
            positionFiles++;
            positionRows += file.recordCount();
          }
        }
      }
    }
    int dataFiles = Integer.parseInt(current.summary().getOrDefault("total-data-files", "-1"));
    return new Deletes(equalityFiles, positionFiles, equalityRows, positionRows, dataFiles);
  }

  private static double medianScanSeconds(Table table, int times) throws IOException {
    List<Double> durations = new ArrayList<>();
    for (int i = 0; i < times; i++) {
      long start = System.nanoTime();
      long rows = 0;
      try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
        for (Record ignored : records) {
          rows++;
        }
      }
      durations.add((System.nanoTime() - start) / 1e9);
      if (rows < 0) {
        throw new IllegalStateException("unreachable"); // keeps the loop from being elided
      }
    }
    Collections.sort(durations);
    return durations.get(times / 2);
  }

  /**
   * Produce to visible: for each snapshot committed since it started, the rows of the data files it
   * added, less those its own position deletes remove (rows superseded within the commit), each
   * timed from its {@code produced_ms} to the snapshot's commit time.
   */
  private static final class CommitFreshness {
    private final Set<Long> seen = new HashSet<>();
    private final List<Long> latencies = new ArrayList<>();

    CommitFreshness(Table table) {
      table.snapshots().forEach(snapshot -> seen.add(snapshot.snapshotId()));
    }

    void poll(Table table) throws IOException {
      List<Snapshot> fresh = new ArrayList<>();
      for (Snapshot snapshot : table.snapshots()) {
        if (seen.add(snapshot.snapshotId())) {
          fresh.add(snapshot);
        }
      }
      for (Snapshot snapshot : fresh) {
        collect(table, snapshot);
      }
    }

    private void collect(Table table, Snapshot snapshot) throws IOException {
      Map<String, Set<Long>> superseded = new HashMap<>();
      for (DeleteFile deletes : snapshot.addedDeleteFiles(table.io())) {
        if (deletes.content() != FileContent.POSITION_DELETES) {
          continue;
        }
        try (CloseableIterable<Record> positions =
            read(table, deletes.location(), DeleteSchemaUtil.pathPosSchema())) {
          for (Record position : positions) {
            superseded
                .computeIfAbsent(position.get(0, String.class), any -> new HashSet<>())
                .add(position.get(1, Long.class));
          }
        }
      }
      for (DataFile data : snapshot.addedDataFiles(table.io())) {
        Set<Long> gone = superseded.getOrDefault(data.location(), Set.of());
        long position = 0;
        try (CloseableIterable<Record> rows = read(table, data.location(), table.schema())) {
          for (Record row : rows) {
            if (!gone.contains(position++)) {
              latencies.add(snapshot.timestampMillis() - (Long) row.getField("produced_ms"));
            }
          }
        }
      }
    }

    private static CloseableIterable<Record> read(Table table, String location, Schema schema) {
      return Parquet.read(table.io().newInputFile(location))
          .project(schema)
          .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(schema, fileSchema))
          .build();
    }

    List<Long> latencies() {
      return new ArrayList<>(latencies);
    }
  }

  private static double percentile(List<Long> sorted, double quantile) {
    if (sorted.isEmpty()) {
      return Double.NaN;
    }
    List<Long> copy = new ArrayList<>(sorted);
    Collections.sort(copy);
    return copy.get(Math.min(copy.size() - 1, (int) Math.ceil(quantile * copy.size()) - 1));
  }
}

package dev.floe.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.floe.core.config.CatalogSettings;
import dev.floe.core.error.FloeException;
import dev.floe.core.sync.SyncSummary;
import dev.floe.core.sync.TableSelection;
import dev.floe.iceberg.CatalogFactory;
import dev.floe.iceberg.FloeCatalog;
import dev.floe.testing.KafkaBroker;
import dev.floe.testing.Poll;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code floe sync --source kafka://...} end to end: a real broker (KRaft, its own JVM), the Flink
 * job on a MiniCluster, real Iceberg tables in the embedded catalog.
 */
class KafkaSyncITCase {

  private static final Duration DEADLINE = Duration.ofSeconds(90);
  private static final Map<String, String> ORDERS =
      columns("id", "bigint(20)", "name", "varchar(64)", "qty", "int(11)");
  static final Map<String, String> ORDERS_WITH_NOTE =
      columns("id", "bigint(20)", "name", "varchar(64)", "qty", "int(11)", "note", "varchar(32)");
  static final Map<String, String> CUSTOMERS = columns("id", "bigint(20)", "email", "varchar(128)");

  @TempDir Path directory;

  private final KafkaBroker broker = KafkaBroker.shared();
  private FloeCatalog catalog;

  @BeforeEach
  void setUp() {
    catalog = new CatalogFactory().open(CatalogSettings.embedded(), directory.resolve("data"));
  }

  @AfterEach
  void tearDown() {
    catalog.close();
  }

  static Map<String, String> columns(String... namesAndTypes) {
    Map<String, String> columns = new LinkedHashMap<>();
    for (int i = 0; i < namesAndTypes.length; i += 2) {
      columns.put(namesAndTypes[i], namesAndTypes[i + 1]);
    }
    return columns;
  }

  /** Inserts, updates (one changes a row's every column) and deletes of shop.orders. */
  static void firstChanges(CdcScenario scenario, int rows) {
    scenario.table("shop.orders", ORDERS);
    for (long id = 1; id <= rows; id++) {
      scenario.insert("shop.orders", id, "order " + id, (int) id);
    }
    for (long id = 3; id <= rows; id += 3) {
      scenario.update("shop.orders", id, "name", "changed " + id, "qty", (int) id * 10);
    }
    for (long id = 5; id <= rows; id += 5) {
      scenario.delete("shop.orders", id);
    }
    scenario.noRowMessage("shop.orders");
  }

  /** A new column on shop.orders, a re-insert of a deleted key, and a new table shop.customers. */
  static void secondChanges(CdcScenario scenario, int rows) {
    scenario.table("shop.orders", ORDERS_WITH_NOTE);
    for (long id = 4; id <= rows; id += 4) {
      if (scenario.expected().get("shop.orders").containsKey(id)) {
        scenario.update("shop.orders", id, "note", "note " + id);
      }
    }
    scenario.insert("shop.orders", 5, "back again", 55, "re-inserted");
    for (long id = rows + 1; id <= rows + 10; id++) {
      scenario.insert("shop.orders", id, "late " + id, (int) id, "new");
    }
    scenario.delete("shop.orders", rows + 10);
    scenario.table("shop.customers", CUSTOMERS);
    for (long id = 1; id <= 12; id++) {
      scenario.insert("shop.customers", id, "c" + id + "@example.com");
    }
    scenario.update("shop.customers", 2, "email", "two@example.com");
    scenario.delete("shop.customers", 3);
  }

  KafkaSyncOptions options(String name, String topic, KafkaFormat format) {
    return KafkaSyncOptions.of(
        name,
        broker.bootstrapServers(),
        topic,
        format,
        TableSelection.of(List.of("shop\\..*"), List.of(), Optional.empty()),
        Duration.ofSeconds(1),
        2,
        StateDirectory.local(directory.resolve("state").resolve(name)),
        KafkaSyncOptions.StartingOffsets.EARLIEST,
        Map.of(),
        Map.of(),
        ZoneOffset.UTC,
        KafkaSyncOptions.DEFAULT_DEAD_LETTER,
        KafkaSyncOptions.OnBadMessage.DEAD_LETTER);
  }

  void awaitEqual(CdcScenario scenario) throws Exception {
    Poll.untilNothingWrong(
        "the lake holds the expected rows",
        DEADLINE,
        Duration.ofMillis(500),
        () -> {
          List<String> differences = new ArrayList<>();
          for (Map.Entry<String, TreeMap<Long, LinkedHashMap<String, Object>>> table :
              scenario.expected().entrySet()) {
            TableIdentifier identifier = TableIdentifier.parse(table.getKey());
            if (!catalog.catalog().tableExists(identifier)) {
              differences.add(identifier + " does not exist yet");
              continue;
            }
            CdcScenario.difference(catalog.catalog().loadTable(identifier), table.getValue())
                .ifPresent(differences::add);
          }
          return differences.isEmpty() ? Optional.empty() : Optional.of(differences.toString());
        });
  }

  private static String uniqueTopic(String prefix) {
    return prefix + "-" + Long.toHexString(System.nanoTime());
  }

  @ParameterizedTest
  @EnumSource(
      value = KafkaFormat.class,
      names = {"CANAL_JSON", "DEBEZIUM_JSON", "MAXWELL_JSON"})
  void eachFormatThroughInsertsUpdatesDeletesANewColumnAndANewTable(KafkaFormat format)
      throws Exception {
    String topic = uniqueTopic("cdc-" + format.option());
    broker.createTopic(topic, 3);
    CdcScenario scenario = new CdcScenario(format);
    firstChanges(scenario, 40);
    broker.send(topic, scenario.take());
    try (RunningSync sync = new KafkaSyncRunner(catalog).start(options("it", topic, format))) {
      awaitEqual(scenario);
      secondChanges(scenario, 40);
      List<KafkaBroker.Sent> sent = broker.send(topic, scenario.take());
      awaitEqual(scenario);

      Table orders = catalog.catalog().loadTable(TableIdentifier.of("shop", "orders"));
      assertThat(orders.schema().identifierFieldNames()).containsExactly("id");
      assertThat(orders.schema().findField("note").isOptional()).isTrue();
      Map<String, String> summary = orders.currentSnapshot().summary();
      assertThat(summary)
          .containsEntry(SyncSummary.KAFKA_TOPICS, topic)
          .containsKeys(
              SyncSummary.SYNC_ID, SyncSummary.CHECKPOINT_ID, SyncSummary.SOURCE_WATERMARK_MS);
      // Every message read is covered by the offsets the tables recorded: per partition, the
      // highest next offset over the tables is the partition's end.
      Map<KafkaOffsets.Partition, Long> ends = new TreeMap<>();
      for (KafkaBroker.Sent message : sent) {
        ends.merge(
            new KafkaOffsets.Partition(message.topic(), message.partition()),
            message.offset() + 1,
            Math::max);
      }
      Map<KafkaOffsets.Partition, Long> recorded = new TreeMap<>();
      for (String table : List.of("orders", "customers")) {
        KafkaSyncRunner.recordedOffsets(
                catalog.catalog().loadTable(TableIdentifier.of("shop", table)))
            .next()
            .forEach((partition, next) -> recorded.merge(partition, next, Math::max));
      }
      assertThat(ends).as("messages went to several partitions").hasSizeGreaterThan(1);
      Poll.until(
          "the recorded offsets reach the end of every partition",
          DEADLINE,
          Duration.ofMillis(500),
          () -> {
            Map<KafkaOffsets.Partition, Long> now = new TreeMap<>();
            for (String table : List.of("orders", "customers")) {
              KafkaSyncRunner.recordedOffsets(
                      catalog.catalog().loadTable(TableIdentifier.of("shop", table)))
                  .next()
                  .forEach((partition, next) -> now.merge(partition, next, Math::max));
            }
            return now.entrySet().containsAll(ends.entrySet());
          });
      sync.cancel(Duration.ofSeconds(60));
    }
  }

  @Test
  void restartWithTheCheckpointsRemovedResumesFromTheTablesOwnOffsets() throws Exception {
    String topic = uniqueTopic("cdc-restart");
    broker.createTopic(topic, 3);
    CdcScenario scenario = new CdcScenario(KafkaFormat.CANAL_JSON);
    scenario.table("shop.customers", CUSTOMERS);
    for (long id = 100; id < 106; id++) {
      scenario.insert("shop.customers", id, "early" + id + "@example.com");
    }
    scenario.table("shop.orders", ORDERS);
    for (long id = 1; id <= 60; id++) {
      scenario.insert("shop.orders", id, "order " + id, (int) id);
    }
    broker.send(topic, scenario.take());
    KafkaSyncOptions options = options("restart", topic, KafkaFormat.CANAL_JSON);
    try (RunningSync sync = new KafkaSyncRunner(catalog).start(options)) {
      awaitEqual(scenario);
      // shop.customers' offsets stay here; shop.orders' move on
      for (long id = 3; id <= 60; id += 3) {
        scenario.update("shop.orders", id, "name", "changed " + id, "qty", (int) id * 10);
      }
      for (long id = 5; id <= 60; id += 5) {
        scenario.delete("shop.orders", id);
      }
      broker.send(topic, scenario.take());
      awaitEqual(scenario);
      sync.cancel(Duration.ofSeconds(60));
    }
    KafkaOffsets customersHeld =
        KafkaSyncRunner.recordedOffsets(
            catalog.catalog().loadTable(TableIdentifier.of("shop", "customers")));
    KafkaOffsets ordersHeld =
        KafkaSyncRunner.recordedOffsets(
            catalog.catalog().loadTable(TableIdentifier.of("shop", "orders")));
    assertThat(customersHeld.next()).hasSize(3);
    assertThat(ordersHeld.next()).hasSize(3);
    assertThat(customersHeld).isNotEqualTo(ordersHeld);
    Table orders = catalog.catalog().loadTable(TableIdentifier.of("shop", "orders"));
    long snapshotsBefore = ancestors(orders).size();
    deleteRecursively(options.stateDirectory().localPath().orElseThrow());

    secondChanges(scenario, 60);
    List<KafkaBroker.Message> second = scenario.take();
    broker.send(topic, second);
    KafkaSyncRunner.Plan plan = new KafkaSyncRunner(catalog).plan(options);
    assertThat(plan.restorePoint()).isEmpty();
    Map<KafkaOffsets.Partition, Long> smallest = new TreeMap<>(ordersHeld.next());
    customersHeld.next().forEach((partition, next) -> smallest.merge(partition, next, Math::min));
    assertThat(plan.start().next())
        .as("each partition starts at the smallest offset a table recorded")
        .isEqualTo(smallest);
    assertThat(plan.start().next().values()).allMatch(offset -> offset > 0);
    try (RunningSync sync = new KafkaSyncRunner(catalog).start(options)) {
      awaitEqual(scenario);
      sync.cancel(Duration.ofSeconds(60));
    }
    // Only the messages after the recorded offsets were written again: the rows the new commits
    // added are of keys the second batch upserted, not the first batch's once more. (The writer
    // folds a key's changes within a checkpoint, so there may be fewer rows than upserts.)
    orders.refresh();
    List<Snapshot> history = ancestors(orders);
    java.util.Set<Long> addedKeys = new java.util.TreeSet<>();
    long added = 0;
    for (Snapshot snapshot : history.subList(0, history.size() - (int) snapshotsBefore)) {
      for (org.apache.iceberg.DataFile file : snapshot.addedDataFiles(orders.io())) {
        for (Record row : dataFileRows(orders, snapshot, file)) {
          addedKeys.add((Long) row.getField("id"));
          added++;
        }
      }
    }
    java.util.Set<Long> secondOrderUpserts = new java.util.TreeSet<>();
    for (KafkaBroker.Message message : second) {
      if (message.key().startsWith("shop.orders:") && !message.value().contains("\"DELETE\"")) {
        secondOrderUpserts.add(Long.parseLong(message.key().substring("shop.orders:".length())));
      }
    }
    assertThat(secondOrderUpserts).isNotEmpty();
    assertThat(addedKeys)
        .as("keys of the rows added after the restart")
        .isSubsetOf(secondOrderUpserts);
    java.util.Set<Long> stillThere = new java.util.TreeSet<>(secondOrderUpserts);
    stillThere.retainAll(scenario.expected().get("shop.orders").keySet());
    assertThat(addedKeys)
        .as("every key the second batch upserted and did not delete")
        .containsAll(stillThere);
    assertThat(added)
        .as("no row added twice: the second batch upserts each key once")
        .isEqualTo(addedKeys.size());
  }

  private static List<Record> dataFileRows(
      Table table, Snapshot snapshot, org.apache.iceberg.DataFile file) throws Exception {
    org.apache.iceberg.Schema schema = table.schemas().get(snapshot.schemaId());
    List<Record> rows = new ArrayList<>();
    try (CloseableIterable<Record> records =
        org.apache.iceberg.parquet.Parquet.read(table.io().newInputFile(file.location()))
            .project(schema)
            .createReaderFunc(
                fileSchema ->
                    org.apache.iceberg.data.parquet.GenericParquetReaders.buildReader(
                        schema, fileSchema))
            .build()) {
      records.forEach(rows::add);
    }
    return rows;
  }

  @Test
  void badMessagesGoToTheDeadLetterTableWithTheirReason() throws Exception {
    String topic = uniqueTopic("cdc-bad");
    broker.createTopic(topic, 1);
    CdcScenario scenario = new CdcScenario(KafkaFormat.CANAL_JSON);
    scenario.table("shop.orders", ORDERS);
    scenario.insert("shop.orders", 1, "one", 1);
    broker.send(topic, scenario.take());
    KafkaBroker.Sent notJson = broker.sendBytes(topic, "k".getBytes(), "not json".getBytes());
    KafkaBroker.Sent otherKey =
        broker
            .send(
                topic,
                List.of(
                    KafkaBroker.Message.of(
                        "shop.orders:2",
                        "{\"data\":[{\"id\":\"2\",\"name\":\"x\"}],\"database\":\"shop\","
                            + "\"table\":\"orders\",\"type\":\"INSERT\",\"pkNames\":[\"name\"],"
                            + "\"mysqlType\":{\"id\":\"bigint(20)\",\"name\":\"varchar(64)\"}}")))
            .get(0);
    scenario.insert("shop.orders", 3, "three", 3);
    broker.send(topic, scenario.take());
    try (RunningSync sync =
        new KafkaSyncRunner(catalog).start(options("bad", topic, KafkaFormat.CANAL_JSON))) {
      awaitEqual(scenario);
      Map<Long, Record> rejected =
          Poll.until(
              "both bad messages are in the dead-letter table",
              DEADLINE,
              Duration.ofMillis(500),
              () -> {
                Map<Long, Record> found = deadLetters();
                return found.size() == 2 ? Optional.of(found) : Optional.empty();
              });
      Record first = rejected.get(notJson.offset());
      assertThat(first.getField("sync")).isEqualTo("bad");
      assertThat(first.getField("topic")).isEqualTo(topic);
      assertThat(first.getField("partition")).isEqualTo(0);
      assertThat(first.getField("reason"))
          .isEqualTo(
              "the value is not JSON (Unrecognized token 'not': was expecting (JSON String,"
                  + " Number, Array, Object or token 'null', 'true' or 'false')): not json");
      assertThat(bytes(first.getField("value"))).isEqualTo("not json");
      assertThat(bytes(first.getField("key"))).isEqualTo("k");
      assertThat(rejected.get(otherKey.offset()).getField("reason"))
          .isEqualTo(
              "the message of shop.orders has the primary key (name) but Iceberg table"
                  + " shop.orders is keyed by (id): one table cannot have two different keys");
      sync.cancel(Duration.ofSeconds(60));
    }
  }

  @Test
  void onBadMessageFailStopsNamingTheMessage() throws Exception {
    String topic = uniqueTopic("cdc-fail");
    broker.createTopic(topic, 1);
    KafkaBroker.Sent bad = broker.sendBytes(topic, null, "{\"type\":\"INSERT\"}".getBytes());
    KafkaSyncOptions base = options("fail", topic, KafkaFormat.CANAL_JSON);
    KafkaSyncOptions options =
        KafkaSyncOptions.of(
            base.name(),
            base.bootstrapServers(),
            base.topics(),
            base.format(),
            base.selection(),
            base.checkpointInterval(),
            1,
            base.stateDirectory(),
            base.startingOffsets(),
            base.kafkaProperties(),
            base.partitions(),
            base.serverTimeZone(),
            base.deadLetter(),
            KafkaSyncOptions.OnBadMessage.FAIL);
    try (RunningSync sync = new KafkaSyncRunner(catalog).start(options)) {
      assertThatThrownBy(sync::await)
          .hasStackTraceContaining(
              "The Kafka message at topic "
                  + topic
                  + " partition 0 offset "
                  + bad.offset()
                  + " cannot be applied: a Canal JSON INSERT message needs \"database\"");
    }
  }

  private KafkaSyncOptions json(String name, String topic, String target, List<String> key) {
    return options(name, topic, KafkaFormat.CANAL_JSON).asPlainJson(Optional.of(target), key);
  }

  private Map<String, String> rows(TableIdentifier identifier, String key) throws Exception {
    Map<String, String> rows = new TreeMap<>();
    if (!catalog.catalog().tableExists(identifier)) {
      return rows;
    }
    Table table = catalog.catalog().loadTable(identifier);
    table.refresh();
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      int n = 0;
      for (Record record : records) {
        List<String> values = new ArrayList<>();
        table
            .schema()
            .columns()
            .forEach(column -> values.add(column.name() + "=" + record.getField(column.name())));
        String id = key == null ? String.valueOf(n++) : String.valueOf(record.getField(key));
        if (rows.put(id, String.join(",", values)) != null) {
          throw new AssertionError("duplicate key " + id);
        }
      }
    }
    return rows;
  }

  @Test
  void plainJsonUpsertsByItsKeyAndAddsNewFieldsAsColumns() throws Exception {
    String topic = uniqueTopic("json-upsert");
    broker.createTopic(topic, 2);
    broker.send(
        topic,
        List.of(
            KafkaBroker.Message.of("1", "{\"id\":1,\"name\":\"a\",\"amount\":1.5,\"ok\":true}"),
            KafkaBroker.Message.of("2", "{\"id\":2,\"name\":\"b\",\"amount\":2.5,\"ok\":null}"),
            KafkaBroker.Message.of(
                "1", "{\"id\":1,\"name\":\"a2\",\"amount\":3.25,\"ok\":false}")));
    TableIdentifier events = TableIdentifier.of("ods", "events");
    try (RunningSync sync =
        new KafkaSyncRunner(catalog).start(json("json", topic, "ods.events", List.of("id")))) {
      Poll.until(
          "ods.events holds the upserted rows",
          DEADLINE,
          Duration.ofMillis(500),
          () ->
              rows(events, "id")
                  .equals(
                      Map.of(
                          "1", "id=1,name=a2,amount=3.25,ok=false",
                          "2", "id=2,name=b,amount=2.5,ok=null")));
      broker.send(
          topic, List.of(KafkaBroker.Message.of("3", "{\"id\":3,\"name\":\"c\",\"tag\":\"new\"}")));
      Poll.until(
          "a new field becomes an optional column",
          DEADLINE,
          Duration.ofMillis(500),
          () -> "id=3,name=c,amount=null,ok=null,tag=new".equals(rows(events, "id").get("3")));
      Table table = catalog.catalog().loadTable(events);
      assertThat(table.schema().identifierFieldNames()).containsExactly("id");
      assertThat(table.schema().findField("amount").type())
          .isEqualTo(org.apache.iceberg.types.Types.DoubleType.get());
      sync.cancel(Duration.ofSeconds(60));
    }
  }

  @Test
  void plainJsonAppendsIntoAnExistingTableWithItsTypesOnceEvenAfterARestartWithoutCheckpoints()
      throws Exception {
    String topic = uniqueTopic("json-append");
    broker.createTopic(topic, 2);
    TableIdentifier clicks = TableIdentifier.of("ods", "clicks");
    ((org.apache.iceberg.catalog.SupportsNamespaces) catalog.catalog())
        .createNamespace(org.apache.iceberg.catalog.Namespace.of("ods"));
    catalog
        .catalog()
        .buildTable(
            clicks,
            new org.apache.iceberg.Schema(
                org.apache.iceberg.types.Types.NestedField.optional(
                    1, "at", org.apache.iceberg.types.Types.TimestampType.withZone()),
                org.apache.iceberg.types.Types.NestedField.optional(
                    2, "user", org.apache.iceberg.types.Types.StringType.get()),
                org.apache.iceberg.types.Types.NestedField.optional(
                    3, "clicks", org.apache.iceberg.types.Types.LongType.get())))
        .withProperty("format-version", "2")
        .create();
    List<KafkaBroker.Message> first = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      first.add(
          KafkaBroker.Message.of(
              "u" + i,
              "{\"at\":\"2026-01-0"
                  + (i + 1)
                  + " 10:00:00\",\"user\":\"u"
                  + i
                  + "\",\"clicks\":\""
                  + i
                  + "\"}"));
    }
    broker.send(topic, first);
    KafkaSyncOptions options = json("append", topic, "ods.clicks", List.of());
    try (RunningSync sync = new KafkaSyncRunner(catalog).start(options)) {
      Poll.until(
          "the six rows are appended",
          DEADLINE,
          Duration.ofMillis(500),
          () -> rows(clicks, "user").size() == 6);
      assertThat(rows(clicks, "user").get("u2")).isEqualTo("at=2026-01-03T10:00Z,user=u2,clicks=2");
      sync.cancel(Duration.ofSeconds(60));
    }
    deleteRecursively(options.stateDirectory().localPath().orElseThrow());
    broker.send(
        topic,
        List.of(
            KafkaBroker.Message.of(
                "u9", "{\"at\":\"2026-02-01T00:00:00+01:00\",\"user\":\"u9\",\"clicks\":9}")));
    try (RunningSync sync = new KafkaSyncRunner(catalog).start(options)) {
      Poll.until(
          "the new row is appended, the old ones are not again",
          DEADLINE,
          Duration.ofMillis(500),
          () -> rows(clicks, "user").containsKey("u9"));
      assertThat(rows(clicks, "user")).hasSize(7);
      assertThat(rows(clicks, "user").get("u9")).isEqualTo("at=2026-01-31T23:00Z,user=u9,clicks=9");
      sync.cancel(Duration.ofSeconds(60));
    }
  }

  @Test
  void startingOffsetsLatestAndTimestampChooseWhereAFirstStartReads() throws Exception {
    String topic = uniqueTopic("cdc-start");
    broker.createTopic(topic, 2);
    CdcScenario before = new CdcScenario(KafkaFormat.CANAL_JSON);
    before.table("shop.orders", ORDERS);
    for (long id = 1; id <= 10; id++) {
      before.insert("shop.orders", id, "before " + id, 1);
    }
    broker.send(topic, before.take());
    long boundary = System.currentTimeMillis();
    Poll.until(
        "the clock is past the first messages' timestamps",
        Duration.ofSeconds(5),
        Duration.ofMillis(10),
        () -> System.currentTimeMillis() > boundary + 1);
    CdcScenario after = new CdcScenario(KafkaFormat.CANAL_JSON);
    after.table("shop.orders", ORDERS);
    for (long id = 11; id <= 20; id++) {
      after.insert("shop.orders", id, "after " + id, 2);
    }
    broker.send(topic, after.take());
    for (KafkaSyncOptions.StartingOffsets start :
        List.of(
            KafkaSyncOptions.StartingOffsets.parse("latest", "--starting-offsets"),
            KafkaSyncOptions.StartingOffsets.parse(
                "timestamp:" + (boundary + 1), "--starting-offsets"))) {
      KafkaSyncOptions base = options("start-" + start.kind(), topic, KafkaFormat.CANAL_JSON);
      KafkaSyncOptions options =
          KafkaSyncOptions.of(
              base.name(),
              base.bootstrapServers(),
              base.topics(),
              base.format(),
              base.selection(),
              base.checkpointInterval(),
              base.parallelism(),
              base.stateDirectory(),
              start,
              base.kafkaProperties(),
              base.partitions(),
              base.serverTimeZone(),
              base.deadLetter(),
              base.onBadMessage());
      KafkaSyncRunner.Plan plan = new KafkaSyncRunner(catalog).plan(options);
      long ends = plan.start().next().values().stream().mapToLong(Long::longValue).sum();
      if (start.kind() == KafkaSyncOptions.StartingOffsets.Kind.LATEST) {
        assertThat(ends).as("latest: every partition's end").isEqualTo(20);
      } else {
        assertThat(ends).as("timestamp: after the first ten messages").isEqualTo(10);
      }
    }
    // A real first start from the timestamp syncs only the later rows.
    KafkaSyncOptions base = options("start-run", topic, KafkaFormat.CANAL_JSON);
    KafkaSyncOptions fromTimestamp =
        KafkaSyncOptions.of(
            base.name(),
            base.bootstrapServers(),
            base.topics(),
            base.format(),
            base.selection(),
            base.checkpointInterval(),
            base.parallelism(),
            base.stateDirectory(),
            KafkaSyncOptions.StartingOffsets.parse(
                "timestamp:" + (boundary + 1), "--starting-offsets"),
            base.kafkaProperties(),
            base.partitions(),
            base.serverTimeZone(),
            base.deadLetter(),
            base.onBadMessage());
    try (RunningSync sync = new KafkaSyncRunner(catalog).start(fromTimestamp)) {
      awaitEqual(after);
      sync.cancel(Duration.ofSeconds(60));
    }
  }

  @Test
  void aRouteMergesShardsIntoOneTableKeyedByTheirSource() throws Exception {
    String topic = uniqueTopic("cdc-route");
    broker.createTopic(topic, 2);
    CdcScenario scenario = new CdcScenario(KafkaFormat.CANAL_JSON);
    for (String shard : List.of("shop_1.orders", "shop_2.orders")) {
      scenario.table(shard, ORDERS);
      for (long id = 1; id <= 5; id++) {
        scenario.insert(shard, id, shard + " " + id, (int) id);
      }
    }
    scenario.update("shop_1.orders", 2, "name", "changed");
    scenario.delete("shop_2.orders", 3);
    broker.send(topic, scenario.take());
    KafkaSyncOptions base = options("route", topic, KafkaFormat.CANAL_JSON);
    KafkaSyncOptions options =
        KafkaSyncOptions.of(
            base.name(),
            base.bootstrapServers(),
            base.topics(),
            base.format(),
            TableSelection.of(List.of("shop_\\d+\\..*"), List.of(), Optional.empty())
                .withRoutes("--route", List.of("shop_\\d+\\.orders -> ods.orders")),
            base.checkpointInterval(),
            base.parallelism(),
            base.stateDirectory(),
            base.startingOffsets(),
            base.kafkaProperties(),
            base.partitions(),
            base.serverTimeZone(),
            base.deadLetter(),
            base.onBadMessage());
    TableIdentifier orders = TableIdentifier.of("ods", "orders");
    Map<String, String> expected = new TreeMap<>();
    scenario
        .expected()
        .forEach(
            (shard, rows) ->
                rows.forEach(
                    (id, row) -> expected.put(shard + "/" + id, String.valueOf(row.get("name")))));
    try (RunningSync sync = new KafkaSyncRunner(catalog).start(options)) {
      Poll.until(
          "both shards' rows are in ods.orders, each under its source",
          DEADLINE,
          Duration.ofMillis(500),
          () -> expected.equals(routedRows(orders)));
      assertThat(catalog.catalog().loadTable(orders).schema().identifierFieldNames())
          .containsExactlyInAnyOrder("id", "_source_db", "_source_table");
      sync.cancel(Duration.ofSeconds(60));
    }
    assertThat(expected).hasSize(9).containsEntry("shop_1.orders/2", "changed");
  }

  private Map<String, String> routedRows(TableIdentifier identifier) throws Exception {
    Map<String, String> rows = new TreeMap<>();
    if (!catalog.catalog().tableExists(identifier)) {
      return rows;
    }
    Table table = catalog.catalog().loadTable(identifier);
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      for (Record record : records) {
        String key =
            record.getField("_source_db")
                + "."
                + record.getField("_source_table")
                + "/"
                + record.getField("id");
        if (rows.put(key, String.valueOf(record.getField("name"))) != null) {
          throw new AssertionError("duplicate key " + key);
        }
      }
    }
    return rows;
  }

  @Test
  void refusesAPatternMatchingNoTopicListingThoseThatExist() {
    String topic = uniqueTopic("listed");
    broker.createTopic(topic, 1);
    assertThatThrownBy(
            () ->
                new KafkaSyncRunner(catalog)
                    .plan(options("none", "no-such-topic-.*", KafkaFormat.CANAL_JSON)))
        .isInstanceOf(FloeException.class)
        .hasMessageStartingWith(
            "--topics 'no-such-topic-.*' matches no topic on "
                + broker.bootstrapServers()
                + " (the pattern must match whole topic names). Topics there: ")
        .hasMessageContaining(topic);
  }

  @Test
  void refusesAnUnreachableBroker() throws Exception {
    int port;
    try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    KafkaSyncOptions base = options("down", "t", KafkaFormat.CANAL_JSON);
    KafkaSyncOptions options =
        KafkaSyncOptions.of(
            base.name(),
            "127.0.0.1:" + port,
            base.topics(),
            base.format(),
            base.selection(),
            base.checkpointInterval(),
            base.parallelism(),
            base.stateDirectory(),
            base.startingOffsets(),
            base.kafkaProperties(),
            base.partitions(),
            base.serverTimeZone(),
            base.deadLetter(),
            base.onBadMessage());
    assertThatThrownBy(() -> new KafkaSyncRunner(catalog).plan(options))
        .isInstanceOf(FloeException.class)
        .hasMessageStartingWith("Cannot reach Kafka at 127.0.0.1:" + port + " (")
        .hasMessageContaining("--kafka-property security.protocol=");
  }

  private Map<Long, Record> deadLetters() throws Exception {
    Map<Long, Record> found = new TreeMap<>();
    if (!catalog.catalog().tableExists(KafkaSyncOptions.DEFAULT_DEAD_LETTER)) {
      return found;
    }
    Table table = catalog.catalog().loadTable(KafkaSyncOptions.DEFAULT_DEAD_LETTER);
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      for (Record record : records) {
        found.put((Long) record.getField("offset"), record.copy());
      }
    }
    return found;
  }

  private static String bytes(Object buffer) {
    java.nio.ByteBuffer copy = ((java.nio.ByteBuffer) buffer).duplicate();
    byte[] bytes = new byte[copy.remaining()];
    copy.get(bytes);
    return new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
  }

  static List<Snapshot> ancestors(Table table) {
    table.refresh();
    List<Snapshot> snapshots = new ArrayList<>();
    for (Snapshot snapshot :
        org.apache.iceberg.util.SnapshotUtil.ancestorsOf(
            table.currentSnapshot().snapshotId(), table::snapshot)) {
      snapshots.add(snapshot);
    }
    return snapshots;
  }

  static void deleteRecursively(Path path) throws Exception {
    if (!Files.exists(path)) {
      return;
    }
    try (java.util.stream.Stream<Path> files = Files.walk(path)) {
      for (Path file : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(file);
      }
    }
  }
}

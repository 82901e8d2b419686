package dev.floe.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.floe.core.config.CatalogSettings;
import dev.floe.core.error.FloeException;
import dev.floe.core.sync.DeclaredSchema;
import dev.floe.core.sync.TableSelection;
import dev.floe.iceberg.CatalogFactory;
import dev.floe.iceberg.FloeCatalog;
import dev.floe.testing.KafkaBroker;
import dev.floe.testing.Poll;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Plain JSON with a declared schema ({@code --schema}, {@code sync.kafka.schema}) and {@code
 * --partition 'day(ts)'}: a real broker, the Flink job on a MiniCluster, real Iceberg tables.
 */
class KafkaDeclaredSchemaITCase {

  private static final Duration DEADLINE = Duration.ofSeconds(90);
  private static final String SCHEMA =
      "id BIGINT NOT NULL, ts TIMESTAMP, name STRING, amount DECIMAL(10,2), day DATE";

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

  private KafkaSyncOptions options(
      String name, String topic, String target, String schema, Map<String, String> partitions) {
    List<String> key = List.of("id");
    return new KafkaSyncOptions(
        name,
        broker.bootstrapServers(),
        topic,
        KafkaFormat.JSON,
        TableSelection.of(List.of(".*"), List.of(), Optional.empty()),
        Duration.ofSeconds(1),
        2,
        StateDirectory.local(directory.resolve("state").resolve(name)),
        KafkaSyncOptions.StartingOffsets.EARLIEST,
        Map.of(),
        partitions,
        ZoneOffset.UTC,
        KafkaSyncOptions.DEFAULT_DEAD_LETTER,
        KafkaSyncOptions.OnBadMessage.DEAD_LETTER,
        Optional.of(target),
        key,
        Optional.of(DeclaredSchema.parse("--schema", schema, key)));
  }

  @Test
  void aDeclaredSchemaCreatesTheTablePartitionedByDayWithItsTypesAndUpsertsIntoIt()
      throws Exception {
    String topic = "json-schema-" + Long.toHexString(System.nanoTime());
    broker.createTopic(topic, 2);
    TableIdentifier events = TableIdentifier.of("ods", "events");
    List<KafkaBroker.Sent> sent =
        broker.send(
            topic,
            List.of(
                KafkaBroker.Message.of(
                    "1",
                    "{\"id\":1,\"ts\":\"2026-03-01T10:00:00\",\"name\":\"a\",\"amount\":\"12.50\","
                        + "\"day\":\"2026-03-01\"}"),
                KafkaBroker.Message.of(
                    "2", "{\"id\":2,\"ts\":\"2026-03-02 23:59:59\",\"name\":\"b\",\"amount\":3.1}"),
                KafkaBroker.Message.of(
                    "1", "{\"id\":1,\"ts\":\"2026-03-01T11:30:00\",\"name\":\"a2\",\"amount\":7}"),
                KafkaBroker.Message.of(
                    "3", "{\"id\":3,\"ts\":\"yesterday\",\"name\":\"c\",\"amount\":1}"),
                KafkaBroker.Message.of(
                    "4", "{\"id\":4,\"ts\":\"2026-03-04T00:00:00\",\"amount\":1.234}")));
    KafkaSyncOptions options =
        options("schema", topic, "ods.events", SCHEMA, Map.of("ods.events", "day(ts)"));
    try (RunningSync sync = new KafkaSyncRunner(catalog).start(options)) {
      Table created = catalog.catalog().loadTable(events);
      assertThat(created.schema().asStruct())
          .isEqualTo(
              new Schema(
                      Types.NestedField.required(1, "id", Types.LongType.get()),
                      Types.NestedField.optional(2, "ts", Types.TimestampType.withoutZone()),
                      Types.NestedField.optional(3, "name", Types.StringType.get()),
                      Types.NestedField.optional(4, "amount", Types.DecimalType.of(10, 2)),
                      Types.NestedField.optional(5, "day", Types.DateType.get()))
                  .asStruct());
      assertThat(created.schema().identifierFieldNames()).containsExactly("id");
      assertThat(created.spec())
          .isEqualTo(PartitionSpec.builderFor(created.schema()).day("ts").build());
      assertThat(created.properties()).containsEntry(KafkaTables.SYNC_PROPERTY, "schema");

      Poll.until(
          "ods.events holds the upserted rows",
          DEADLINE,
          Duration.ofMillis(500),
          () ->
              rows(events)
                  .equals(
                      Map.of(
                          "1", "id=1,ts=2026-03-01T11:30,name=a2,amount=7.00,day=null",
                          "2", "id=2,ts=2026-03-02T23:59:59,name=b,amount=3.10,day=null")));
      Map<Long, Record> rejected =
          Poll.until(
              "the two values that do not fit are in the dead-letter table",
              DEADLINE,
              Duration.ofMillis(500),
              () -> {
                Map<Long, Record> found = deadLetters(topic);
                return found.size() == 2 ? Optional.of(found) : Optional.empty();
              });
      assertThat(
              List.of(
                  rejected.values().stream()
                      .map(record -> (String) record.getField("reason"))
                      .sorted()
                      .toArray()))
          .containsExactly(
              "column amount (decimal(10, 2)) cannot hold the value 1.234",
              "column ts (timestamp) cannot hold the value yesterday");

      broker.send(
          topic,
          List.of(
              KafkaBroker.Message.of(
                  "5",
                  "{\"id\":5,\"ts\":\"2026-03-02T08:00:00\",\"name\":\"e\",\"amount\":5,"
                      + "\"tag\":\"new\"}")));
      Poll.until(
          "a new field becomes an optional column, the declared ones keep their types",
          DEADLINE,
          Duration.ofMillis(500),
          () ->
              "id=5,ts=2026-03-02T08:00,name=e,amount=5.00,day=null,tag=new"
                  .equals(rows(events).get("5")));
      Table table = catalog.catalog().loadTable(events);
      assertThat(table.schema().findField("amount").type()).isEqualTo(Types.DecimalType.of(10, 2));
      assertThat(table.schema().findField("tag").type()).isEqualTo(Types.StringType.get());
      assertThat(partitionDays(table)).containsExactly("2026-03-01", "2026-03-02");
      sync.cancel(Duration.ofSeconds(60));
    }
    assertThat(sent).hasSize(5);

    // A restart with the same --schema is no difference: the table grew a column past it.
    assertThat(new KafkaSyncRunner(catalog).plan(options).tableOffsets()).containsKey("ods.events");
  }

  @Test
  void aSchemaThatDiffersFromTheExistingTableIsRefusedAndTheTableIsUnchanged() throws Exception {
    String topic = "json-schema-differs-" + Long.toHexString(System.nanoTime());
    broker.createTopic(topic, 1);
    broker.send(topic, List.of(KafkaBroker.Message.of("1", "{\"id\":1,\"amount\":1.5}")));
    TableIdentifier orders = TableIdentifier.of("ods", "orders");
    ((SupportsNamespaces) catalog.catalog()).createNamespace(Namespace.of("ods"));
    Schema existing =
        new Schema(
            List.of(
                Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.optional(2, "amount", Types.DecimalType.of(12, 2))),
            java.util.Set.of(1));
    catalog.catalog().buildTable(orders, existing).withProperty("format-version", "2").create();

    KafkaSyncOptions otherType =
        options(
            "differs", topic, "ods.orders", "id BIGINT NOT NULL, amount DECIMAL(10,2)", Map.of());
    assertThatThrownBy(() -> new KafkaSyncRunner(catalog).start(otherType))
        .isInstanceOf(FloeException.class)
        .hasMessage(
            "--schema (sync.kafka.schema) does not match the existing Iceberg table ods.orders:"
                + " column amount is DECIMAL(10,2) in the schema but DECIMAL(12,2) in the table."
                + " Nothing was changed. Drop --schema to sync into the table as it is (its types"
                + " stand), or alter the table to the declared column; Floe never changes an"
                + " existing table to fit --schema.");
    KafkaSyncOptions missing =
        options("differs", topic, "ods.orders", "id BIGINT NOT NULL, ts TIMESTAMP", Map.of());
    assertThatThrownBy(() -> new KafkaSyncRunner(catalog).start(missing))
        .hasMessageContaining("ods.orders: the table has no column ts. Nothing was changed.");

    Table table = catalog.catalog().loadTable(orders);
    assertThat(table.schema().asStruct()).isEqualTo(existing.asStruct());
    assertThat(table.currentSnapshot()).isNull();
    assertThat(table.properties()).doesNotContainKey(KafkaTables.SYNC_PROPERTY);
    assertThat(catalog.catalog().tableExists(KafkaSyncOptions.DEFAULT_DEAD_LETTER)).isFalse();
  }

  private Map<String, String> rows(TableIdentifier identifier) throws Exception {
    Map<String, String> rows = new TreeMap<>();
    Table table = catalog.catalog().loadTable(identifier);
    table.refresh();
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      for (Record record : records) {
        List<String> values = new ArrayList<>();
        table
            .schema()
            .columns()
            .forEach(column -> values.add(column.name() + "=" + record.getField(column.name())));
        if (rows.put(String.valueOf(record.getField("id")), String.join(",", values)) != null) {
          throw new AssertionError("duplicate key " + record.getField("id"));
        }
      }
    }
    return rows;
  }

  /** The days of the data files' partitions (Iceberg's day transform: days since 1970-01-01). */
  private static TreeSet<String> partitionDays(Table table) throws Exception {
    TreeSet<String> days = new TreeSet<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        Integer day = task.file().partition().get(0, Integer.class);
        days.add(java.time.LocalDate.ofEpochDay(day).toString());
      }
    }
    return days;
  }

  private Map<Long, Record> deadLetters(String topic) throws Exception {
    Map<Long, Record> found = new TreeMap<>();
    if (!catalog.catalog().tableExists(KafkaSyncOptions.DEFAULT_DEAD_LETTER)) {
      return found;
    }
    Table table = catalog.catalog().loadTable(KafkaSyncOptions.DEFAULT_DEAD_LETTER);
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      for (Record record : records) {
        if (topic.equals(record.getField("topic"))) {
          found.put((Long) record.getField("offset"), record.copy());
        }
      }
    }
    return found;
  }
}

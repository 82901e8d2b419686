package dev.floe.sync;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.core.sync.SourceColumn;
import dev.floe.sync.KafkaMessageDecoder.Changes;
import dev.floe.sync.KafkaMessageDecoder.Decoded;
import dev.floe.sync.KafkaMessageDecoder.Rejected;
import dev.floe.sync.KafkaMessageDecoder.Skipped;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DebeziumJsonDecoderTest {

  private final DebeziumJsonDecoder decoder = new DebeziumJsonDecoder();

  private Decoded decode(String key, String value) {
    return decoder.decode(
        key == null ? null : key.getBytes(StandardCharsets.UTF_8),
        value == null ? null : value.getBytes(StandardCharsets.UTF_8));
  }

  private static final String ROW_FIELDS =
      """
      [{"type":"int32","optional":false,"field":"id"},
       {"type":"string","optional":false,"field":"first_name"},
       {"type":"bytes","optional":true,"name":"org.apache.kafka.connect.data.Decimal","version":1,
        "parameters":{"scale":"2","connect.decimal.precision":"10"},"field":"balance"},
       {"type":"int64","optional":true,"name":"io.debezium.time.MicroTimestamp","version":1,"field":"created_at"},
       {"type":"string","optional":true,"name":"io.debezium.time.ZonedTimestamp","version":1,"field":"updated_at"},
       {"type":"int32","optional":true,"name":"io.debezium.time.Date","version":1,"field":"birthday"},
       {"type":"boolean","optional":true,"field":"active"},
       {"type":"int16","optional":true,"field":"level"},
       {"type":"bytes","optional":true,"name":"io.debezium.data.Bits","version":1,"parameters":{"length":"12"},"field":"flags"}]
      """;

  /** The shape of the MySQL connector's customers example with JsonConverter schemas enabled. */
  private static String withSchema(String op, String before, String after) {
    return """
        {"schema":{"type":"struct","fields":[
           {"type":"struct","fields":%s,"optional":true,"name":"mysql-server-1.inventory.customers.Value","field":"before"},
           {"type":"struct","fields":%s,"optional":true,"name":"mysql-server-1.inventory.customers.Value","field":"after"},
           {"type":"struct","fields":[{"type":"string","optional":false,"field":"db"},
              {"type":"string","optional":true,"field":"table"}],"optional":false,"name":"io.debezium.connector.mysql.Source","field":"source"},
           {"type":"string","optional":false,"field":"op"},
           {"type":"int64","optional":true,"field":"ts_ms"}],
           "optional":false,"name":"mysql-server-1.inventory.customers.Envelope"},
         "payload":{"op":"%s","ts_ms":1465491411815,"before":%s,"after":%s,
           "source":{"version":"2.4.0.Final","connector":"mysql","name":"mysql-server-1","ts_ms":1465491411000,
             "snapshot":"false","db":"inventory","table":"customers","server_id":223344,"gtid":null,
             "file":"mysql-bin.000003","pos":484,"row":0,"thread":7,"query":null}}}
        """
        .formatted(ROW_FIELDS, ROW_FIELDS, op, before, after);
  }

  private static final String KEY_WITH_SCHEMA =
      """
      {"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"}],
        "optional":false,"name":"mysql-server-1.inventory.customers.Key"},"payload":{"id":1004}}
      """;

  private static final String ROW =
      """
      {"id":1004,"first_name":"Anne","balance":"ATk=","created_at":1700000000123456,
       "updated_at":"2023-11-14T22:13:20+08:00","birthday":19675,"active":true,"level":3,"flags":"BQA="}
      """;

  @Test
  void anInsertWithTheSchemaEnvelopeHasTheMySqlTypesAndValuesDebeziumReadThemFrom() {
    Decoded decoded = decode(KEY_WITH_SCHEMA, withSchema("c", "null", ROW));
    DecodedChange change = ((Changes) decoded).changes().get(0);
    assertThat(change.kind()).isEqualTo(DecodedChange.Kind.INSERT);
    assertThat(change.table().qualifiedName()).isEqualTo("inventory.customers");
    assertThat(change.table().primaryKey()).containsExactly("id");
    assertThat(change.table().columns())
        .extracting(SourceColumn::columnType)
        .containsExactly(
            "int",
            "text",
            "decimal(10,2)",
            "datetime(6)",
            "timestamp(6)",
            "date",
            "bit(1)",
            "smallint",
            "bit(12)");
    assertThat(change.table().columns().get(0).nullable()).isFalse();
    assertThat(change.before()).isEmpty();
    Map<String, Object> row = change.after().orElseThrow();
    assertThat(row)
        .containsEntry("id", 1004)
        .containsEntry("first_name", "Anne")
        .containsEntry("balance", new BigDecimal("3.13"))
        .containsEntry("created_at", LocalDateTime.of(2023, 11, 14, 22, 13, 20, 123_456_000))
        .containsEntry("updated_at", OffsetDateTime.of(2023, 11, 14, 14, 13, 20, 0, ZoneOffset.UTC))
        .containsEntry("birthday", LocalDate.of(2023, 11, 14))
        .containsEntry("active", true)
        .containsEntry("level", 3)
        // Debezium's little-endian 0x05 0x00 is MySQL's b'000000000101' = 0x00 0x05
        .containsEntry("flags", ByteBuffer.wrap(new byte[] {0, 5}));
    assertThat(change.sourceMillis()).isEqualTo(1465491411000L);
  }

  @Test
  void updatesAndDeletesCarryTheRowBefore() {
    String older = ROW.replace("\"Anne\"", "\"Anna\"");
    DecodedChange update =
        ((Changes) decode(KEY_WITH_SCHEMA, withSchema("u", older, ROW))).changes().get(0);
    assertThat(update.kind()).isEqualTo(DecodedChange.Kind.UPDATE);
    assertThat(update.before().orElseThrow()).containsEntry("first_name", "Anna");
    assertThat(update.after().orElseThrow()).containsEntry("first_name", "Anne");
    DecodedChange delete =
        ((Changes) decode(KEY_WITH_SCHEMA, withSchema("d", ROW, "null"))).changes().get(0);
    assertThat(delete.kind()).isEqualTo(DecodedChange.Kind.DELETE);
    assertThat(delete.before().orElseThrow()).containsEntry("id", 1004);
    assertThat(delete.after()).isEmpty();
    // a snapshot read is an insert
    assertThat(
            ((Changes) decode(KEY_WITH_SCHEMA, withSchema("r", "null", ROW)))
                .changes()
                .get(0)
                .kind())
        .isEqualTo(DecodedChange.Kind.INSERT);
  }

  @Test
  void withoutTheEnvelopeTypesAreInferredFromTheValues() {
    Decoded decoded =
        decode(
            "{\"id\":1004}",
            """
            {"before":null,"after":{"id":1004,"first_name":"Anne","score":9.5,"note":null},
             "source":{"db":"inventory","table":"customers","ts_ms":1465491411000},
             "op":"c","ts_ms":1465491411815}
            """);
    DecodedChange change = ((Changes) decoded).changes().get(0);
    assertThat(change.table().columns())
        .containsExactly(
            new SourceColumn("id", "bigint", "bigint", false, 0, 0),
            new SourceColumn("first_name", "text", "text", true, 0, 0),
            new SourceColumn("score", "double", "double", true, 0, 0));
    assertThat(change.after().orElseThrow())
        .containsEntry("id", 1004L)
        .containsEntry("first_name", "Anne")
        .containsEntry("score", 9.5d)
        .containsEntry("note", null);
  }

  @Test
  void tombstonesAndSchemaChangeEventsAreSkipped() {
    assertThat(decode("{\"id\":1}", null)).isEqualTo(new Skipped("a tombstone (no value)"));
    assertThat(
            decode(
                "{\"databaseName\":\"inventory\"}",
                "{\"source\":{\"db\":\"inventory\"},\"databaseName\":\"inventory\",\"ddl\":\"ALTER"
                    + " TABLE customers ADD COLUMN c INT\",\"tableChanges\":[]}"))
        .isEqualTo(
            new Skipped("a Debezium message with no row change (schema change or transaction)"));
  }

  @Test
  void badEventsAreRejectedWithTheExactReason() {
    assertThat(decode(null, withSchema("c", "null", ROW)))
        .isEqualTo(
            new Rejected(
                "the Debezium event of inventory.customers has no key (the primary key): a table"
                    + " without a primary key cannot be upserted"));
    assertThat(decode(KEY_WITH_SCHEMA, withSchema("c", "null", ROW.replace("\"ATk=\"", "\"%%\""))))
        .isInstanceOfSatisfying(
            Rejected.class,
            rejected ->
                assertThat(rejected.reason())
                    .startsWith(
                        "inventory.customers: column balance (decimal(10,2)) cannot hold the value"
                            + " \"%%\""));
    assertThat(decode("{\"id\":1}", "{\"after\":{\"id\":1}}"))
        .isEqualTo(
            new Rejected(
                "the value is not a Debezium change event (no \"op\"): {\"after\":{\"id\":1}}"));
    assertThat(decode("{\"id\":1}", "{\"op\":\"c\",\"after\":{\"id\":1},\"source\":{}}"))
        .isEqualTo(new Rejected("the Debezium event has no \"source.db\": its table is unknown"));
  }
}

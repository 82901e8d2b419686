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
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

class CanalJsonDecoderTest {

  private final CanalJsonDecoder decoder = new CanalJsonDecoder(ZoneId.of("Asia/Shanghai"));

  private Decoded decode(String value) {
    return decoder.decode(null, value.getBytes(StandardCharsets.UTF_8));
  }

  private static Map<String, Object> row(Object... namesAndValues) {
    Map<String, Object> row = new LinkedHashMap<>();
    for (int i = 0; i < namesAndValues.length; i += 2) {
      row.put((String) namesAndValues[i], namesAndValues[i + 1]);
    }
    return row;
  }

  /** The UPDATE example of Flink's canal-json format page (Canal's flat message). */
  @Test
  void anUpdateHasTheNewRowAndTheOldRowWithTheChangedColumnsBefore() {
    Decoded decoded =
        decode(
            """
            {"data":[{"id":"111","name":"scooter","description":"Big 2-wheel scooter","weight":"5.18"}],
             "database":"inventory","es":1589373560000,"id":9,"isDdl":false,
             "mysqlType":{"id":"INTEGER","name":"VARCHAR(255)","description":"VARCHAR(512)","weight":"FLOAT"},
             "old":[{"weight":"5.15"}],"pkNames":["id"],"sql":"",
             "sqlType":{"id":4,"name":12,"description":12,"weight":7},
             "table":"products","ts":1589373560798,"type":"UPDATE"}
            """);
    assertThat(decoded).isInstanceOf(Changes.class);
    List<DecodedChange> changes = ((Changes) decoded).changes();
    assertThat(changes).hasSize(1);
    DecodedChange change = changes.get(0);
    assertThat(change.kind()).isEqualTo(DecodedChange.Kind.UPDATE);
    assertThat(change.table().qualifiedName()).isEqualTo("inventory.products");
    assertThat(change.table().primaryKey()).containsExactly("id");
    assertThat(change.table().columns())
        .containsExactly(
            new SourceColumn("id", "integer", "integer", false, 0, 0),
            new SourceColumn("name", "varchar", "varchar(255)", true, 0, 0),
            new SourceColumn("description", "varchar", "varchar(512)", true, 0, 0),
            new SourceColumn("weight", "float", "float", true, 0, 0));
    assertThat(change.after())
        .contains(
            row(
                "id",
                111,
                "name",
                "scooter",
                "description",
                "Big 2-wheel scooter",
                "weight",
                5.18f));
    assertThat(change.before())
        .contains(
            row(
                "id",
                111,
                "name",
                "scooter",
                "description",
                "Big 2-wheel scooter",
                "weight",
                5.15f));
    assertThat(change.sourceMillis()).isEqualTo(1589373560000L);
  }

  @Test
  void everyRowOfAMultiRowInsertIsAChangeWithValuesOfTheMySqlSyncsTypes() {
    Decoded decoded =
        decode(
            """
            {"data":[
               {"id":"18446744073709551615","amount":"12.50","created":"2024-03-01 10:20:30.123",
                "changed":"2024-03-01 18:20:30","day":"2024-03-01","at":"23:59:59","flag":"1",
                "bits":"5","note":null,"raw":"\\u00ff\\u0001","small":"-7","year":"2024"},
               {"id":"2","amount":"0.00","created":"0000-00-00 00:00:00","changed":null,"day":null,
                "at":null,"flag":"0","bits":null,"note":"x","raw":null,"small":null,"year":null}],
             "database":"shop","table":"orders","type":"INSERT","isDdl":false,"pkNames":["id"],
             "mysqlType":{"id":"bigint(20) unsigned","amount":"decimal(10,2)","created":"datetime(3)",
               "changed":"timestamp","day":"date","at":"time","flag":"bit(1)","bits":"bit(12)",
               "note":"varchar(64)","raw":"varbinary(8)","small":"tinyint(4)","year":"year(4)"},
             "es":1709288430000,"ts":1709288430500}
            """);
    List<DecodedChange> changes = ((Changes) decoded).changes();
    assertThat(changes).hasSize(2);
    assertThat(changes).allMatch(change -> change.kind() == DecodedChange.Kind.INSERT);
    assertThat(changes.get(0).before()).isEmpty();
    Map<String, Object> first = changes.get(0).after().orElseThrow();
    assertThat(first)
        .containsEntry("id", new BigDecimal("18446744073709551615"))
        .containsEntry("amount", new BigDecimal("12.50"))
        .containsEntry("created", LocalDateTime.of(2024, 3, 1, 10, 20, 30, 123_000_000))
        // TIMESTAMP text is the server's wall clock (Asia/Shanghai, UTC+8)
        .containsEntry("changed", OffsetDateTime.of(2024, 3, 1, 10, 20, 30, 0, ZoneOffset.UTC))
        .containsEntry("day", LocalDate.of(2024, 3, 1))
        .containsEntry("at", LocalTime.of(23, 59, 59))
        .containsEntry("flag", true)
        .containsEntry("bits", ByteBuffer.wrap(new byte[] {0, 5}))
        .containsEntry("note", null)
        .containsEntry("raw", ByteBuffer.wrap(new byte[] {(byte) 0xff, 1}))
        .containsEntry("small", -7)
        .containsEntry("year", 2024);
    Map<String, Object> second = changes.get(1).after().orElseThrow();
    assertThat(second)
        .containsEntry("id", new BigDecimal("2"))
        .containsEntry("amount", new BigDecimal("0.00"))
        .containsEntry("created", null)
        .containsEntry("flag", false)
        .containsEntry("note", "x");
    assertThat(
            dev.floe.core.sync.TypeMapping.icebergSchema(changes.get(0).table())
                .findField("id")
                .type())
        .isEqualTo(Types.DecimalType.of(20, 0));
  }

  @Test
  void aDeleteCarriesTheDeletedRowAsBefore() {
    Decoded decoded =
        decode(
            """
            {"data":[{"id":"7","name":"gone"}],"database":"shop","table":"items","type":"DELETE",
             "isDdl":false,"pkNames":["id"],"mysqlType":{"id":"int(11)","name":"varchar(10)"},
             "old":null,"es":1000,"ts":2000}
            """);
    DecodedChange change = ((Changes) decoded).changes().get(0);
    assertThat(change.kind()).isEqualTo(DecodedChange.Kind.DELETE);
    assertThat(change.before()).contains(row("id", 7, "name", "gone"));
    assertThat(change.after()).isEmpty();
  }

  @Test
  void anUpdateOfThePrimaryKeyHasTheOldKeyBefore() {
    Decoded decoded =
        decode(
            """
            {"data":[{"id":"8","name":"a"}],"old":[{"id":"7"}],"database":"shop","table":"items",
             "type":"UPDATE","isDdl":false,"pkNames":["id"],
             "mysqlType":{"id":"int(11)","name":"varchar(10)"},"es":1000}
            """);
    DecodedChange change = ((Changes) decoded).changes().get(0);
    assertThat(change.before()).contains(row("id", 7, "name", "a"));
    assertThat(change.after()).contains(row("id", 8, "name", "a"));
  }

  @Test
  void ddlAndTombstonesAreSkipped() {
    assertThat(
            decode(
                """
                {"data":null,"database":"shop","table":"items","type":"ALTER","isDdl":true,
                 "sql":"ALTER TABLE items ADD COLUMN c INT","pkNames":null,"es":1,"ts":2}
                """))
        .isEqualTo(new Skipped("a DDL message (ALTER)"));
    assertThat(decoder.decode(null, null)).isEqualTo(new Skipped("a tombstone (no value)"));
  }

  @Test
  void badMessagesAreRejectedWithTheExactReason() {
    assertThat(decode("not json at all"))
        .isInstanceOfSatisfying(
            Rejected.class,
            rejected -> assertThat(rejected.reason()).startsWith("the value is not JSON ("));
    assertThat(decode("[1,2]"))
        .isEqualTo(
            new Rejected("the value is not a Canal JSON message (not a JSON object): [1,2]"));
    assertThat(
            decode(
                """
                {"data":[{"id":"1"}],"database":"shop","table":"t","type":"INSERT","isDdl":false,
                 "mysqlType":{"id":"int"}}"""))
        .isEqualTo(
            new Rejected(
                "the Canal message of shop.t names no primary key (\"pkNames\" is empty or"
                    + " missing): updates and deletes could not be matched to rows"));
    assertThat(
            decode(
                """
                {"data":[{"id":"1","n":"12x"}],"database":"shop","table":"t","type":"INSERT",
                 "isDdl":false,"pkNames":["id"],"mysqlType":{"id":"int","n":"int(11)"}}"""))
        .isEqualTo(
            new Rejected(
                "shop.t row 1 of 1: column n (int(11)) cannot hold the value \"12x\": not a"
                    + " number"));
    assertThat(
            decode(
                """
                {"data":[{"id":null}],"database":"shop","table":"t","type":"INSERT",
                 "isDdl":false,"pkNames":["id"],"mysqlType":{"id":"int"}}"""))
        .isEqualTo(new Rejected("shop.t row 1 of 1 has no value for its primary-key column id"));
    assertThat(
            decode(
                """
                {"data":[{"id":"1","t":"838:59:59"}],"database":"shop","table":"t","type":"INSERT",
                 "isDdl":false,"pkNames":["id"],"mysqlType":{"id":"int","t":"time"}}"""))
        .isEqualTo(
            new Rejected(
                "shop.t row 1 of 1: column t (time) cannot hold the value \"838:59:59\": outside"
                    + " 00:00:00-23:59:59, which an Iceberg time cannot hold"));
    assertThat(decode("{\"database\":\"shop\",\"table\":\"t\"}"))
        .isEqualTo(new Rejected("a Canal JSON message needs a \"type\"; this one has none"));
  }
}

package dev.floe.sync;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.sync.KafkaMessageDecoder.Changes;
import dev.floe.sync.KafkaMessageDecoder.Decoded;
import dev.floe.sync.KafkaMessageDecoder.Rejected;
import dev.floe.sync.KafkaMessageDecoder.Skipped;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class MaxwellJsonDecoderTest {

  private final MaxwellJsonDecoder decoder = new MaxwellJsonDecoder(ZoneOffset.UTC);

  private Decoded decode(String key, String value) {
    return decoder.decode(
        key == null ? null : key.getBytes(StandardCharsets.UTF_8),
        value == null ? null : value.getBytes(StandardCharsets.UTF_8));
  }

  /** Maxwell's documented update, keyed by its default "hash" key. */
  @Test
  void anUpdateTakesItsKeyFromTheMessageKeyAndTheOldValuesFromOld() {
    Decoded decoded =
        decode(
            "{\"database\":\"test\",\"table\":\"maxwell\",\"pk.id\":1}",
            """
            {"database":"test","table":"maxwell","type":"update","ts":1449786341,"xid":940786,
             "commit":true,"data":{"id":1,"daemon":"Firebus!  Firebus!","price":12.50},
             "old":{"daemon":"Stanislaw Lem"}}
            """);
    DecodedChange change = ((Changes) decoded).changes().get(0);
    assertThat(change.kind()).isEqualTo(DecodedChange.Kind.UPDATE);
    assertThat(change.table().qualifiedName()).isEqualTo("test.maxwell");
    assertThat(change.table().primaryKey()).containsExactly("id");
    assertThat(change.after().orElseThrow())
        .containsEntry("id", 1L)
        .containsEntry("daemon", "Firebus!  Firebus!")
        .containsEntry("price", 12.5d);
    assertThat(change.before().orElseThrow())
        .containsEntry("id", 1L)
        .containsEntry("daemon", "Stanislaw Lem");
    assertThat(change.sourceMillis()).isEqualTo(1449786341000L);
  }

  @Test
  void primaryKeyColumnsInTheMessageNameTheKey() {
    Decoded decoded =
        decode(
            null,
            """
            {"database":"shop","table":"lines","type":"insert","ts":1,"data":{"order_id":5,"line":2,
             "qty":3},"primary_key_columns":["order_id","line"]}
            """);
    DecodedChange change = ((Changes) decoded).changes().get(0);
    assertThat(change.kind()).isEqualTo(DecodedChange.Kind.INSERT);
    assertThat(change.table().primaryKey()).containsExactly("order_id", "line");
    assertThat(change.table().columns().get(0).nullable()).isFalse();
    assertThat(change.table().columns().get(2).nullable()).isTrue();
  }

  @Test
  void bootstrapInsertsAreInsertsAndDdlIsSkipped() {
    assertThat(
            ((Changes)
                    decode(
                        "{\"database\":\"s\",\"table\":\"t\",\"pk.id\":1}",
                        "{\"database\":\"s\",\"table\":\"t\",\"type\":\"bootstrap-insert\","
                            + "\"ts\":1,\"data\":{\"id\":1}}"))
                .changes()
                .get(0)
                .kind())
        .isEqualTo(DecodedChange.Kind.INSERT);
    assertThat(
            decode(
                null,
                "{\"type\":\"table-alter\",\"database\":\"s\",\"table\":\"t\",\"sql\":\"ALTER"
                    + " TABLE t ADD c INT\"}"))
        .isEqualTo(new Skipped("a Maxwell table-alter message carries no rows"));
    assertThat(decode(null, "{\"database\":\"s\",\"table\":\"t\",\"type\":\"bootstrap-start\"}"))
        .isEqualTo(new Skipped("a Maxwell bootstrap-start message carries no rows"));
  }

  @Test
  void aDeleteCarriesTheDeletedRowAndExactDecimalsStayExactAsText() {
    DecodedChange change =
        ((Changes)
                decode(
                    "{\"database\":\"s\",\"table\":\"t\",\"pk.id\":9}",
                    "{\"database\":\"s\",\"table\":\"t\",\"type\":\"delete\",\"ts\":2,"
                        + "\"data\":{\"id\":9,\"amount\":\"10.10\"}}"))
            .changes()
            .get(0);
    assertThat(change.kind()).isEqualTo(DecodedChange.Kind.DELETE);
    assertThat(change.before().orElseThrow()).containsEntry("amount", "10.10");
    assertThat(new BigDecimal((String) change.before().orElseThrow().get("amount")))
        .isEqualByComparingTo("10.1");
  }

  @Test
  void aMessageWithoutAKeyIsRejected() {
    assertThat(
            decode(
                null,
                "{\"database\":\"s\",\"table\":\"t\",\"type\":\"insert\",\"ts\":1,\"data\":{\"id\":1}}"))
        .isEqualTo(
            new Rejected(
                "the Maxwell message of s.t names no primary key: neither"
                    + " \"primary_key_columns\" (Maxwell's output_primary_key_columns) nor pk.*"
                    + " fields in the message key"));
    assertThat(
            decode(
                "{\"database\":\"s\",\"table\":\"t\",\"pk.id\":1}",
                "{\"database\":\"s\",\"table\":\"t\",\"type\":\"insert\",\"ts\":1,\"data\":{\"id\":null}}"))
        .isEqualTo(new Rejected("s.t: the row has no value for its primary-key column id"));
  }
}

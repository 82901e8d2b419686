package dev.floe.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.LocalDateTime;
import java.time.format.DateTimeParseException;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

class SnapshotColumnsTest {

  @Test
  void parsesMySqlDateTimesOfEveryPrecision() {
    assertThat(SnapshotColumns.parseDateTime("2026-01-02 03:04:05"))
        .isEqualTo(LocalDateTime.of(2026, 1, 2, 3, 4, 5));
    assertThat(SnapshotColumns.parseDateTime("2026-01-02 03:04:05.7"))
        .isEqualTo(LocalDateTime.of(2026, 1, 2, 3, 4, 5, 700_000_000));
    assertThat(SnapshotColumns.parseDateTime("9999-12-31 23:59:59.999999"))
        .isEqualTo(LocalDateTime.of(9999, 12, 31, 23, 59, 59, 999_999_000));
    assertThatThrownBy(() -> SnapshotColumns.parseDateTime("2026-01-02 03:0x:05"))
        .isInstanceOf(DateTimeParseException.class);
  }

  @Test
  void internalTimestampsAreTheMicrosOfTheGenericValue() {
    LocalDateTime epoch = LocalDateTime.of(1970, 1, 1, 0, 0);
    java.util.Random random = new java.util.Random(7);
    java.util.List<String> texts =
        new java.util.ArrayList<>(
            java.util.List.of(
                "1970-01-01 00:00:00",
                "1969-12-31 23:59:59.999999",
                "1000-01-01 00:00:00",
                "9999-12-31 23:59:59.999999",
                "2000-02-29 12:00:00.5",
                "1900-03-01 00:00:00.000001",
                "2026-01-02 03:04:05.123"));
    for (int i = 0; i < 20_000; i++) {
      // MySQL's range: years 1000-9999
      LocalDateTime value = epoch.plusSeconds(random.nextLong(-30_610_224_000L, 253_402_300_800L));
      int digits = random.nextInt(7);
      String fraction =
          digits == 0
              ? ""
              : "." + String.format("%06d", random.nextInt(1_000_000)).substring(0, digits);
      texts.add(
          value.format(java.time.format.DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss"))
              + fraction);
    }
    for (String text : texts) {
      byte[] bytes = text.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
      assertThat(SnapshotColumns.epochMicros(bytes, true))
          .as(text)
          .isEqualTo(
              java.time.temporal.ChronoUnit.MICROS.between(
                  epoch, SnapshotColumns.parseDateTime(text)));
      assertThat(SnapshotColumns.epochDay(text.substring(0, 10).getBytes(), true))
          .as(text)
          .isEqualTo((int) SnapshotColumns.parseDateTime(text).toLocalDate().toEpochDay());
    }
  }

  @Test
  void internalTimestampsOfZeroAndInvalidDatesTakeTheGenericPath() {
    byte[] zero = "0000-00-00 00:00:00".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    assertThat(SnapshotColumns.epochMicros(zero, true)).isZero();
    assertThat(SnapshotColumns.epochMicros(zero, false)).isNull();
    assertThat(SnapshotColumns.epochMicros(null, true)).isNull();
    assertThat(SnapshotColumns.epochDay("0000-00-00".getBytes(), true)).isZero();
    assertThat(SnapshotColumns.epochDay("0000-00-00".getBytes(), false)).isNull();
    assertThatThrownBy(() -> SnapshotColumns.epochMicros("2026-02-30 00:00:00".getBytes(), true))
        .isInstanceOf(java.time.DateTimeException.class);
    assertThatThrownBy(() -> SnapshotColumns.epochMicros("2026-01-02 03:0x:05".getBytes(), true))
        .isInstanceOf(DateTimeParseException.class);
  }

  @Test
  void progressKeysSurviveTheirTextForm() {
    Schema schema =
        new Schema(
            Types.NestedField.required(1, "a", Types.DecimalType.of(20, 0)),
            Types.NestedField.required(2, "b", Types.BinaryType.get()),
            Types.NestedField.required(3, "c", Types.TimestampType.withoutZone()),
            Types.NestedField.required(4, "d", Types.StringType.get()));
    dev.floe.core.sync.SourceTable table =
        new dev.floe.core.sync.SourceTable(
            "db", "t", java.util.List.of(), java.util.List.of("a", "b", "c", "d"));
    Object[] key = {
      new BigDecimal("18446744073709551615"),
      ByteBuffer.wrap(new byte[] {0, (byte) 0xff}),
      LocalDateTime.of(2026, 1, 2, 3, 4, 5, 600_000_000),
      "x\"y,z"
    };
    Object[] decoded = SnapshotCopier.decodeKey(schema, table, SnapshotCopier.encodeKey(key));
    assertThat(decoded).containsExactly(key);
  }
}

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

package dev.floe.verify;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.core.verify.ColumnKind;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import org.junit.jupiter.api.Test;

class ColumnarDigestTest {

  @Test
  void decimalsAreTheTextsOfTheGenericPath() {
    long[] unscaled = {0, 5, -5, 123456, -123456, 100, 999_999_999_999L, Long.MAX_VALUE, -1};
    for (int scale : new int[] {0, 1, 2, 4, 10}) {
      for (long value : unscaled) {
        ColumnarDigest.TextBuffer text = new ColumnarDigest.TextBuffer();
        text.appendDecimal(value, scale);
        assertThat(new String(text.bytes(), StandardCharsets.US_ASCII))
            .as("%d scale %d", value, scale)
            .isEqualTo(ColumnKind.DECIMAL.text(BigDecimal.valueOf(value, scale), scale));
      }
    }
  }

  @Test
  void integersAreTheTextsOfTheGenericPath() {
    for (long value : new long[] {0, 7, -7, 1_420_000_000_000_000_000L, Long.MIN_VALUE}) {
      ColumnarDigest.TextBuffer text = new ColumnarDigest.TextBuffer();
      text.appendLong(value);
      assertThat(new String(text.bytes(), StandardCharsets.US_ASCII))
          .isEqualTo(ColumnKind.INTEGER.text(value, 0));
    }
  }

  @Test
  void datesAreTheTextsOfTheGenericPath() {
    for (long day = LocalDate.of(-1, 1, 1).toEpochDay();
        day <= LocalDate.of(10_000, 12, 31).toEpochDay();
        day += 13) {
      ColumnarDigest.TextBuffer text = new ColumnarDigest.TextBuffer();
      ColumnarDigest.appendDay(day, text);
      assertThat(new String(text.bytes(), StandardCharsets.US_ASCII))
          .isEqualTo(ColumnKind.DATE.text(LocalDate.ofEpochDay(day), 0));
    }
  }

  @Test
  void dateTimesAreTheTextsOfTheGenericPath() {
    for (String time :
        new String[] {
          "1970-01-01T00:00:00",
          "1969-12-31T23:59:59.999999",
          "1000-01-01T00:00:00",
          "0999-03-04T05:06:07.000008",
          "9999-12-31T23:59:59.999999",
          "2024-02-29T12:34:56.123456",
          "1600-02-29T23:00:00",
          "1900-03-01T00:00:00.5",
          "2100-12-31T00:00:59"
        }) {
      LocalDateTime value = LocalDateTime.parse(time);
      long micros = ChronoUnit.MICROS.between(LocalDateTime.of(1970, 1, 1, 0, 0), value);
      ColumnarDigest.TextBuffer text = new ColumnarDigest.TextBuffer();
      ColumnarDigest.appendDateTime(micros, text);
      assertThat(new String(text.bytes(), StandardCharsets.US_ASCII))
          .isEqualTo(ColumnKind.DATETIME.text(value, 0))
          .isEqualTo(ColumnKind.TIMESTAMP.text(value.atOffset(ZoneOffset.UTC), 0));
    }
  }
}

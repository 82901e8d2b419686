package dev.floe.core.verify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.floe.core.error.FloeException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RowTextTest {

  static final VerifyColumn ID = new VerifyColumn("id", ColumnKind.INTEGER, "bigint(20)", 0);
  static final VerifyColumn NAME = new VerifyColumn("name", ColumnKind.STRING, "varchar(20)", 0);
  static final VerifyColumn AMOUNT =
      new VerifyColumn("amount", ColumnKind.DECIMAL, "decimal(10,2)", 2);
  static final VerifyColumn UPDATED =
      new VerifyColumn("updated_at", ColumnKind.DATETIME, "datetime(6)", 0);
  static final TableShape SHAPE =
      TableShape.of(
          "shop", "orders", List.of(ID, NAME, AMOUNT, UPDATED), List.of("id"), "updated_at");

  @Test
  void valuesNormalizeLikeTheSqlExpressions() {
    assertThat(ColumnKind.INTEGER.text(42L, 0)).isEqualTo("42");
    assertThat(ColumnKind.INTEGER.text(true, 0)).isEqualTo("1");
    assertThat(ColumnKind.INTEGER.text(new BigDecimal("18446744073709551615"), 0))
        .isEqualTo("18446744073709551615");
    assertThat(ColumnKind.DECIMAL.text(new BigDecimal("1.5"), 2)).isEqualTo("1.50");
    assertThat(ColumnKind.DECIMAL.text(new BigDecimal("-0.10"), 2)).isEqualTo("-0.10");
    assertThat(ColumnKind.DATE.text(LocalDate.of(2026, 1, 2), 0)).isEqualTo("2026-01-02");
    assertThat(ColumnKind.DATETIME.text(LocalDateTime.of(2026, 1, 2, 3, 4, 5, 600_000), 0))
        .isEqualTo("2026-01-02 03:04:05.000600");
    assertThat(
            ColumnKind.TIMESTAMP.text(
                OffsetDateTime.of(2026, 1, 2, 3, 0, 0, 0, ZoneOffset.ofHours(8)), 0))
        .isEqualTo("2026-01-01 19:00:00.000000");
    assertThat(ColumnKind.TIME.text(LocalTime.of(5, 6, 7), 0)).isEqualTo("05:06:07.000000");
    assertThat(ColumnKind.BINARY.text(ByteBuffer.wrap(new byte[] {0, (byte) 0xAB}), 0))
        .isEqualTo("00ab");
    assertThat(ColumnKind.BIT.text(ByteBuffer.wrap(new byte[] {1, 2}), 0)).isEqualTo("258");
    assertThat(ColumnKind.ofMySqlType("geometry", "geometry")).isEmpty();
    assertThat(ColumnKind.ofMySqlType("int", "int(10) unsigned")).contains(ColumnKind.INTEGER);
  }

  @Test
  void rowTextSeparatesNullEmptyAndSeparators() {
    RowText rows = new RowText(SHAPE);
    String withNull =
        rows.rowText(Arrays.asList("1", null, "1.00", "2026-01-01 00:00:00.000000"), true);
    String withEmpty =
        rows.rowText(Arrays.asList("1", "", "1.00", "2026-01-01 00:00:00.000000"), true);
    String withN =
        rows.rowText(Arrays.asList("1", "N", "1.00", "2026-01-01 00:00:00.000000"), true);
    assertThat(withNull).isEqualTo("R,1,N,1.00,2026-01-01 00:00:00.000000");
    assertThat(withEmpty).isEqualTo("R,1,0:,1.00,2026-01-01 00:00:00.000000");
    assertThat(withN).isEqualTo("R,1,1:N,1.00,2026-01-01 00:00:00.000000");
    assertThat(rows.rowText(Arrays.asList("1", "é", "1.00", null), false)).isEqualTo("1");
    assertThat(rows.rowText(Arrays.asList("1", "é", "1.00", null), true))
        .isEqualTo("R,1,1:é,1.00,N");
  }

  @Test
  void hashIsCrc32AsMySqlComputesIt() {
    // MariaDB: SELECT CRC32('abc') = 891568578, CRC32(_utf8mb4 x'C3A9') = 235179326
    assertThat(RowText.hash("abc")).isEqualTo(891568578L);
    assertThat(RowText.hash("é")).isEqualTo(235179326L);
  }

  @Test
  void sqlUsesTheSameEncoding() {
    RowText rows = new RowText(SHAPE);
    assertThat(RowText.sqlValue(NAME))
        .isEqualTo(
            "IFNULL(CONCAT(CHAR_LENGTH(CONVERT(`name` USING utf8mb4)), ':', CONVERT(`name` USING"
                + " utf8mb4)), 'N')");
    assertThat(rows.sqlRowHash())
        .startsWith("IF(`updated_at` >= ?, CRC32(CONCAT('R', ',', IFNULL(CAST(`id` AS CHAR), 'N')")
        .endsWith("), CRC32(`id`))");
    assertThat(rows.sqlComparedFilter()).isEqualTo("(`updated_at` < ? OR `updated_at` IS NULL)");
  }

  @Test
  void sqlRowTextOfNotNullColumnsIsOneFlatConcatOfBareColumns() {
    VerifyColumn id = new VerifyColumn("id", ColumnKind.INTEGER, "bigint(20)", 0, false, "");
    VerifyColumn name =
        new VerifyColumn("name", ColumnKind.STRING, "varchar(20)", 0, false, "utf8mb4");
    VerifyColumn latin =
        new VerifyColumn("latin", ColumnKind.STRING, "varchar(20)", 0, true, "latin1");
    VerifyColumn year = new VerifyColumn("y", ColumnKind.INTEGER, "year(4)", 0, false, "");
    VerifyColumn amount =
        new VerifyColumn("amount", ColumnKind.DECIMAL, "decimal(10,2)", 2, false, "");
    VerifyColumn day = new VerifyColumn("day", ColumnKind.DATETIME, "datetime", 0, false, "");
    VerifyColumn updated =
        new VerifyColumn("updated_at", ColumnKind.DATETIME, "datetime(6)", 0, false, "");
    TableShape shape =
        TableShape.of(
            "shop",
            "orders",
            List.of(id, name, latin, year, amount, day, updated),
            List.of("id"),
            "updated_at");

    assertThat(new RowText(shape).sqlRowHash())
        .isEqualTo(
            "IF(`updated_at` >= ?, CRC32(CONCAT('R', ',', `id`, ',', CHAR_LENGTH(`name`), ':',"
                + " `name`, ',', IFNULL(CONCAT(CHAR_LENGTH(CONVERT(`latin` USING utf8mb4)), ':',"
                + " CONVERT(`latin` USING utf8mb4)), 'N'), ',', CAST(`y` AS CHAR), ',', `amount`,"
                + " ',', DATE_FORMAT(`day`, '%Y-%m-%d %H:%i:%s.%f'), ',', `updated_at`)),"
                + " CRC32(`id`))");
  }

  @Test
  void compositeKeyRangesExpandRowComparisons() {
    VerifyColumn tenant = new VerifyColumn("tenant", ColumnKind.INTEGER, "int", 0);
    KeySql sql =
        KeySql.range(
            List.of(tenant, ID),
            new KeyRange(Optional.of(RowKey.of("3", "10")), Optional.of(RowKey.of("5", "1"))));
    assertThat(sql.sql())
        .isEqualTo(
            "(`tenant` > ? OR (`tenant` = ? AND `id` >= ?)) AND (`tenant` < ? OR (`tenant` = ? AND"
                + " `id` < ?))");
    assertThat(sql.parameters().stream().map(KeySql.Parameter::text))
        .containsExactly("3", "3", "10", "5", "5", "1");
    assertThat(KeySql.range(List.of(ID), KeyRange.all()).sql()).isEqualTo("TRUE");
    assertThat(KeySql.anyOf(List.of(tenant, ID), List.of(RowKey.of("1", "2"))).sql())
        .isEqualTo("((`tenant` = ? AND `id` = ?))");
  }

  @Test
  void tablesVerifyCannotSliceAreRefusedWithTheReason() {
    assertThatThrownBy(
            () -> TableShape.of("shop", "log", List.of(ID, UPDATED), List.of(), "updated_at"))
        .isInstanceOf(FloeException.class)
        .hasMessage(
            "Table shop.log has no primary key. verify matches rows by a unique key and slices the"
                + " table along it; name a unique NOT NULL key with --key COLUMN[,COLUMN...] or add"
                + " a primary key to the table.");
    VerifyColumn price = new VerifyColumn("price", ColumnKind.FLOATING, "double", 0);
    assertThatThrownBy(
            () ->
                TableShape.of("shop", "t", List.of(price, UPDATED), List.of("price"), "updated_at"))
        .hasMessage(
            "Key column price of shop.t is double; verify slices only integer, decimal, date,"
                + " datetime, char and varchar key columns.");
    assertThat(
            TableShape.of("shop", "t", List.of(NAME, UPDATED), List.of("name"), "updated_at")
                .keyColumnNames())
        .containsExactly("name");
    assertThatThrownBy(() -> TableShape.of("shop", "t", List.of(ID, NAME), List.of("id"), "name"))
        .hasMessage(
            "--time-column name of shop.t is varchar(20); it must be a DATE, DATETIME or TIMESTAMP"
                + " column.");
    assertThatThrownBy(() -> TableShape.of("shop", "t", List.of(ID, NAME), List.of("id"), "nope"))
        .hasMessage("--time-column nope is not a column of shop.t. Its columns: id, name.");
  }
}

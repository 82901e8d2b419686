package dev.floe.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.Test;

class SqlResultPrintersTest {

  private static final List<SqlColumn> COLUMNS =
      List.of(
          new SqlColumn("id", "BIGINT NOT NULL", true),
          new SqlColumn("name", "STRING", false),
          new SqlColumn("amount", "DECIMAL(10, 2)", true));

  private static final List<List<Object>> ROWS =
      List.of(
          Arrays.asList(1L, "ada", new BigDecimal("12.50")),
          Arrays.asList(20L, null, new BigDecimal("1E+3")),
          Arrays.asList(300L, "two\nlines, \"quoted\"", null),
          Arrays.asList(4000L, "", new BigDecimal("-0.01")));

  @Test
  void tableAlignsNumbersRightAndShowsNull() {
    assertThat(print(SqlOutputFormat.TABLE, COLUMNS, ROWS, false))
        .isEqualTo(
            """
            +------+----------------------+--------+
            | id   | name                 | amount |
            +------+----------------------+--------+
            |    1 | ada                  |  12.50 |
            |   20 | NULL                 |   1000 |
            |  300 | two\\nlines, "quoted" | NULL   |
            | 4000 |                      |  -0.01 |
            +------+----------------------+--------+
            4 rows
            """);
  }

  @Test
  void tableOfOneRowOfNoRowsAndTruncated() {
    assertThat(print(SqlOutputFormat.TABLE, COLUMNS, ROWS.subList(0, 1), false))
        .endsWith("+----+------+--------+\n1 row\n");
    assertThat(print(SqlOutputFormat.TABLE, COLUMNS, List.of(), false))
        .isEqualTo(
            """
            +----+------+--------+
            | id | name | amount |
            +----+------+--------+
            0 rows
            """);
    assertThat(print(SqlOutputFormat.TABLE, COLUMNS, ROWS.subList(0, 1), true))
        .endsWith("\n1 row shown; more not shown (--max-rows, or LIMIT)\n");
  }

  @Test
  void csvQuotesAsRfc4180AndKeepsNullApartFromEmpty() {
    assertThat(print(SqlOutputFormat.CSV, COLUMNS, ROWS, false))
        .isEqualTo(
            """
            id,name,amount
            1,ada,12.50
            20,,1000
            300,"two
            lines, ""quoted\""",
            4000,"",-0.01
            """);
  }

  @Test
  void jsonIsOneObjectPerLineWithNumbersAsNumbers() {
    assertThat(print(SqlOutputFormat.JSON, COLUMNS, ROWS, false))
        .isEqualTo(
            """
            {"id":1,"name":"ada","amount":12.50}
            {"id":20,"name":null,"amount":1000}
            {"id":300,"name":"two\\nlines, \\"quoted\\"","amount":null}
            {"id":4000,"name":"","amount":-0.01}
            """);
  }

  @Test
  void everyKindOfValueHasOneText() {
    Map<String, Integer> map = new LinkedHashMap<>();
    map.put("a", 1);
    map.put("b", null);
    Row named = Row.withNames();
    named.setField("x", 1);
    named.setField("y", "z");
    List<SqlColumn> columns =
        List.of(
            new SqlColumn("ts", "TIMESTAMP(6)", false),
            new SqlColumn("ts0", "TIMESTAMP(6)", false),
            new SqlColumn("ltz", "TIMESTAMP_LTZ(6)", false),
            new SqlColumn("d", "DATE", false),
            new SqlColumn("t", "TIME", false),
            new SqlColumn("b", "BYTES", false),
            new SqlColumn("arr", "ARRAY<INT>", false),
            new SqlColumn("m", "MAP<STRING, INT>", false),
            new SqlColumn("r", "ROW<INT, STRING>", false),
            new SqlColumn("nr", "ROW<x INT, y STRING>", false),
            new SqlColumn("f", "DOUBLE", true),
            new SqlColumn("nan", "DOUBLE", true),
            new SqlColumn("ok", "BOOLEAN", false));
    List<List<Object>> rows =
        List.of(
            Arrays.asList(
                LocalDateTime.parse("2026-11-03T08:00:00.5"),
                LocalDateTime.parse("2026-11-03T08:00"),
                Instant.parse("2026-11-03T08:00:01.000123Z"),
                LocalDate.parse("2026-11-03"),
                LocalTime.parse("23:59:58"),
                new byte[] {0x0a, (byte) 0xff},
                new Integer[] {1, null, 3},
                map,
                Row.of(7, "seven"),
                named,
                1.5e10,
                Double.NaN,
                true));

    assertThat(print(SqlOutputFormat.CSV, columns, rows, false))
        .isEqualTo(
            "ts,ts0,ltz,d,t,b,arr,m,r,nr,f,nan,ok\n"
                + "2026-11-03 08:00:00.5,2026-11-03 08:00:00,2026-11-03 08:00:01.000123Z,"
                + "2026-11-03,23:59:58,0x0aff,\"[1, NULL, 3]\",\"{a=1, b=NULL}\","
                + "\"(7, seven)\",\"(1, z)\",1.5E10,NaN,true\n");
    assertThat(print(SqlOutputFormat.JSON, columns, rows, false))
        .isEqualTo(
            "{\"ts\":\"2026-11-03 08:00:00.5\",\"ts0\":\"2026-11-03 08:00:00\","
                + "\"ltz\":\"2026-11-03 08:00:01.000123Z\",\"d\":\"2026-11-03\","
                + "\"t\":\"23:59:58\",\"b\":\"0x0aff\",\"arr\":[1,null,3],"
                + "\"m\":{\"a\":1,\"b\":null},\"r\":[7,\"seven\"],\"nr\":{\"x\":1,\"y\":\"z\"},"
                + "\"f\":1.5E10,\"nan\":\"NaN\",\"ok\":true}\n");
  }

  private static String print(
      SqlOutputFormat format, List<SqlColumn> columns, List<List<Object>> rows, boolean truncated) {
    StringWriter text = new StringWriter();
    SqlResultPrinter printer = format.printer(new PrintWriter(text));
    printer.begin(columns);
    for (List<Object> row : rows) {
      printer.row(row);
    }
    printer.end(rows.size(), truncated);
    return text.toString();
  }
}

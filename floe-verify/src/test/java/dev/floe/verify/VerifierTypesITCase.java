package dev.floe.verify;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.core.verify.VerifyReport;
import dev.floe.testing.MariaDbExtension;
import dev.floe.testing.MariaDbServer;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

@ExtendWith(MariaDbExtension.class)
class VerifierTypesITCase {

  @TempDir Path directory;
  VerifyFixture fixture;

  @BeforeEach
  void start(MariaDbServer server) {
    fixture = new VerifyFixture(server, directory);
  }

  @AfterEach
  void stop() {
    fixture.close();
  }

  @Test
  void tableWithEveryTypeComparesEqualAfterACorrectCopy() throws Exception {
    String table = "`" + fixture.database + "`.all_types";
    fixture.server.execute(
        "CREATE TABLE "
            + table
            + " (id INT UNSIGNED PRIMARY KEY, c_tinyint TINYINT, c_bool"
            + " TINYINT(1), c_tinyint_u TINYINT UNSIGNED, c_smallint SMALLINT, c_smallint_u"
            + " SMALLINT UNSIGNED, c_mediumint MEDIUMINT, c_mediumint_u MEDIUMINT UNSIGNED, c_int"
            + " INT, c_int_u INT UNSIGNED, c_bigint BIGINT, c_bigint_u BIGINT UNSIGNED, c_decimal"
            + " DECIMAL(12,4), c_decimal_wide DECIMAL(38,10), c_decimal_huge DECIMAL(50,5),"
            + " c_float FLOAT, c_double DOUBLE, c_bit1 BIT(1), c_bit BIT(12), c_date DATE,"
            + " c_datetime DATETIME, c_datetime6 DATETIME(6), c_timestamp TIMESTAMP(6) NULL,"
            + " c_time TIME(3), c_year YEAR, c_char CHAR(5), c_varchar VARCHAR(50), c_text TEXT,"
            + " c_tinytext TINYTEXT, c_mediumtext MEDIUMTEXT, c_longtext LONGTEXT, c_binary"
            + " BINARY(4), c_varbinary VARBINARY(10), c_blob BLOB, c_enum ENUM('a','b','c'), c_set"
            + " SET('x','y','z'), c_json JSON, c_latin1 VARCHAR(20) CHARACTER SET latin1,"
            + " updated_at DATETIME(6))",
        "INSERT INTO " + table + " (id, updated_at) VALUES (1, '2025-12-31 10:00:00')",
        "INSERT INTO "
            + table
            + " VALUES (2, -128, 1, 255, -32768, 65535, -8388608, 16777215,"
            + " -2147483648, 4294967295, -9223372036854775808, 18446744073709551615, -12345678.1234,"
            + " 1234567890123456789012345678.0123456789, 123456789012345678901234567890123456789012345.12345,"
            + " 0.1, 0.30000000000000004, b'1', b'101010101010', '1000-01-01', '9999-12-31 23:59:59',"
            + " '2025-06-30 12:34:56.123456', '1970-01-01 00:00:01.000001', '23:59:59.999', 2155,"
            + " 'ab', 'héllo wörld 😀', '', 'tiny', 'medium', REPEAT('long ', 200),"
            + " X'00FF0001', X'', X'DEADBEEF00', 'b', 'x,z', '{\"a\": [1, 2], \"b\": null}',"
            + " 'café', '2025-12-31 11:00:00')",
        "INSERT INTO "
            + table
            + " VALUES (3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -0.0000000001,"
            + " 0, -3.5, 1e100, b'0', b'0', '2024-02-29', '2024-02-29 00:00:00',"
            + " '2024-02-29 00:00:00.5', '2038-01-19 03:14:07.999999', '00:00:00', 1901, ' a',"
            + " 'a,b', 'N', 'line\\nbreak', '\\\\', '\"quoted\"', X'20', X'2C', '', 'c', '', '[]',"
            + " '', '2025-12-31 12:00:00')",
        "INSERT INTO "
            + table
            + " (id, c_double, c_float, updated_at) VALUES"
            + " (4, -2.5e-7, 123.456, '2025-12-31 13:00:00'),"
            + " (5, 1.7976931348623157e308, -1e-10, '2025-12-31 14:00:00'),"
            + " (6, 123456789012345.6, 1.5, '2025-12-31 15:00:00'),"
            + " (7, 1.5e15, 16777216, '2025-12-31 16:00:00')");
    fixture.copyToLake("all_types", "updated_at");

    VerifyReport report =
        fixture.verify("all_types", "2026-01-01", "2d", VerifyFixture.smallSlices()).report();

    assertThat(report.toJson()).contains("\"status\": \"equal\"");
    assertThat(report.rowsCompared()).isEqualTo(7);
  }

  @Test
  void notNullColumnsOfEveryTypeCompareEqualAndAChangeOfEachIsFound() throws Exception {
    // NOT NULL columns are hashed in MySQL in their cheapest form (bare columns, one flat CONCAT)
    String table = "`" + fixture.database + "`.not_null";
    fixture.server.execute(
        "CREATE TABLE "
            + table
            + " (id BIGINT PRIMARY KEY, c_tinyint TINYINT NOT NULL, c_bool TINYINT(1) NOT NULL,"
            + " c_int_u INT UNSIGNED NOT NULL, c_bigint_u BIGINT UNSIGNED NOT NULL, c_year YEAR"
            + " NOT NULL, c_decimal DECIMAL(12,4) NOT NULL, c_decimal0 DECIMAL(20,0) NOT NULL,"
            + " c_double DOUBLE NOT NULL, c_bit BIT(12) NOT NULL, c_date DATE NOT NULL,"
            + " c_datetime DATETIME NOT NULL, c_datetime3 DATETIME(3) NOT NULL, c_datetime6"
            + " DATETIME(6) NOT NULL, c_timestamp TIMESTAMP(6) NOT NULL DEFAULT '2000-01-01',"
            + " c_time TIME(3) NOT NULL, c_char CHAR(5) NOT NULL, c_varchar VARCHAR(50) NOT NULL,"
            + " c_text TEXT NOT NULL, c_binary VARBINARY(10) NOT NULL, c_enum ENUM('a','b') NOT"
            + " NULL, c_set SET('x','y','z') NOT NULL, c_json JSON NOT NULL, c_latin1 VARCHAR(20)"
            + " CHARACTER SET latin1 NOT NULL, c_utf8 VARCHAR(20) CHARACTER SET utf8mb3 NOT NULL,"
            + " updated_at DATETIME(6) NOT NULL)",
        "INSERT INTO "
            + table
            + " VALUES (1, -128, 1, 4294967295, 18446744073709551615, 2155, -12345678.1234,"
            + " 12345678901234567890, 0.1, b'101010101010', '1000-01-01', '9999-12-31 23:59:59',"
            + " '2025-06-30 12:34:56.5', '2025-06-30 12:34:56.123456', '1970-01-01 00:00:01.000001',"
            + " '23:59:59.999', 'ab', 'héllo wörld 😀', '', X'00FF', 'b', 'x,z', '{\"a\": [1]}',"
            + " 'café', 'ünï', '2025-12-31 10:00:00'),"
            + " (2, 0, 0, 0, 0, 1901, 0, 0, -2.5e-7, b'0', '2024-02-29', '2024-02-29 00:00:00',"
            + " '2024-02-29 00:00:00', '2024-02-29 00:00:00.5', '2038-01-19 03:14:07.999999',"
            + " '00:00:00', ' a', 'N', 'a,b', X'', 'a', '', '[]', '', '', '2025-12-31 11:00:00')");
    fixture.copyToLake("not_null", "updated_at");

    VerifyResult equal =
        fixture.verify("not_null", "2026-01-01", "2d", VerifyFixture.smallSlices());
    fixture.server.execute(
        "UPDATE " + table + " SET c_decimal = 1, c_datetime6 = '2001-01-01' WHERE id = 1",
        "UPDATE " + table + " SET c_varchar = 'M', c_latin1 = 'x' WHERE id = 2");
    VerifyResult different =
        fixture.verify("not_null", "2026-01-01", "2d", VerifyFixture.smallSlices());

    assertThat(equal.report().toJson()).contains("\"status\": \"equal\"");
    assertThat(equal.report().rowsCompared()).isEqualTo(2);
    assertThat(equal.slicesNarrowed()).isZero();
    assertThat(different.report().toJson())
        .contains("\"different\": {\"count\": 2, \"keys\": [1, 2]");
  }

  @Test
  void theColumnarLakeReadComparesEqualAndFindsAChangedValue() throws Exception {
    // only types the columnar read formats itself, so no lake file takes the generic path
    String table = "`" + fixture.database + "`.columnar";
    fixture.server.execute(
        "CREATE TABLE "
            + table
            + " (id BIGINT PRIMARY KEY, c_int INT, c_year YEAR, c_decimal DECIMAL(12,4),"
            + " c_small_decimal DECIMAL(5,2), c_decimal_wide DECIMAL(38,10), c_varchar"
            + " VARCHAR(50), c_text TEXT, c_date DATE, c_datetime DATETIME, c_timestamp"
            + " TIMESTAMP(6) NULL, updated_at DATETIME(6))",
        "INSERT INTO "
            + table
            + " VALUES (-5, -2147483648, 2155, -12345678.1234, -0.05, -0.0000000001, 'héllo wörld"
            + " 😀', '', '1000-01-01', '9999-12-31 23:59:59', '1970-01-01 00:00:01.000001',"
            + " '2025-12-31 11:00:00'),"
            + " (0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),"
            + " (7, 0, 1901, 0, 0.5, 1234567890123456789012345678.0123456789, 'N', 'a,b',"
            + " '2024-02-29', '2024-02-29 00:00:00', '2038-01-19 03:14:07.999999',"
            + " '2025-12-31 12:00:00'),"
            + " (9, 42, 2000, 1, 1, 1, ' a', 'line\nbreak', '2020-01-01', '2020-01-01 00:00:00',"
            + " NULL, '2025-01-01 00:00:00')");
    fixture.copyToLake("columnar", "updated_at");

    VerifyResult equal =
        fixture.verify("columnar", "2026-01-01", "2d", VerifyFixture.smallSlices());
    fixture.server.execute("UPDATE " + table + " SET c_text = 'a,c' WHERE id = 7");
    VerifyResult different =
        fixture.verify("columnar", "2026-01-01", "2d", VerifyFixture.smallSlices());

    assertThat(equal.report().toJson()).contains("\"status\": \"equal\"");
    assertThat(equal.report().rowsCompared()).isEqualTo(4);
    assertThat(equal.slicesNarrowed()).isZero();
    assertThat(equal.work().get("lake files generic")).isZero();
    assertThat(equal.work().get("lake files columnar")).isPositive();
    assertThat(different.report().toJson()).contains("\"different\": {\"count\": 1, \"keys\": [7]");
  }

  @Test
  void updatesDuringTheRunProduceNoFalseDifferences() throws Exception {
    String table = "`" + fixture.database + "`.live";
    fixture.server.execute(
        "CREATE TABLE "
            + table
            + " (id BIGINT PRIMARY KEY, v INT, updated_at DATETIME(6) NOT"
            + " NULL DEFAULT CURRENT_TIMESTAMP(6) ON UPDATE CURRENT_TIMESTAMP(6))",
        "INSERT INTO "
            + table
            + " SELECT seq * 7919, seq, TIMESTAMP('2025-12-31 23:00:00') -"
            + " INTERVAL seq MINUTE FROM `"
            + fixture.database
            + "`.seq_1_to_4000");
    fixture.copyToLake("live", "updated_at");

    AtomicBoolean running = new AtomicBoolean(true);
    AtomicLong changes = new AtomicLong();
    Thread writer =
        new Thread(
            () -> {
              while (running.get()) {
                long id = ThreadLocalRandom.current().nextLong(1, 4001) * 7919;
                fixture.server.execute(
                    "UPDATE " + table + " SET v = v + 1 WHERE id = " + id,
                    "INSERT INTO "
                        + table
                        + " (id, v) VALUES ("
                        + (id + 1)
                        + ", 0)"
                        + " ON DUPLICATE KEY UPDATE v = v + 1");
                changes.addAndGet(2);
              }
            });
    writer.start();
    VerifyReport report;
    try {
      long deadline = System.nanoTime() + 10_000_000_000L;
      while (changes.get() < 20 && System.nanoTime() < deadline) {
        Thread.onSpinWait();
      }
      report = fixture.verify("live", "2026-01-01", "1d", VerifyFixture.smallSlices()).report();
    } finally {
      running.set(false);
      writer.join();
    }

    assertThat(changes.get()).isGreaterThan(20);
    assertThat(report.toJson()).contains("\"status\": \"equal\"");
    assertThat(report.changedAfterCutoff()).isGreaterThan(0);
  }
}

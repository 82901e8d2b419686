package dev.floe.sync;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.core.config.CatalogSettings;
import dev.floe.core.config.SyncSettings;
import dev.floe.core.source.MySqlSourceAddress;
import dev.floe.core.sync.SyncSummary;
import dev.floe.core.sync.TableSelection;
import dev.floe.core.verify.DifferenceKind;
import dev.floe.core.verify.RowKey;
import dev.floe.core.verify.VerifyReport;
import dev.floe.iceberg.CatalogFactory;
import dev.floe.iceberg.FloeCatalog;
import dev.floe.mysql.MySqlConnections;
import dev.floe.testing.MariaDbServer;
import dev.floe.testing.Poll;
import dev.floe.verify.Verifier;
import dev.floe.verify.VerifyOptions;
import dev.floe.verify.VerifyProgress;
import dev.floe.verify.VerifyRequest;
import dev.floe.verify.VerifyResult;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A table with every MySQL type, written to the lake by Floe's real sync (snapshot, then binlog) on
 * a server in a non-UTC time zone, verifies equal while the sync keeps running past the cutoff;
 * changes made in MySQL behind the sync's back (not logged) are then found exactly.
 */
class SyncedLakeVerifyITCase {

  private static final String COLUMNS =
      "id, t, tu, b1, s, su, m, mu, i, iu, bi, bu, d, dw, f, db, bit1, bit12, c, vc, tx, e, st, j,"
          + " bin, vb, bl, dt, tm, dt0, dt6, ts, yr";
  private static final String EXTREMES =
      "(%d, -128, 255, 5, -32768, 65535, -8388608, 16777215, -2147483648, 4294967295,"
          + " -9223372036854775808, 18446744073709551615, -1234567.891,"
          + " 1234567890123456789012345678901234567890.0123456789, 1.5, 0.1, b'1', b'101010101010',"
          + " 'abc', 'vä€😀', 'long text', 'b', 'x,z', '{\"k\": [1, 2]}', x'00ff10', x'0001', x'cafe',"
          + " '1000-01-01', '23:59:59.999999', '1000-01-01 00:00:00', '9999-12-31 23:59:59.999999',"
          + " '2020-02-29 12:34:56.789', 2155)";
  private static final String NULLS =
      "(%d, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,"
          + " NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,"
          + " NULL, NULL)";
  private static final TableIdentifier LAKE_TABLE = TableIdentifier.of("types", "all_types");
  private static final TableIdentifier ORDERS = TableIdentifier.of("types", "orders");

  @TempDir Path directory;

  @Test
  void syncedTableOfEveryTypeVerifiesEqualAndHiddenChangesAreFound() throws Exception {
    try (MariaDbServer server =
            MariaDbServer.builder().argument("--default-time-zone=+03:00").start();
        FloeCatalog catalog =
            new CatalogFactory().open(CatalogSettings.embedded(), directory.resolve("data"))) {
      server.execute(
          "CREATE DATABASE types",
          """
          CREATE TABLE types.all_types (
            id BIGINT UNSIGNED PRIMARY KEY, t TINYINT, tu TINYINT UNSIGNED, b1 BOOL, s SMALLINT,
            su SMALLINT UNSIGNED, m MEDIUMINT, mu MEDIUMINT UNSIGNED, i INT, iu INT UNSIGNED,
            bi BIGINT, bu BIGINT UNSIGNED, d DECIMAL(10,3), dw DECIMAL(50,10), f FLOAT, db DOUBLE,
            bit1 BIT(1), bit12 BIT(12), c CHAR(3), vc VARCHAR(20), tx TEXT, e ENUM('a','b'),
            st SET('x','y','z'), j JSON, bin BINARY(3), vb VARBINARY(8), bl BLOB, dt DATE,
            tm TIME(6), dt0 DATETIME, dt6 DATETIME(6), ts TIMESTAMP(3) NULL, yr YEAR,
            updated_at DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6)
              ON UPDATE CURRENT_TIMESTAMP(6)
          ) DEFAULT CHARSET=utf8mb4
          """,
          """
          CREATE TABLE types.orders (
            id BIGINT PRIMARY KEY, note VARCHAR(20),
            updated_at DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6)
              ON UPDATE CURRENT_TIMESTAMP(6))
          """,
          "INSERT INTO types.orders (id, note) SELECT seq, CONCAT('n', seq) FROM"
              + " types.seq_1_to_300",
          "INSERT INTO types.all_types ("
              + COLUMNS
              + ") VALUES "
              + EXTREMES.formatted(1)
              + ", "
              + NULLS.formatted(2));
      MySqlSourceAddress source =
          MySqlSourceAddress.parse(server.sourceUrl("root", "", ""), "--source");
      SyncOptions options =
          new SyncOptions(
              "types",
              source,
              TableSelection.of(List.of("types\\..*"), List.of(), Optional.empty()),
              Duration.ofSeconds(1),
              1,
              directory.resolve("state"),
              Optional.empty(),
              SyncSettings.DEFAULT_CHUNK_ROWS);
      String cutoff;
      try (RunningSync sync =
          new SyncRunner(catalog, new MySqlConnections(Duration.ofSeconds(10))).start(options)) {
        awaitLakeRows(catalog, LAKE_TABLE, 2);
        awaitLakeRows(catalog, ORDERS, 300);
        // upserts and deletes of a BIGINT-keyed table in several commits: delete files
        for (int round = 1; round <= 3; round++) {
          server.execute(
              "UPDATE types.orders SET note = 'round " + round + "' WHERE id % 7 = " + round,
              "DELETE FROM types.orders WHERE id = " + (100 + round));
          awaitLakeRows(catalog, ORDERS, 300 - round);
        }
        // binlog changes of every type
        server.execute(
            "INSERT INTO types.all_types ("
                + COLUMNS
                + ") VALUES "
                + EXTREMES.formatted(3)
                + ", "
                + NULLS.formatted(4),
            "UPDATE types.all_types SET ts = '1999-12-31 23:59:59.001', tm = '00:00:00', bit12 ="
                + " b'1', b1 = 0 WHERE id = 1",
            "UPDATE types.all_types SET vc = 'changed', bu = 0 WHERE id = 2");
        // the cutoff: the next whole second on the source's clock (+03:00); a change after it
        // makes the sync commit a snapshot whose watermark is past the cutoff
        LocalDateTime next = sourceNow(server).withNano(0).plusSeconds(1);
        cutoff = next.toString();
        awaitSourceClockPast(server, next.plusSeconds(1));
        server.execute(
            "INSERT INTO types.all_types (" + COLUMNS + ") VALUES " + NULLS.formatted(5),
            "UPDATE types.all_types SET c = 'new' WHERE id = 4",
            "UPDATE types.orders SET note = 'late' WHERE id = 1");
        awaitWatermarkPast(catalog, LAKE_TABLE, next.toInstant(ZoneOffset.ofHours(3)));
        awaitWatermarkPast(catalog, ORDERS, next.toInstant(ZoneOffset.ofHours(3)));

        VerifyReport equal = verify(server, catalog, cutoff);
        assertThat(equal.status()).as(equal.summary(20)).isEqualTo("equal");
        // rows 1-3 in full; row 4 (changed after the cutoff) and row 5 (inserted after) are not
        // compared
        assertThat(equal.rowsCompared()).isEqualTo(3);
        assertThat(equal.snapshot().reason()).doesNotStartWith("current snapshot");
        VerifyResult orders = verifyOrders(server, catalog, cutoff);
        assertThat(orders.report().status()).as(orders.report().summary(20)).isEqualTo("equal");
        assertThat(orders.report().rowsCompared()).isEqualTo(296);
        sync.cancel(Duration.ofSeconds(60));
      }

      // behind the sync's back: changes that never reach the binlog, times before the cutoff
      try (Connection connection = server.rootConnection();
          Statement statement = connection.createStatement()) {
        statement.execute("SET sql_log_bin = 0");
        statement.execute(
            "UPDATE types.all_types SET vc = 'hidden', updated_at = updated_at WHERE id = 2");
        statement.execute("DELETE FROM types.all_types WHERE id = 3");
        statement.execute(
            "INSERT INTO types.all_types ("
                + COLUMNS
                + ", updated_at) VALUES "
                + NULLS.formatted(6).replace("NULL)", "NULL, '" + cutoff + "' - INTERVAL 1 HOUR)"));
      }
      // the same behind the BIGINT-keyed table, whose lake files carry the sync's delete files
      server.execute(
          "SET sql_log_bin = 0",
          "UPDATE types.orders SET note = 'hidden', updated_at = updated_at WHERE id = 14",
          "DELETE FROM types.orders WHERE id = 200");
      Table ordersLake = catalog.catalog().loadTable(ORDERS);
      assertThat(ordersLake.currentSnapshot().summary().get("total-delete-files"))
          .as("the sync wrote delete files")
          .isNotEqualTo("0");
      VerifyResult orders = verifyOrders(server, catalog, cutoff);
      assertThat(orders.report().status()).isEqualTo("different");
      assertThat(keys(orders.report(), DifferenceKind.EXTRA_IN_LAKE))
          .containsExactly(RowKey.of("200"));
      assertThat(orders.report().found(DifferenceKind.DIFFERENT).keys())
          .containsExactly(Map.entry(RowKey.of("14"), List.of("note")));
      assertThat(orders.report().found(DifferenceKind.MISSING_IN_LAKE).count()).isZero();
      assertThat(orders.work())
          .as("the sync's data files and their deletes are read column by column")
          .containsEntry("lake files generic", 0L);

      VerifyReport different = verify(server, catalog, cutoff);
      assertThat(different.status()).isEqualTo("different");
      assertThat(keys(different, DifferenceKind.MISSING_IN_LAKE)).containsExactly(RowKey.of("6"));
      assertThat(keys(different, DifferenceKind.EXTRA_IN_LAKE)).containsExactly(RowKey.of("3"));
      assertThat(different.found(DifferenceKind.DIFFERENT).keys())
          .containsExactly(Map.entry(RowKey.of("2"), List.of("vc")));
    }
  }

  private static VerifyReport verify(MariaDbServer server, FloeCatalog catalog, String cutoff) {
    return verify(server, catalog, LAKE_TABLE, cutoff).report();
  }

  private static VerifyResult verifyOrders(
      MariaDbServer server, FloeCatalog catalog, String cutoff) {
    return verify(server, catalog, ORDERS, cutoff);
  }

  /** Verifies the MySQL table types.T against the lake table types.T over a day's window. */
  private static VerifyResult verify(
      MariaDbServer server, FloeCatalog catalog, TableIdentifier table, String cutoff) {
    return new Verifier(new MySqlConnections(Duration.ofSeconds(10)), VerifyOptions.defaults())
        .verify(
            new VerifyRequest(
                MySqlSourceAddress.parse(server.sourceUrl("root", "", "types"), "--source"),
                "types",
                table.name(),
                table,
                cutoff,
                "1d",
                "updated_at"),
            catalog.catalog(),
            VerifyProgress.NONE);
  }

  private static List<RowKey> keys(VerifyReport report, DifferenceKind kind) {
    return report.found(kind).keys().stream().map(Map.Entry::getKey).toList();
  }

  private static LocalDateTime sourceNow(MariaDbServer server) throws Exception {
    try (Connection connection = server.rootConnection();
        Statement statement = connection.createStatement();
        ResultSet result = statement.executeQuery("SELECT CAST(NOW(6) AS CHAR)")) {
      result.next();
      return LocalDateTime.parse(result.getString(1).replace(' ', 'T'));
    }
  }

  private static void awaitSourceClockPast(MariaDbServer server, LocalDateTime time)
      throws Exception {
    Poll.until(
        "the source clock reaches " + time,
        Duration.ofSeconds(10),
        Duration.ofMillis(50),
        () -> !sourceNow(server).isBefore(time));
  }

  private static void awaitLakeRows(FloeCatalog catalog, TableIdentifier lakeTable, int rows)
      throws Exception {
    Poll.until(
        lakeTable + " holds " + rows + " rows",
        Duration.ofSeconds(120),
        Duration.ofMillis(300),
        () ->
            catalog.catalog().tableExists(lakeTable)
                && LakeComparison.lakeRows(catalog.catalog().loadTable(lakeTable)).size() == rows);
  }

  private static void awaitWatermarkPast(
      FloeCatalog catalog, TableIdentifier lakeTable, Instant cutoff) throws Exception {
    Poll.until(
        "the lake's watermark passes " + cutoff,
        Duration.ofSeconds(120),
        Duration.ofMillis(300),
        () -> {
          Snapshot current = catalog.catalog().loadTable(lakeTable).currentSnapshot();
          String watermark =
              current == null ? null : current.summary().get(SyncSummary.SOURCE_WATERMARK_MS);
          return watermark != null && Long.parseLong(watermark) >= cutoff.toEpochMilli();
        });
  }
}

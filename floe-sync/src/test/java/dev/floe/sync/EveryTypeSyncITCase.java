package dev.floe.sync;

import dev.floe.core.config.CatalogSettings;
import dev.floe.core.config.SyncSettings;
import dev.floe.core.source.MySqlSourceAddress;
import dev.floe.core.sync.TableSelection;
import dev.floe.iceberg.CatalogFactory;
import dev.floe.iceberg.FloeCatalog;
import dev.floe.mysql.MySqlConnections;
import dev.floe.testing.MariaDbServer;
import dev.floe.testing.Poll;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A table with every MySQL type, on a server in a non-UTC time zone, synced through the snapshot
 * and the binlog: Iceberg holds exactly MySQL's values.
 */
class EveryTypeSyncITCase {

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

  @TempDir Path directory;

  @Test
  void everyTypeSurvivesSnapshotAndBinlog() throws Exception {
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
            tm TIME(6), dt0 DATETIME, dt6 DATETIME(6), ts TIMESTAMP(3) NULL, yr YEAR
          ) DEFAULT CHARSET=utf8mb4
          """,
          "INSERT INTO types.all_types ("
              + COLUMNS
              + ") VALUES "
              + EXTREMES.formatted(1)
              + ", "
              + NULLS.formatted(2));
      SyncOptions options =
          new SyncOptions(
              "types",
              MySqlSourceAddress.parse(server.sourceUrl("root", "", ""), "--source"),
              TableSelection.of(List.of("types\\..*"), List.of(), Optional.empty()),
              Duration.ofSeconds(1),
              1,
              directory.resolve("state"),
              Optional.empty(),
              SyncSettings.DEFAULT_CHUNK_ROWS);
      try (RunningSync sync =
          new SyncRunner(catalog, new MySqlConnections(Duration.ofSeconds(10))).start(options)) {
        Table table = catalog.catalog().loadTable(TableIdentifier.of("types", "all_types"));
        awaitEqual(server, table, 2);
        server.execute(
            "INSERT INTO types.all_types ("
                + COLUMNS
                + ") VALUES "
                + EXTREMES.formatted(3)
                + ", "
                + NULLS.formatted(4),
            "UPDATE types.all_types SET ts = '1999-12-31 23:59:59.001', tm = '00:00:00', bit12 = b'1', b1 = 0 WHERE id = 1",
            "UPDATE types.all_types SET vc = 'changed', bu = 0 WHERE id = 2");
        awaitEqual(server, table, 4);
      }
    }
  }

  private static void awaitEqual(MariaDbServer server, Table table, int rows) throws Exception {
    Poll.untilNothingWrong(
        "the lake holds every row of all_types",
        Duration.ofSeconds(120),
        Duration.ofMillis(300),
        () -> {
          TreeMap<String, String> expected =
              LakeComparison.mysqlRows(server, "types", "all_types", table.schema());
          TreeMap<String, String> actual = LakeComparison.lakeRows(table);
          return actual.size() == rows && expected.equals(actual)
              ? Optional.empty()
              : Optional.of(
                  expected.size() + " rows in MySQL, " + actual.size() + " in Iceberg: " + actual);
        });
  }
}

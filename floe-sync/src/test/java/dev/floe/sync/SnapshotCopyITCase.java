package dev.floe.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.floe.core.config.CatalogSettings;
import dev.floe.core.error.FloeException;
import dev.floe.core.source.MySqlSourceAddress;
import dev.floe.core.sync.SyncSummary;
import dev.floe.core.sync.TableSelection;
import dev.floe.iceberg.CatalogFactory;
import dev.floe.iceberg.FloeCatalog;
import dev.floe.mysql.MySqlConnections;
import dev.floe.testing.MariaDbExtension;
import dev.floe.testing.MariaDbServer;
import dev.floe.testing.Poll;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The initial snapshot copy: a partitioned table with a composite key copied in many chunks while
 * rows change; a sync whose binlog position was purged refuses to continue and names the way out;
 * {@code --resnapshot} replaces the tables' rows.
 */
@ExtendWith(MariaDbExtension.class)
class SnapshotCopyITCase {

  private static final Duration DEADLINE = Duration.ofSeconds(120);

  @TempDir Path directory;

  private MariaDbServer server;
  private String database;
  private FloeCatalog catalog;

  @BeforeEach
  void setUp(MariaDbServer server) {
    this.server = server;
    database = server.createDatabase("copy");
    server.execute(
        "CREATE TABLE `"
            + database
            + "`.events (tenant INT NOT NULL, seq BIGINT NOT NULL, kind VARCHAR(10),"
            + " happened DATETIME(3) NOT NULL, PRIMARY KEY (tenant, seq))",
        "INSERT INTO `"
            + database
            + "`.events SELECT seq % 7, seq, ELT(1 + seq % 3, 'view', 'click', 'buy'),"
            + " '2026-11-01' + INTERVAL (seq * 37) MINUTE FROM `"
            + database
            + "`.seq_1_to_3000");
    catalog = new CatalogFactory().open(CatalogSettings.embedded(), directory.resolve("data"));
  }

  @AfterEach
  void tearDown() {
    catalog.close();
  }

  @Test
  void partitionedCompositeKeyTableCopiedInChunksWhileRowsChange() throws Exception {
    SyncOptions options = options(200, 0, Map.of(database + ".events", "day(happened)"));
    try (RunningSync sync =
        new SyncRunner(catalog, new MySqlConnections(Duration.ofSeconds(10)))
            .withFlinkConfiguration(
                Map.of(
                    "metrics.reporter.capture.factory.class",
                    CapturingReporter.Factory.class.getName()))
            .start(options)) {
      server.execute(
          "UPDATE `" + database + "`.events SET kind = 'edited' WHERE seq % 11 = 0",
          "UPDATE `"
              + database
              + "`.events SET happened = happened + INTERVAL 3 DAY WHERE seq % 13 = 0",
          "DELETE FROM `" + database + "`.events WHERE seq % 17 = 0",
          "INSERT INTO `"
              + database
              + "`.events VALUES (1, 100000, 'late', '2026-12-24 10:00:00.123')");
      awaitEqual();
      Table table = lakeTable();
      assertThat(table.spec().fields())
          .extracting(field -> field.transform().toString())
          .containsExactly("day");
      long snapshotCommits = 0;
      for (Snapshot snapshot : table.snapshots()) {
        if (snapshot.summary().containsKey(SyncSummary.SNAPSHOT_AFTER_KEY)
            || snapshot.summary().containsKey(SyncSummary.SNAPSHOT_COMPLETE)) {
          snapshotCommits++;
        }
      }
      assertThat(snapshotCommits).as("one commit per commit interval or more").isPositive();
      awaitMetrics();
      sync.cancel(Duration.ofSeconds(60));
    }
  }

  @Test
  void purgedBinlogIsExplainedAndResnapshotStartsOver() throws Exception {
    // a slow copy, stopped in the middle
    SyncOptions slow = options(100, 500, Map.of());
    try (RunningSync sync =
        new SyncRunner(catalog, new MySqlConnections(Duration.ofSeconds(10))).start(slow)) {
      awaitFirstCommit();
      assertThat(sync.stop(Duration.ofSeconds(60)))
          .isEqualTo("the initial snapshot's committed progress");
    }
    String firstFile = binlogHeadFile();
    server.execute(
        "DELETE FROM `" + database + "`.events WHERE seq <= 10",
        "FLUSH BINARY LOGS",
        "INSERT INTO `" + database + "`.events VALUES (2, 200000, 'after', NOW(3))",
        "FLUSH BINARY LOGS");
    purgeBinlogsBefore(binlogHeadFile(), firstFile);

    SyncOptions fast = options(100, 0, Map.of());
    try (RunningSync sync =
        new SyncRunner(catalog, new MySqlConnections(Duration.ofSeconds(10))).start(fast)) {
      assertThatThrownBy(sync::await)
          .isInstanceOf(FloeException.class)
          .hasMessageContaining("must continue from binlog file " + firstFile)
          .hasMessageContaining("no longer has it")
          .hasMessageContaining("--resnapshot");
    }

    try (RunningSync sync =
        new SyncRunner(catalog, new MySqlConnections(Duration.ofSeconds(10)))
            .resnapshot(fast, List.of())) {
      awaitEqual();
      server.execute("UPDATE `" + database + "`.events SET kind = 'later' WHERE seq % 5 = 0");
      awaitEqual();
      sync.cancel(Duration.ofSeconds(60));
    }
  }

  /**
   * MariaDB keeps a binlog file until InnoDB no longer needs it for crash recovery (its binlog
   * checkpoint moves on shortly after a flush), so PURGE is repeated until the file is gone.
   */
  private void purgeBinlogsBefore(String head, String gone) throws Exception {
    Poll.until(
        gone + " is purged",
        DEADLINE,
        Duration.ofMillis(200),
        () -> {
          server.execute("PURGE BINARY LOGS TO '" + head + "'");
          try (java.sql.Connection connection = server.rootConnection();
              Statement statement = connection.createStatement();
              ResultSet rows = statement.executeQuery("SHOW BINARY LOGS")) {
            boolean present = false;
            while (rows.next()) {
              present |= rows.getString(1).equals(gone);
            }
            return !present;
          }
        });
  }

  private String binlogHeadFile() throws java.sql.SQLException {
    try (java.sql.Connection connection = server.rootConnection();
        Statement statement = connection.createStatement();
        ResultSet row = statement.executeQuery("SHOW MASTER STATUS")) {
      row.next();
      return row.getString(1);
    }
  }

  /** The binlog job's per-table metrics show committed rows and a lag once changes land. */
  private void awaitMetrics() throws Exception {
    // Flink writes the group value db.table with '_' for '.' in dotted identifiers
    String table = "table." + database + "_events.";
    Poll.untilNothingWrong(
        "committedRows and lagMillis metrics for " + table,
        DEADLINE,
        Duration.ofMillis(200),
        () -> {
          Optional<org.apache.flink.metrics.Metric> rows =
              CapturingReporter.find(table + "committedRows");
          Optional<org.apache.flink.metrics.Metric> lag =
              CapturingReporter.find(table + "lagMillis");
          boolean reported =
              rows.isPresent()
                  && lag.isPresent()
                  && ((org.apache.flink.metrics.Counter) rows.get()).getCount() > 0
                  && (Long) ((org.apache.flink.metrics.Gauge<?>) lag.get()).getValue() >= 0;
          return reported
              ? Optional.empty()
              : Optional.of(
                  "metrics so far: "
                      + CapturingReporter.identifiers().stream()
                          .filter(name -> name.contains(".table."))
                          .toList());
        });
  }

  private SyncOptions options(int chunkRows, long rowsPerSecond, Map<String, String> partitions) {
    return new SyncOptions(
        "copy",
        MySqlSourceAddress.parse(server.sourceUrl("root", "", ""), "--source"),
        TableSelection.of(List.of(database + "\\.events"), List.of(), Optional.empty()),
        Duration.ofSeconds(1),
        2,
        directory.resolve("state"),
        Optional.empty(),
        chunkRows,
        rowsPerSecond,
        partitions);
  }

  private Table lakeTable() {
    return catalog.catalog().loadTable(TableIdentifier.of(database, "events"));
  }

  private void awaitFirstCommit() throws Exception {
    Poll.until(
        "a first snapshot commit",
        DEADLINE,
        Duration.ofMillis(50),
        () ->
            catalog.catalog().tableExists(TableIdentifier.of(database, "events"))
                && lakeTable().currentSnapshot() != null);
  }

  private void awaitEqual() throws Exception {
    Poll.untilNothingWrong(
        "MySQL and Iceberg hold the same rows",
        DEADLINE,
        Duration.ofMillis(500),
        () -> {
          Table table = lakeTable();
          TreeMap<String, String> expected =
              LakeComparison.mysqlRows(server, database, "events", table.schema());
          TreeMap<String, String> actual = LakeComparison.lakeRows(table);
          return expected.equals(actual)
              ? Optional.empty()
              : Optional.of(expected.size() + " rows in MySQL, " + actual.size() + " in Iceberg");
        });
  }
}

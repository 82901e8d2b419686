package dev.floe.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.floe.core.config.CatalogSettings;
import dev.floe.core.error.FloeException;
import dev.floe.core.source.MySqlSourceAddress;
import dev.floe.core.sync.TableSelection;
import dev.floe.iceberg.CatalogFactory;
import dev.floe.iceberg.FloeCatalog;
import dev.floe.mysql.MySqlConnections;
import dev.floe.testing.MariaDbExtension;
import dev.floe.testing.MariaDbServer;
import dev.floe.testing.Poll;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A restart restores the binlog job from its savepoint, whose binlog position lives in the
 * checkpointed state of the CDC source: files older than that position may be purged without harm,
 * but when the position's own file is purged the restart fails before anything is submitted, naming
 * that file and offering {@code --resnapshot}.
 */
@ExtendWith(MariaDbExtension.class)
class PurgedBinlogRestoreITCase {

  private static final Duration DEADLINE = Duration.ofSeconds(120);

  @TempDir Path directory;

  private MariaDbServer server;
  private String database;
  private FloeCatalog catalog;

  @BeforeEach
  void setUp(MariaDbServer server) {
    this.server = server;
    database = server.createDatabase("purged");
    server.execute(
        "CREATE TABLE `" + database + "`.events (id INT PRIMARY KEY, note VARCHAR(20))",
        "INSERT INTO `"
            + database
            + "`.events SELECT seq, 'copied' FROM `"
            + database
            + "`.seq_1_to_200");
    catalog = new CatalogFactory().open(CatalogSettings.embedded(), directory.resolve("data"));
  }

  @AfterEach
  void tearDown() {
    catalog.close();
  }

  @Test
  void restoreWhoseBinlogFileIsPurgedNamesTheFileAndOffersResnapshot() throws Exception {
    SyncOptions options = options();
    String startFile = binlogHeadFile();
    String savepointFile;
    try (RunningSync sync = runner().start(options)) {
      awaitEqual();
      server.execute("FLUSH BINARY LOGS");
      savepointFile = binlogHeadFile();
      server.execute(
          "UPDATE `" + database + "`.events SET note = 'binlog' WHERE id % 3 = 0",
          "INSERT INTO `" + database + "`.events VALUES (1000, 'binlog')");
      awaitEqual();
      assertThat(sync.stop(Duration.ofSeconds(60))).startsWith("savepoint ");
    }
    assertThat(savepointFile).isNotEqualTo(startFile);

    // Files before the savepoint's own are not needed: the restart goes on.
    purgeBinlogsBefore(savepointFile, startFile);
    try (RunningSync sync = runner().start(options)) {
      assertThat(sync.restoredFrom()).isPresent();
      server.execute("DELETE FROM `" + database + "`.events WHERE id % 5 = 0");
      awaitEqual();
      assertThat(sync.stop(Duration.ofSeconds(60))).startsWith("savepoint ");
    }

    // Now the savepoint's file goes too: the restart refuses, naming it.
    server.execute(
        "FLUSH BINARY LOGS",
        "UPDATE `" + database + "`.events SET note = 'lost' WHERE id = 1",
        "FLUSH BINARY LOGS");
    purgeBinlogsBefore(binlogHeadFile(), savepointFile);
    String oldest = binlogFiles().get(0);
    assertThatThrownBy(() -> runner().start(options))
        .isInstanceOf(FloeException.class)
        .hasMessageMatching(
            Pattern.quote(
                    "The sync purged must continue from binlog file "
                        + savepointFile
                        + " (position ")
                + "\\d+"
                + Pattern.quote(
                    "), but "
                        + options.source().hostAndPort()
                        + " no longer has it (oldest: "
                        + oldest
                        + "): changes made since then are lost to the binlog. Copy the tables"
                        + " again with `floe sync ... --resnapshot` (or --resnapshot TABLE... for"
                        + " some of them), and raise binlog retention (expire_logs_days /"
                        + " binlog_expire_logs_seconds) above the longest time a sync may be"
                        + " stopped."));
  }

  private SyncRunner runner() {
    return new SyncRunner(catalog, new MySqlConnections(Duration.ofSeconds(10)));
  }

  private SyncOptions options() {
    return new SyncOptions(
        "purged",
        MySqlSourceAddress.parse(server.sourceUrl("root", "", ""), "--source"),
        TableSelection.of(List.of(database + "\\.events"), List.of(), Optional.empty()),
        Duration.ofSeconds(1),
        1,
        directory.resolve("state"),
        Optional.empty(),
        1000);
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
          return !binlogFiles().contains(gone);
        });
  }

  private List<String> binlogFiles() throws Exception {
    List<String> files = new ArrayList<>();
    try (Connection connection = server.rootConnection();
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("SHOW BINARY LOGS")) {
      while (rows.next()) {
        files.add(rows.getString(1));
      }
    }
    return files;
  }

  private String binlogHeadFile() throws Exception {
    try (Connection connection = server.rootConnection();
        Statement statement = connection.createStatement();
        ResultSet row = statement.executeQuery("SHOW MASTER STATUS")) {
      row.next();
      return row.getString(1);
    }
  }

  private void awaitEqual() throws Exception {
    TableIdentifier identifier = TableIdentifier.of(database, "events");
    Poll.untilNothingWrong(
        "MySQL and Iceberg hold the same rows",
        DEADLINE,
        Duration.ofMillis(500),
        () -> {
          if (!catalog.catalog().tableExists(identifier)) {
            return Optional.of("no Iceberg table");
          }
          Table table = catalog.catalog().loadTable(identifier);
          TreeMap<String, String> expected =
              LakeComparison.mysqlRows(server, database, "events", table.schema());
          TreeMap<String, String> actual = LakeComparison.lakeRows(table);
          return expected.equals(actual)
              ? Optional.empty()
              : Optional.of(expected.size() + " rows in MySQL, " + actual.size() + " in Iceberg");
        });
  }
}

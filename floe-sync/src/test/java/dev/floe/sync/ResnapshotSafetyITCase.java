package dev.floe.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.floe.core.config.CatalogSettings;
import dev.floe.core.error.ErrorCategory;
import dev.floe.core.error.FloeException;
import dev.floe.core.source.MySqlSourceAddress;
import dev.floe.core.sync.TableSelection;
import dev.floe.iceberg.CatalogFactory;
import dev.floe.iceberg.FloeCatalog;
import dev.floe.mysql.MySqlConnections;
import dev.floe.testing.MariaDbExtension;
import dev.floe.testing.MariaDbServer;
import dev.floe.testing.Poll;
import dev.floe.testing.TcpProxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --resnapshot TABLE} deletes a sync's state or drops a table only after MySQL answered
 * everything the decision needs and the checkpoint was read: MySQL going away at any of its steps,
 * or a checkpoint that cannot be read, stops it with the state and tables as they were (issue 17:
 * before, any such failure counted as "binlog purged" and the sync started over).
 */
@ExtendWith(MariaDbExtension.class)
class ResnapshotSafetyITCase {

  private static final Duration DEADLINE = Duration.ofSeconds(120);

  /**
   * What resnapshot asks MySQL before it changes anything: the tables, the binlog list, its head.
   */
  private static final int CONNECTIONS_BEFORE_ANY_CHANGE = 3;

  @TempDir Path directory;

  private MariaDbServer server;
  private String database;
  private FloeCatalog catalog;

  @BeforeEach
  void setUp(MariaDbServer server) throws Exception {
    this.server = server;
    database = server.createDatabase("resnap");
    for (String table : List.of("events", "notes")) {
      server.execute(
          "CREATE TABLE `" + database + "`." + table + " (id INT PRIMARY KEY, note VARCHAR(20))",
          "INSERT INTO `"
              + database
              + "`."
              + table
              + " SELECT seq, 'copied' FROM `"
              + database
              + "`.seq_1_to_200");
    }
    catalog = new CatalogFactory().open(CatalogSettings.embedded(), directory.resolve("data"));
    try (RunningSync sync = runner().start(options(server.host(), server.port()))) {
      awaitEqual("events");
      awaitEqual("notes");
      assertThat(sync.stop(Duration.ofSeconds(60))).startsWith("savepoint ");
    }
    awaitStateSettled();
  }

  /**
   * Flink may still be discarding a subsumed checkpoint after the stop returns: wait until two
   * reads of the state directory agree before comparing it.
   */
  private void awaitStateSettled() throws Exception {
    Object[] last = {null};
    Poll.until(
        "the sync's state directory stops changing",
        Duration.ofSeconds(30),
        Duration.ofMillis(500),
        () -> {
          Map<String, String> now;
          try {
            now = state();
          } catch (java.io.UncheckedIOException e) {
            return false;
          }
          boolean settled = now.equals(last[0]);
          last[0] = now;
          return settled;
        });
  }

  @AfterEach
  void tearDown() {
    catalog.close();
  }

  @Test
  void mysqlGoingAwayAtAnyStepOfResnapshotLeavesTheStateAndTablesAsTheyWere() throws Exception {
    Map<String, String> stateBefore = state();
    String eventsBefore = uuid("events");
    try (TcpProxy proxy = TcpProxy.to(server.host(), server.port())) {
      SyncOptions proxied = options("127.0.0.1", proxy.port());
      for (int step = 1; step <= CONNECTIONS_BEFORE_ANY_CHANGE; step++) {
        proxy.refuseFrom(step);
        int before = proxy.accepted();
        assertThatThrownBy(() -> runner().resnapshot(proxied, List.of(database + ".events")))
            .as("MySQL gone at connection %d", step)
            .isInstanceOf(FloeException.class)
            .extracting(e -> ((FloeException) e).category())
            .isEqualTo(ErrorCategory.SOURCE_UNAVAILABLE);
        assertThat(proxy.accepted() - before).as("connections tried").isEqualTo(step);
        assertThat(state())
            .as("state after MySQL went at connection %d", step)
            .isEqualTo(stateBefore);
        assertThat(uuid("events")).isEqualTo(eventsBefore);
      }

      // With MySQL there, the same command copies events again and lets notes go on.
      proxy.refuseFrom(Integer.MAX_VALUE);
      String notesBefore = uuid("notes");
      server.execute(
          "UPDATE `" + database + "`.notes SET note = 'binlog' WHERE id % 3 = 0",
          "DELETE FROM `" + database + "`.events WHERE id % 4 = 0");
      try (RunningSync sync = runner().resnapshot(proxied, List.of(database + ".events"))) {
        awaitEqual("events");
        awaitEqual("notes");
        assertThat(sync.stop(Duration.ofSeconds(60))).startsWith("savepoint ");
      }
      assertThat(uuid("events")).isNotEqualTo(eventsBefore);
      assertThat(uuid("notes")).isEqualTo(notesBefore);
    }
  }

  @Test
  void aCheckpointThatCannotBeReadStopsResnapshotAndDeletesNothing() throws Exception {
    Path restorePoint =
        Path.of(
            StateDirectory.local(directory.resolve("state"))
                .latestRestorePoint()
                .orElseThrow()
                .toUri());
    Files.writeString(restorePoint.resolve("_metadata"), "not a checkpoint");
    Map<String, String> stateBefore = state();
    String eventsBefore = uuid("events");

    assertThatThrownBy(
            () ->
                runner()
                    .resnapshot(
                        options(server.host(), server.port()), List.of(database + ".events")))
        .isInstanceOf(FloeException.class)
        .hasMessageStartingWith("Cannot read the sync's checkpoint " + restorePoint)
        .hasMessageContaining("so nothing was dropped or deleted.")
        .extracting(e -> ((FloeException) e).category())
        .isEqualTo(ErrorCategory.BAD_INPUT);
    assertThat(state()).isEqualTo(stateBefore);
    assertThat(uuid("events")).isEqualTo(eventsBefore);

    // A plain start does not restore what it cannot read either.
    assertThatThrownBy(() -> runner().start(options(server.host(), server.port())))
        .isInstanceOf(FloeException.class)
        .hasMessageStartingWith("Cannot read the sync's checkpoint " + restorePoint)
        .hasMessageEndingWith("or copy the tables again with --resnapshot.");
    assertThat(state()).isEqualTo(stateBefore);
  }

  private SyncRunner runner() {
    return new SyncRunner(catalog, new MySqlConnections(Duration.ofSeconds(10)));
  }

  private SyncOptions options(String host, int port) {
    return new SyncOptions(
        "resnap",
        MySqlSourceAddress.parse("mysql://root@" + host + ":" + port, "--source"),
        TableSelection.of(List.of(database + "\\..*"), List.of(), Optional.empty()),
        Duration.ofSeconds(1),
        1,
        directory.resolve("state"),
        Optional.empty(),
        1000);
  }

  /** Every file of the sync's state directory with its content's hash. */
  private Map<String, String> state() throws Exception {
    Path state = directory.resolve("state");
    try (Stream<Path> files = Files.walk(state)) {
      return files
          .filter(Files::isRegularFile)
          .collect(
              Collectors.toMap(
                  file -> state.relativize(file).toString(),
                  file -> {
                    try {
                      return Integer.toHexString(
                          new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1)
                              .hashCode());
                    } catch (java.io.IOException e) {
                      throw new java.io.UncheckedIOException(e);
                    }
                  },
                  (a, b) -> a,
                  TreeMap::new));
    }
  }

  private String uuid(String table) {
    return catalog.catalog().loadTable(TableIdentifier.of(database, table)).uuid().toString();
  }

  private void awaitEqual(String table) throws Exception {
    TableIdentifier identifier = TableIdentifier.of(database, table);
    Poll.until(
        database + "." + table + " equal in MySQL and Iceberg",
        DEADLINE,
        Duration.ofMillis(500),
        () -> {
          if (!catalog.catalog().tableExists(identifier)) {
            return false;
          }
          Table lake = catalog.catalog().loadTable(identifier);
          return LakeComparison.difference(server, database, table, lake).isEmpty();
        });
  }
}

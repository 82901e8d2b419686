package dev.floe.sync;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.core.config.CatalogSettings;
import dev.floe.core.sync.SyncSummary;
import dev.floe.iceberg.CatalogFactory;
import dev.floe.iceberg.FloeCatalog;
import dev.floe.testing.MariaDbExtension;
import dev.floe.testing.MariaDbServer;
import dev.floe.testing.Poll;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sync under a sysbench-like write load (point updates, delete and re-insert of a key, inserts)
 * on 10 tables, with an ADD COLUMN now and then, killed with SIGKILL at chosen moments (during the
 * copy, in the binlog phase, right after a DDL, right after a commit) and restarted each time; at
 * the end every table equals MySQL row for row (columns included) with no duplicate key. The added
 * columns have no DEFAULT: MySQL fills a default into existing rows without binlog events, so those
 * rows read null in the lake until updated (docs/schema-changes.md).
 *
 * <p>{@link #threeKills} runs in the default suite. {@link #twentyKills} is the soak of issue 17
 * (tagged slow): {@code mvn -B -q -pl floe-sync -am test -Dfloe.tests=all
 * -Dtest='SyncSoakITCase#twentyKills' -Dsurefire.failIfNoSpecifiedTests=false}; it prints one
 * {@code soak:} line per kill and a summary (in {@code
 * floe-sync/target/surefire-reports/dev.floe.sync.SyncSoakITCase-output.txt}). On a failure the
 * sync processes' logs are copied to {@code floe-sync/target/soak-logs}.
 *
 * <p>A DDL is issued only once the run has committed in its binlog phase: a sync stopped after an
 * ALTER that came during the copy, or between the copy's end and the binlog phase's first
 * checkpoint, is refused on restart and needs {@code --resnapshot} ({@link
 * AlteredBeforeBinlogCheckpointITCase}, docs/schema-changes.md "DDL during the initial copy").
 */
@ExtendWith(MariaDbExtension.class)
class SyncSoakITCase {

  private static final int TABLES = 10;
  private static final int ROWS = 3000;
  private static final Duration CHECKPOINTS = Duration.ofSeconds(2);
  private static final Duration DEADLINE = Duration.ofMinutes(4);

  /** Where the sync is when it is killed. */
  enum Moment {
    /** Some chunks committed, some table not copied yet. */
    COPY,
    /** At a random point of a checkpoint interval in the binlog phase. */
    BINLOG,
    /** Right after an ALTER TABLE ADD COLUMN returned. */
    DDL,
    /** Right after a commit of the binlog phase landed. */
    COMMIT
  }

  @TempDir Path directory;

  @Test
  void threeKills(MariaDbServer server) throws Exception {
    soak(server, List.of(Moment.COPY, Moment.DDL, Moment.COMMIT), 3);
  }

  @Test
  @Tag("slow")
  void twentyKills(MariaDbServer server) throws Exception {
    Random random = new Random(17);
    List<Moment> moments = new ArrayList<>(List.of(Moment.COPY, Moment.COPY));
    List<Moment> later = List.of(Moment.BINLOG, Moment.DDL, Moment.COMMIT);
    while (moments.size() < 20) {
      moments.add(later.get(random.nextInt(later.size())));
    }
    soak(server, moments, 17);
  }

  private void soak(MariaDbServer server, List<Moment> moments, long seed) throws Exception {
    String database = server.createDatabase("soak");
    for (int table = 1; table <= TABLES; table++) {
      server.execute(
          "CREATE TABLE `"
              + database
              + "`.sbtest"
              + table
              + " (id INT AUTO_INCREMENT PRIMARY KEY, k INT NOT NULL DEFAULT 0,"
              + " c CHAR(120) NOT NULL DEFAULT '', pad CHAR(60) NOT NULL DEFAULT '', KEY k (k))",
          "INSERT INTO `"
              + database
              + "`.sbtest"
              + table
              + " (k, c, pad) SELECT FLOOR(RAND() * "
              + ROWS
              + "), CONCAT('c-', seq, '-', MD5(seq)), CONCAT('pad-', seq) FROM `"
              + database
              + "`.seq_1_to_"
              + ROWS);
    }
    Path data = directory.resolve("data");
    Files.createDirectories(data);
    String url = server.sourceUrl("root", "", "");
    Random random = new Random(seed);
    Map<Moment, Integer> hit = new EnumMap<>(Moment.class);
    int columnsAdded = 0;
    boolean passed = false;
    try (FloeCatalog catalog = new CatalogFactory().open(CatalogSettings.embedded(), data);
        WriteLoad load = WriteLoad.start(server, database, seed)) {
      for (int kill = 1; kill <= moments.size(); kill++) {
        Moment moment = moments.get(kill - 1);
        Instant started = Instant.now();
        // The copy is slowed (chunks of 500 rows, 4,000 rows/s) so that a kill can land in it.
        Process sync = SyncProcess.start(data, url, database, 500, 4000, CHECKPOINTS);
        String detail;
        try {
          detail =
              switch (moment) {
                case COPY -> killDuringCopy(catalog, database, sync);
                case BINLOG -> {
                  awaitBinlogCommit(catalog, database, started);
                  long delay = random.nextInt((int) CHECKPOINTS.toMillis());
                  Thread.sleep(delay); // a random point of the interval, not a wait for a state
                  kill(sync);
                  yield "binlog phase, " + delay + " ms after a commit was seen";
                }
                case DDL -> {
                  awaitBinlogCommit(catalog, database, started);
                  int table = 1 + random.nextInt(TABLES);
                  String column = "extra" + (++columnsAdded);
                  load.alter(
                      "ALTER TABLE `"
                          + database
                          + "`.sbtest"
                          + table
                          + " ADD COLUMN "
                          + column
                          + " INT NULL");
                  kill(sync);
                  yield "right after ALTER TABLE sbtest" + table + " ADD COLUMN " + column;
                }
                case COMMIT -> {
                  awaitBinlogCommit(catalog, database, started);
                  String table = awaitNextCommit(catalog, database);
                  kill(sync);
                  yield "right after a commit to " + table;
                }
              };
        } finally {
          kill(sync);
        }
        hit.merge(moment, 1, Integer::sum);
        System.out.printf(
            Locale.ROOT,
            "soak: kill %d/%d %s: %s (%d writes so far)%n",
            kill,
            moments.size(),
            moment,
            detail,
            load.writes());
      }

      // A last run catches up once the load stops; the lake must then equal MySQL.
      load.close();
      Process last = SyncProcess.start(data, url, database, 500, 0, CHECKPOINTS);
      try {
        long rows = awaitEqual(server, database, catalog);
        System.out.printf(
            Locale.ROOT,
            "soak: %d kills (%s), %d writes and %d columns added under load; %d rows in %d tables"
                + " compared, differences: 0, duplicate keys: 0%n",
            moments.size(),
            hit,
            load.writes(),
            columnsAdded,
            rows,
            TABLES);
      } finally {
        kill(last);
      }
      assertThat(load.failure()).as("the write load ran without errors").isEmpty();
      passed = true;
    } finally {
      if (!passed) {
        keepLogs();
      }
    }
  }

  /** Kills the sync once some chunks are committed and some table is not copied yet. */
  private static String killDuringCopy(FloeCatalog catalog, String database, Process sync)
      throws Exception {
    Poll.until(
        "a copy commit",
        DEADLINE,
        Duration.ofMillis(20),
        () -> copiedTables(catalog, database).size() + startedTables(catalog, database) > 0);
    kill(sync);
    Set<String> copied = copiedTables(catalog, database);
    assertThat(copied).as("the kill landed during the copy").hasSizeLessThan(TABLES);
    return "during the copy, " + copied.size() + " of " + TABLES + " tables copied";
  }

  private static void kill(Process sync) throws InterruptedException {
    sync.destroyForcibly();
    assertThat(sync.waitFor(30, TimeUnit.SECONDS)).as("the killed sync ends").isTrue();
  }

  /** Tables whose copy is complete. */
  private static Set<String> copiedTables(FloeCatalog catalog, String database) {
    Set<String> copied = new TreeSet<>();
    for (int table = 1; table <= TABLES; table++) {
      Optional<Table> lake = lakeTable(catalog, database, "sbtest" + table);
      if (lake.isPresent()) {
        for (Snapshot snapshot : lake.get().snapshots()) {
          if ("true".equals(snapshot.summary().get(SyncSummary.SNAPSHOT_COMPLETE))) {
            copied.add("sbtest" + table);
          }
        }
      }
    }
    return copied;
  }

  /** How many tables have a commit at all. */
  private static int startedTables(FloeCatalog catalog, String database) {
    int started = 0;
    for (int table = 1; table <= TABLES; table++) {
      Optional<Table> lake = lakeTable(catalog, database, "sbtest" + table);
      if (lake.isPresent() && lake.get().currentSnapshot() != null) {
        started++;
      }
    }
    return started;
  }

  /** Waits for a commit of the binlog phase made by this run (after {@code since}). */
  private static void awaitBinlogCommit(FloeCatalog catalog, String database, Instant since)
      throws Exception {
    Poll.until(
        "a binlog-phase commit of this run",
        DEADLINE,
        Duration.ofMillis(100),
        () -> {
          for (int table = 1; table <= TABLES; table++) {
            Optional<Table> lake = lakeTable(catalog, database, "sbtest" + table);
            Snapshot current = lake.map(Table::currentSnapshot).orElse(null);
            if (current != null
                && current.summary().containsKey(SyncSummary.SOURCE_WATERMARK_MS)
                && current.timestampMillis() > since.toEpochMilli()) {
              return true;
            }
          }
          return false;
        });
  }

  /** Waits for the next commit to any table; returns the table. */
  private static String awaitNextCommit(FloeCatalog catalog, String database) throws Exception {
    Map<String, Long> before = new java.util.HashMap<>();
    for (int table = 1; table <= TABLES; table++) {
      Optional<Table> lake = lakeTable(catalog, database, "sbtest" + table);
      Snapshot current = lake.map(Table::currentSnapshot).orElse(null);
      before.put("sbtest" + table, current == null ? -1 : current.snapshotId());
    }
    AtomicReference<String> committed = new AtomicReference<>();
    Poll.until(
        "a new commit",
        DEADLINE,
        Duration.ofMillis(5),
        () -> {
          for (Map.Entry<String, Long> entry : before.entrySet()) {
            Snapshot current =
                lakeTable(catalog, database, entry.getKey())
                    .map(Table::currentSnapshot)
                    .orElse(null);
            if (current != null && current.snapshotId() != entry.getValue()) {
              committed.set(entry.getKey());
              return true;
            }
          }
          return false;
        });
    return committed.get();
  }

  private static Optional<Table> lakeTable(FloeCatalog catalog, String database, String table) {
    TableIdentifier identifier = TableIdentifier.of(database, table);
    if (!catalog.catalog().tableExists(identifier)) {
      return Optional.empty();
    }
    return Optional.of(catalog.catalog().loadTable(identifier));
  }

  /** Waits until every table equals MySQL, columns included; returns the rows compared. */
  private static long awaitEqual(MariaDbServer server, String database, FloeCatalog catalog)
      throws Exception {
    AtomicLong rows = new AtomicLong();
    Poll.untilNothingWrong(
        "every table equals MySQL row for row",
        DEADLINE,
        Duration.ofSeconds(1),
        () -> {
          long compared = 0;
          for (int number = 1; number <= TABLES; number++) {
            String table = "sbtest" + number;
            Optional<Table> lake = lakeTable(catalog, database, table);
            if (lake.isEmpty()) {
              return Optional.of(table + " is not in the lake");
            }
            lake.get().refresh();
            Set<String> lakeColumns = new TreeSet<>();
            lake.get().schema().columns().stream()
                .map(Types.NestedField::name)
                .forEach(lakeColumns::add);
            Set<String> mysqlColumns = mysqlColumns(server, database, table);
            if (!lakeColumns.containsAll(mysqlColumns)) {
              return Optional.of(
                  table + " has columns " + lakeColumns + " in the lake, " + mysqlColumns);
            }
            Optional<String> difference =
                LakeComparison.difference(server, database, table, lake.get());
            if (difference.isPresent()) {
              return Optional.of(table + ": " + difference.get());
            }
            compared += LakeComparison.lakeRows(lake.get()).size(); // fails on a duplicate key
          }
          rows.set(compared);
          return Optional.empty();
        });
    return rows.get();
  }

  private static Set<String> mysqlColumns(MariaDbServer server, String database, String table)
      throws SQLException {
    Set<String> columns = new TreeSet<>();
    try (Connection connection = server.rootConnection();
        PreparedStatement statement =
            connection.prepareStatement(
                "SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND"
                    + " TABLE_NAME = ?")) {
      statement.setString(1, database);
      statement.setString(2, table);
      try (ResultSet result = statement.executeQuery()) {
        while (result.next()) {
          columns.add(result.getString(1));
        }
      }
    }
    return columns;
  }

  /** Copies the sync processes' logs where a failed build keeps them. */
  private void keepLogs() throws IOException {
    Path logs = Path.of("target", "soak-logs");
    Files.createDirectories(logs);
    try (Stream<Path> files = Files.list(directory)) {
      for (Path file : files.filter(f -> f.getFileName().toString().endsWith(".log")).toList()) {
        Files.copy(
            file,
            logs.resolve(file.getFileName()),
            java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      }
    }
  }

  /**
   * A sysbench-like write load (oltp_write_only's statements, one at a time, about 100 a second):
   * update an indexed column, update a non-indexed one, delete a key and insert it again, insert a
   * new row. DDL goes through {@link #alter} on the same connection, between two statements.
   */
  static final class WriteLoad implements AutoCloseable {

    private final Connection connection;
    private final String database;
    private final Random random;
    private final Thread thread;
    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicLong writes = new AtomicLong();
    private final AtomicReference<String> failure = new AtomicReference<>();
    private final Object lock = new Object();

    private WriteLoad(Connection connection, String database, long seed) {
      this.connection = connection;
      this.database = database;
      this.random = new Random(seed);
      this.thread = new Thread(this::run, "soak-write-load");
      this.thread.setDaemon(true);
    }

    static WriteLoad start(MariaDbServer server, String database, long seed) throws SQLException {
      Connection connection = server.rootConnection();
      connection.setAutoCommit(true);
      WriteLoad load = new WriteLoad(connection, database, seed);
      load.thread.start();
      return load;
    }

    long writes() {
      return writes.get();
    }

    Optional<String> failure() {
      return Optional.ofNullable(failure.get());
    }

    /** Runs a DDL between two statements of the load. */
    void alter(String ddl) throws SQLException {
      synchronized (lock) {
        try (Statement statement = connection.createStatement()) {
          statement.execute(ddl);
        }
      }
    }

    private void run() {
      long next = System.nanoTime();
      while (!stop.get()) {
        String table = "`" + database + "`.sbtest" + (1 + random.nextInt(TABLES));
        int id = 1 + random.nextInt(ROWS);
        try {
          synchronized (lock) {
            try (Statement statement = connection.createStatement()) {
              switch (random.nextInt(4)) {
                case 0 -> statement.execute("UPDATE " + table + " SET k = k + 1 WHERE id = " + id);
                case 1 ->
                    statement.execute(
                        "UPDATE "
                            + table
                            + " SET c = CONCAT('u-', "
                            + random.nextInt()
                            + ") WHERE id = "
                            + id);
                case 2 -> {
                  statement.execute("DELETE FROM " + table + " WHERE id = " + id);
                  statement.execute(
                      "INSERT INTO "
                          + table
                          + " (id, k, c, pad) VALUES ("
                          + id
                          + ", "
                          + random.nextInt(ROWS)
                          + ", 'reinserted', 'pad')");
                }
                default ->
                    statement.execute(
                        "INSERT INTO "
                            + table
                            + " (k, c, pad) VALUES ("
                            + random.nextInt(ROWS)
                            + ", 'new', 'pad')");
              }
            }
          }
          writes.incrementAndGet();
        } catch (SQLException e) {
          failure.compareAndSet(null, e.getMessage());
        }
        // pacing: about 100 statements a second, so the sync keeps up on 2 cores
        next += 10_000_000L;
        long wait = next - System.nanoTime();
        if (wait > 0) {
          try {
            TimeUnit.NANOSECONDS.sleep(wait);
          } catch (InterruptedException e) {
            return;
          }
        }
      }
    }

    @Override
    public void close() throws Exception {
      stop.set(true);
      thread.interrupt();
      thread.join(10_000);
      connection.close();
    }
  }
}

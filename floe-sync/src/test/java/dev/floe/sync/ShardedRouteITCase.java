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
import dev.floe.testing.MariaDbExtension;
import dev.floe.testing.MariaDbServer;
import dev.floe.testing.Poll;
import dev.floe.verify.Verifier;
import dev.floe.verify.VerifyOptions;
import dev.floe.verify.VerifyProgress;
import dev.floe.verify.VerifyRequest;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Sharded tables in two databases land in one Iceberg table through a route: equal primary keys in
 * different shards stay apart, the shards' schemas are reconciled, a column added to one shard
 * appears (null for the others), and a shard created while the sync runs joins the route, all
 * during live inserts, updates and deletes on every shard.
 */
@ExtendWith(MariaDbExtension.class)
class ShardedRouteITCase {

  private static final Duration DEADLINE = Duration.ofSeconds(120);
  private static final String UPDATED =
      ", updated_at DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6) ON UPDATE"
          + " CURRENT_TIMESTAMP(6)";

  @TempDir Path directory;

  private MariaDbServer server;
  private String first;
  private String second;
  private FloeCatalog catalog;
  private final List<String> shards = new ArrayList<>();

  @BeforeEach
  void setUp(MariaDbServer server) {
    this.server = server;
    first = server.createDatabase("shard");
    second = server.createDatabase("shard");
    for (String shard : List.of(first + ".orders_0", first + ".orders_1")) {
      createShard(shard, "id BIGINT PRIMARY KEY, customer VARCHAR(60) NOT NULL, qty INT" + UPDATED);
    }
    // the second database's shard: an extra column in the middle and a wider qty
    createShard(
        second + ".orders_0",
        "id BIGINT PRIMARY KEY, customer VARCHAR(60) NOT NULL, coupon VARCHAR(10), qty BIGINT"
            + UPDATED);
    server.execute(
        "UPDATE `" + second + "`.orders_0 SET coupon = CONCAT('c', id), qty = qty + 5000000000",
        "CREATE TABLE `" + first + "`.customers (id INT PRIMARY KEY, name VARCHAR(20))",
        "INSERT INTO `"
            + first
            + "`.customers SELECT seq, CONCAT('n', seq) FROM `"
            + first
            + "`.seq_1_to_30");
    catalog = new CatalogFactory().open(CatalogSettings.embedded(), directory.resolve("data"));
  }

  /** Creates a shard with rows 1..100: the same keys in every shard. */
  private void createShard(String shard, String columns) {
    String table = quoted(shard);
    server.execute(
        "CREATE TABLE " + table + " (" + columns + ")",
        "INSERT INTO "
            + table
            + " (id, customer, qty) SELECT seq, CONCAT('"
            + shard
            + " ', seq), seq FROM `"
            + first
            + "`.seq_1_to_100");
    shards.add(shard);
  }

  @AfterEach
  void tearDown() {
    catalog.close();
  }

  @Test
  void shardsMergeIntoOneTableUnderLiveTrafficAndSchemaChanges() throws Exception {
    try (RunningSync sync =
        new SyncRunner(catalog, new MySqlConnections(Duration.ofSeconds(10))).start(options())) {
      awaitEqual();
      Table orders = orders();
      Schema schema = orders.schema();
      assertThat(
              schema.columns().stream()
                  .map(column -> column.name() + (column.isRequired() ? " required" : ""))
                  .toList())
          .containsExactly(
              "id required",
              "customer",
              "coupon",
              "qty",
              "updated_at",
              "_source_db required",
              "_source_table required");
      assertThat(schema.findField("qty").type()).isEqualTo(Types.LongType.get());
      assertThat(schema.identifierFieldNames())
          .containsExactlyInAnyOrder("id", "_source_db", "_source_table");
      assertThat(LakeComparison.lakeRows(orders)).hasSize(300);
      // the table outside the route is synced on its own
      assertThat(
              LakeComparison.difference(
                  server,
                  first,
                  "customers",
                  catalog.catalog().loadTable(TableIdentifier.of(first, "customers"))))
          .isEmpty();

      // DDL from here on is read by the running binlog job
      awaitTrue(
          "a binlog-phase commit",
          () -> {
            server.execute("UPDATE " + quoted(shards.get(0)) + " SET qty = qty + 1 WHERE id = 2");
            return orders().currentSnapshot().summary().containsKey(SyncSummary.BINLOG_FILE);
          });
      Traffic traffic = new Traffic();
      Thread writer = new Thread(traffic, "route-traffic");
      writer.start();
      try {
        awaitTraffic(traffic, 30);
        server.execute(
            "ALTER TABLE " + quoted(first + ".orders_1") + " ADD COLUMN note VARCHAR(20) AFTER id",
            "UPDATE " + quoted(first + ".orders_1") + " SET note = 'noted' WHERE id % 3 = 0");
        awaitTraffic(traffic, 30);
        String created = first + ".orders_2";
        server.execute(
            "CREATE TABLE "
                + quoted(created)
                + " (id BIGINT PRIMARY KEY, customer VARCHAR(60) NOT NULL, qty INT, region"
                + " CHAR(2)"
                + UPDATED
                + ")",
            "INSERT INTO "
                + quoted(created)
                + " (id, customer, qty, region) SELECT seq, CONCAT('new ', seq), seq, 'eu' FROM `"
                + first
                + "`.seq_1_to_40");
        shards.add(created);
        traffic.includeNewShard();
        awaitTraffic(traffic, 30);
      } finally {
        traffic.stop();
        writer.join();
      }
      awaitEqual();

      orders = orders();
      assertThat(orders.schema().columns().stream().map(Types.NestedField::name).toList())
          .containsExactly(
              "id",
              "note",
              "customer",
              "coupon",
              "qty",
              "region",
              "updated_at",
              "_source_db",
              "_source_table");
      assertThat(orders.currentSnapshot().summary()).containsKey(SyncSummary.BINLOG_FILE);
      // one progress line for the route's shards, one for the table outside it, then the totals
      SyncStatus status =
          new SyncProgress(
                  catalog,
                  sync.tables(),
                  new MySqlConnections(Duration.ofSeconds(10)),
                  options().source())
              .status();
      List<String> progress =
          new ProgressView(ProgressView.Mode.LOG, Duration.ofSeconds(10), 120)
              .render(Optional.empty(), status);
      assertThat(progress)
          .hasSize(3)
          .anyMatch(
              line ->
                  line.matches(
                      "  (binlog|lagging) +"
                          + java.util.regex.Pattern.quote(first + ".orders (route)")
                          + " .*"))
          .anyMatch(
              line ->
                  line.matches(
                      "  (binlog|lagging) +"
                          + java.util.regex.Pattern.quote(first + ".customers")
                          + " .*"));
      assertThat(progress.get(2)).startsWith("progress: 2 tables: ");
    }

    // Stopped: a change meanwhile, then --resnapshot of one shard copies its whole route again
    // (the shards share one Iceberg table) while the table outside the route resumes.
    server.execute(
        "UPDATE " + quoted(shards.get(1)) + " SET customer = 'while stopped' WHERE id = 50",
        "INSERT INTO `" + first + "`.customers VALUES (31, 'while stopped')");
    long customersSnapshots = customersTable().history().size();
    java.util.UUID routeTable = orders().uuid();
    try (RunningSync sync =
        new SyncRunner(catalog, new MySqlConnections(Duration.ofSeconds(10)))
            .resnapshot(options(), List.of(second + ".orders_0"))) {
      awaitEqual();
      awaitTrue(
          "customers resumed",
          () -> LakeComparison.difference(server, first, "customers", customersTable()).isEmpty());
      assertThat(customersTable().history().size())
          .as("customers resumed from its checkpoint, not copied again")
          .isGreaterThan((int) customersSnapshots);
      assertThat(orders().uuid()).as("the route's table made again").isNotEqualTo(routeTable);
      List<String> copied = new ArrayList<>();
      orders()
          .snapshots()
          .forEach(
              snapshot ->
                  snapshot.summary().keySet().stream()
                      .filter(key -> key.startsWith(SyncSummary.SNAPSHOT_COMPLETE + "."))
                      .forEach(
                          key ->
                              copied.add(
                                  key.substring(SyncSummary.SNAPSHOT_COMPLETE.length() + 1))));
      assertThat(copied).as("every shard copied once").containsExactlyInAnyOrderElementsOf(shards);
      sync.cancel(Duration.ofSeconds(60));
    }

    // floe verify compares each shard with its rows of the route's table
    String cutoff = sourceText("SELECT CAST(NOW(6) + INTERVAL 1 HOUR AS CHAR)").replace(' ', 'T');
    for (String shard : shards) {
      VerifyReport report = verify(shard, cutoff);
      assertThat(report.status()).as(shard + ": " + report.summary(10)).isEqualTo("equal");
      assertThat(report.rowsCompared())
          .as(shard + ": its own rows only")
          .isEqualTo(Long.parseLong(sourceText("SELECT COUNT(*) FROM " + quoted(shard))));
    }
    // a change that never reaches the binlog is found in its shard only
    String changedShard = shards.get(1);
    String id = sourceText("SELECT MIN(id) FROM " + quoted(changedShard));
    try (Connection connection = server.rootConnection();
        Statement statement = connection.createStatement()) {
      statement.execute("SET sql_log_bin = 0");
      statement.execute(
          "UPDATE "
              + quoted(changedShard)
              + " SET customer = 'hidden', updated_at = updated_at WHERE id = "
              + id);
    }
    VerifyReport changed = verify(changedShard, cutoff);
    assertThat(changed.status()).isEqualTo("different");
    assertThat(changed.found(DifferenceKind.DIFFERENT).keys())
        .containsExactly(Map.entry(RowKey.of(id), List.of("customer")));
    assertThat(changed.found(DifferenceKind.MISSING_IN_LAKE).keys()).isEmpty();
    assertThat(changed.found(DifferenceKind.EXTRA_IN_LAKE).keys()).isEmpty();
    assertThat(verify(shards.get(0), cutoff).status()).isEqualTo("equal");
  }

  private VerifyReport verify(String shard, String cutoff) {
    int dot = shard.indexOf('.');
    String database = shard.substring(0, dot);
    return new Verifier(new MySqlConnections(Duration.ofSeconds(10)), VerifyOptions.defaults())
        .verify(
            new VerifyRequest(
                MySqlSourceAddress.parse(server.sourceUrl("root", "", database), "--source"),
                database,
                shard.substring(dot + 1),
                TableIdentifier.of(first, "orders"),
                cutoff,
                "1d",
                "updated_at"),
            catalog.catalog(),
            VerifyProgress.NONE)
        .report();
  }

  private String sourceText(String query) throws SQLException {
    try (Connection connection = server.rootConnection();
        Statement statement = connection.createStatement();
        java.sql.ResultSet result = statement.executeQuery(query)) {
      result.next();
      return result.getString(1);
    }
  }

  private Table customersTable() {
    return catalog.catalog().loadTable(TableIdentifier.of(first, "customers"));
  }

  private SyncOptions options() {
    return new SyncOptions(
        "route",
        MySqlSourceAddress.parse(server.sourceUrl("root", "", ""), "--source"),
        TableSelection.of(
                List.of("(" + first + "|" + second + ")\\..*"), List.of(), Optional.empty())
            .withRoutes(
                "--route",
                List.of("(" + first + "|" + second + ")\\.orders_\\d+ -> " + first + ".orders")),
        Duration.ofSeconds(1),
        2,
        directory.resolve("state"),
        Optional.empty(),
        SyncSettings.DEFAULT_CHUNK_ROWS);
  }

  private Table orders() {
    return catalog.catalog().loadTable(TableIdentifier.of(first, "orders"));
  }

  private static String quoted(String qualified) {
    int dot = qualified.indexOf('.');
    return "`" + qualified.substring(0, dot) + "`.`" + qualified.substring(dot + 1) + "`";
  }

  private void awaitEqual() throws Exception {
    TableIdentifier identifier = TableIdentifier.of(first, "orders");
    Poll.untilNothingWrong(
        "MySQL's shards and Iceberg hold the same rows",
        DEADLINE,
        Duration.ofMillis(300),
        () ->
            catalog.catalog().tableExists(identifier)
                ? LakeComparison.difference(server, List.copyOf(shards), orders())
                : Optional.of("no Iceberg table"));
  }

  private static void awaitTraffic(Traffic traffic, int statements) throws Exception {
    int target = traffic.statements() + statements;
    Poll.until(
        target + " traffic statements",
        DEADLINE,
        Duration.ofMillis(20),
        () -> traffic.statements() >= target);
  }

  private static void awaitTrue(String what, Poll.Condition condition) throws Exception {
    Poll.until(what, DEADLINE, Duration.ofMillis(200), condition);
  }

  /** Inserts, updates and deletes rows of every shard, with the same keys in each. */
  private final class Traffic implements Runnable {
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicInteger statements = new AtomicInteger();
    private volatile int shardCount = shards.size();

    void includeNewShard() {
      shardCount = shards.size();
    }

    @Override
    public void run() {
      ThreadLocalRandom random = ThreadLocalRandom.current();
      long nextId = 1000;
      try (Connection connection = server.rootConnection();
          Statement statement = connection.createStatement()) {
        while (running.get()) {
          String table = quoted(shards.get(random.nextInt(shardCount)));
          switch (random.nextInt(3)) {
            case 0 ->
                statement.execute(
                    "INSERT INTO "
                        + table
                        + " (id, customer, qty) VALUES ("
                        + nextId++
                        + ", 'live', 7)");
            case 1 ->
                statement.execute(
                    "UPDATE "
                        + table
                        + " SET qty = qty + 1, customer = 'updated' WHERE id = "
                        + (1 + random.nextInt(100)));
            default ->
                statement.execute(
                    "DELETE FROM " + table + " WHERE id = " + (1 + random.nextInt(100)));
          }
          statements.incrementAndGet();
        }
      } catch (SQLException e) {
        throw new IllegalStateException("traffic failed", e);
      }
    }

    int statements() {
      return statements.get();
    }

    void stop() {
      running.set(false);
    }
  }
}

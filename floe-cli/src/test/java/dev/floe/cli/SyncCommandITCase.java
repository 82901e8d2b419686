package dev.floe.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.core.config.CatalogSettings;
import dev.floe.iceberg.CatalogFactory;
import dev.floe.iceberg.FloeCatalog;
import dev.floe.testing.MariaDbExtension;
import dev.floe.testing.MariaDbServer;
import dev.floe.testing.Poll;
import dev.floe.testing.SampleShop;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

@ExtendWith(MariaDbExtension.class)
class SyncCommandITCase {

  private static final Duration DEADLINE = Duration.ofSeconds(120);

  @TempDir Path directory;

  @Test
  void syncStopsWithASavepointOnSigtermAndResumes(MariaDbServer server) throws Exception {
    String database = server.createDatabase("clisync");
    SampleShop.create(server, database, new SampleShop.Size(50, 10, 100, 2));
    String url = server.sourceUrl("root", "", "");
    Path log = directory.resolve("sync.log");

    Process first = startSync(url, database, log);
    awaitOutput(log, "Syncing 4 tables from");
    awaitRows(server, database, "orders");
    first.destroy(); // SIGTERM, as a service manager stops it; Ctrl-C takes the same path
    assertThat(first.waitFor(2, TimeUnit.MINUTES)).isTrue();
    assertThat(Files.readString(log))
        .containsAnyOf("Stopped. Run the same command to resume from", "Stopped. The next run");
    assertNoLibraryLines(Files.readAllLines(log, StandardCharsets.UTF_8));

    server.execute(
        "INSERT INTO `"
            + database
            + "`.orders (id, customer_id, status, total, ordered_on, created_at) VALUES (42, 1, 'new', 1.00, '2026-11-29', NOW(6))");
    Path secondLog = directory.resolve("sync-2.log");
    Process second = startSync(url, database, secondLog);
    try {
      awaitOutput(secondLog, "(resumed from ");
      awaitRows(server, database, "orders");
      assertThat(Files.readString(secondLog))
          .contains("  " + database + ".orders -> floe." + database + ".orders");
    } finally {
      second.destroy();
      second.waitFor(2, TimeUnit.MINUTES);
    }
  }

  @Test
  void progressInALogIsALinePerStateChangeAndNoLibraryLineReachesTheConsole(MariaDbServer server)
      throws Exception {
    String database = server.createDatabase("cliprogress");
    SampleShop.create(server, database, new SampleShop.Size(50, 10, 100, 2));
    Path log = directory.resolve("progress.log");
    List<String> tables =
        List.of("customers", "products", "orders", "order_items").stream()
            .map(table -> database + "." + table)
            .toList();

    // stdout is a file here, so --progress auto prints log lines
    Process sync =
        startSync(
            server.sourceUrl("root", "", ""), database, log, "1", "--heartbeat-interval", "1");
    try {
      // three reports in a row that say the 4 tables read the binlog and list no table: the
      // tables were printed when they changed state, not at every report
      Poll.untilNothingWrong(
          "three reports in a row with only the totals line",
          DEADLINE,
          Duration.ofMillis(500),
          () -> {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            String quiet = "progress: 4 tables: 4 in the binlog phase; lag ";
            for (int i = 2; i < lines.size(); i++) {
              if (lines.get(i - 2).startsWith(quiet)
                  && lines.get(i - 1).startsWith(quiet)
                  && lines.get(i).startsWith(quiet)) {
                return Optional.empty();
              }
            }
            return Optional.of("printed:\n" + String.join("\n", lines));
          });
    } finally {
      sync.destroy();
      assertThat(sync.waitFor(2, TimeUnit.MINUTES)).isTrue();
    }

    List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
    for (String table : tables) {
      assertThat(lines)
          .as("the first report names %s", table)
          .anyMatch(
              line -> line.matches("  (copying|binlog)  +" + table.replace(".", "\\.") + " .*"));
    }
    assertNoLibraryLines(lines);
  }

  /**
   * Every line the sync printed is Floe's: its own sentences, the table list, progress, its own
   * warnings ({@code floe: }) and errors ({@code Error: }); no log line of Flink, the binlog
   * client, Debezium or Iceberg.
   */
  private static void assertNoLibraryLines(List<String> lines) {
    String printed = String.join("\n", lines);
    assertThat(lines)
        .as(printed)
        .noneMatch(
            line ->
                line.contains("org.apache.flink")
                    || line.contains("com.github.shyiko")
                    || line.contains("io.debezium")
                    || line.contains("org.apache.iceberg")
                    || line.matches(".*\\b(INFO|WARN|WARNING|ERROR|DEBUG)\\b.*"))
        .allMatch(
            line ->
                line.startsWith("Syncing ")
                    || line.startsWith("  ")
                    || line.startsWith("progress: ")
                    || line.startsWith("Committing every ")
                    || line.startsWith("Stopped. ")
                    || line.startsWith("floe: ")
                    // FloeCli's one-line error: on SIGTERM Flink's own shutdown hook may end the
                    // local job while Floe stops it ("The sync job failed: ... already closed")
                    || line.startsWith("Error: "));
  }

  @Test
  void sourceFailingTheDoctorIsRefused() {
    try (MariaDbServer noBinlog = MariaDbServer.builder().binlog(false).start()) {
      CliRun run =
          CliRun.run(
              directory,
              "--data-dir",
              "data",
              "sync",
              "--source",
              noBinlog.sourceUrl("root", "", ""),
              "--tables",
              ".*");

      assertThat(run.exitCode()).isEqualTo(1);
      assertThat(run.out())
          .contains("FAIL  log_bin")
          .contains("floe sync needs every required check to pass; nothing was synced.");
    }
  }

  @Test
  void tableWithoutPrimaryKeyIsRefusedClearly(MariaDbServer server) {
    String database = server.createDatabase("nopk");
    server.execute("CREATE TABLE `" + database + "`.events (message TEXT)");

    CliRun run =
        CliRun.run(
            directory,
            "--data-dir",
            "data",
            "sync",
            "--source",
            server.sourceUrl("root", "", ""),
            "--tables",
            database + "\\..*");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .startsWith(
            "Error: Table "
                + database
                + ".events has no primary key, so updates and deletes cannot be matched");
  }

  @Test
  void patternMatchingNothingIsExplained(MariaDbServer server) {
    CliRun run =
        CliRun.run(
            directory,
            "--data-dir",
            "data",
            "sync",
            "--source",
            server.sourceUrl("root", "", ""),
            "--tables",
            "nothing_here\\..*");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .contains(
            "No table of 127.0.0.1:" + server.port() + " matches --tables [nothing_here\\..*]");
  }

  @Test
  void badRoutesAndCollidingTablesAreExplained(MariaDbServer server) {
    String first = server.createDatabase("collide");
    String second = server.createDatabase("collide");
    for (String database : List.of(first, second)) {
      server.execute("CREATE TABLE `" + database + "`.orders (id INT PRIMARY KEY)");
    }
    String tables = "(" + first + "|" + second + ")\\..*";

    CliRun badRoute =
        CliRun.run(
            directory,
            "--data-dir",
            "data",
            "sync",
            "--source",
            server.sourceUrl("root", "", ""),
            "--tables",
            tables,
            "--route",
            "collide.* => ods.orders");
    assertThat(badRoute.exitCode()).isEqualTo(2);
    assertThat(badRoute.err())
        .contains(
            "--route 'collide.* => ods.orders' is not REGEX -> NAMESPACE.TABLE (a regular"
                + " expression over database.table, an arrow, and the Iceberg table of letters,"
                + " digits and _)");

    CliRun colliding =
        CliRun.run(
            directory,
            "--data-dir",
            "data",
            "sync",
            "--source",
            server.sourceUrl("root", "", ""),
            "--tables",
            tables,
            "--target-namespace",
            "ods");
    assertThat(colliding.exitCode()).isEqualTo(2);
    assertThat(colliding.err())
        .contains(first + ".orders", second + ".orders")
        .contains(
            ".orders would all land in Iceberg table ods.orders (--target-namespace puts"
                + " every table in one namespace), and rows with equal keys would overwrite each"
                + " other. Merge them on purpose with --route 'REGEX -> ods.orders'");
  }

  @Test
  void tablesComeFromTheSyncSectionWhenNoFlagIsGiven(MariaDbServer server) throws Exception {
    Files.writeString(
        directory.resolve("floe.yaml"),
        "source:\n  url: "
            + server.sourceUrl("root", "", "")
            + "\nsync:\n  tables:\n    - from_config\\..*\n");

    CliRun run = CliRun.run(directory, "--config", "floe.yaml", "--data-dir", "data", "sync");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("matches --tables [from_config\\..*]");
  }

  private Process startSync(String url, String database, Path log) throws Exception {
    return startSync(url, database, log, "2");
  }

  private Process startSync(
      String url, String database, Path log, String progressInterval, String... more)
      throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    for (String argument : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (argument.startsWith("--add-opens") || argument.startsWith("--add-exports")) {
        command.add(argument);
      }
    }
    command.addAll(
        List.of(
            "-Xmx1g",
            "-cp",
            System.getProperty("java.class.path"),
            FloeMain.class.getName(),
            "--data-dir",
            directory.resolve("data").toString(),
            "sync",
            "--source",
            url,
            "--tables",
            database + "\\..*",
            "--checkpoint-interval",
            "1",
            "--progress-interval",
            progressInterval));
    command.addAll(List.of(more));
    return new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(log.toFile())
        .start();
  }

  private static void awaitOutput(Path log, String text) throws Exception {
    Poll.untilNothingWrong(
        "'" + text + "' is printed",
        DEADLINE,
        Duration.ofMillis(200),
        () -> {
          String printed = Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
          return printed.contains(text) ? Optional.empty() : Optional.of("printed:\n" + printed);
        });
  }

  private void awaitRows(MariaDbServer server, String database, String table) throws Exception {
    Poll.untilNothingWrong(
        table + " holds MySQL's row count",
        DEADLINE,
        Duration.ofMillis(500),
        () -> {
          long expected = mysqlCount(server, database, table);
          long actual = lakeCount(database, table);
          return expected == actual
              ? Optional.empty()
              : Optional.of(expected + " rows in MySQL, " + actual + " in Iceberg");
        });
  }

  private static long mysqlCount(MariaDbServer server, String database, String table)
      throws Exception {
    try (Connection connection = server.rootConnection();
        Statement statement = connection.createStatement();
        ResultSet row =
            statement.executeQuery("SELECT COUNT(*) FROM `" + database + "`.`" + table + "`")) {
      row.next();
      return row.getLong(1);
    }
  }

  private long lakeCount(String database, String table) throws Exception {
    try (FloeCatalog catalog =
        new CatalogFactory().open(CatalogSettings.embedded(), directory.resolve("data"))) {
      TableIdentifier identifier = TableIdentifier.of(database, table);
      if (!catalog.catalog().tableExists(identifier)) {
        return -1;
      }
      long count = 0;
      try (CloseableIterable<Record> rows =
          IcebergGenerics.read(catalog.catalog().loadTable(identifier)).build()) {
        for (Record ignored : rows) {
          count++;
        }
      }
      return count;
    }
  }
}

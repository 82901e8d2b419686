package dev.floe.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.core.config.CatalogSettings;
import dev.floe.iceberg.CatalogFactory;
import dev.floe.iceberg.FloeCatalog;
import dev.floe.testing.MariaDbExtension;
import dev.floe.testing.MariaDbServer;
import dev.floe.verify.LakeCopier;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

@ExtendWith(MariaDbExtension.class)
class VerifyCommandITCase {

  @TempDir Path directory;
  MariaDbServer server;
  String database;
  String url;

  @BeforeEach
  void createTables(MariaDbServer server) throws Exception {
    this.server = server;
    database = server.createDatabase("cliverify");
    server.createUser("cli_verify", "pw-cli-verify", "SELECT");
    url = server.sourceUrl("cli_verify", "pw-cli-verify", "");
    server.execute(
        "CREATE TABLE `"
            + database
            + "`.orders (id BIGINT PRIMARY KEY, amount DECIMAL(10,2),"
            + " updated_at DATETIME NOT NULL)",
        "INSERT INTO `"
            + database
            + "`.orders SELECT seq * 1000, seq / 4, TIMESTAMP('2025-12-31')"
            + " - INTERVAL seq HOUR FROM `"
            + database
            + "`.seq_1_to_500");
    try (FloeCatalog catalog =
            new CatalogFactory().open(CatalogSettings.embedded(), directory.resolve("floe-data"));
        Connection connection = server.rootConnection()) {
      new LakeCopier(100)
          .copy(
              connection,
              LakeCopier.shape(connection, database, "orders", "updated_at"),
              catalog.catalog(),
              TableIdentifier.of("lake", "orders"));
    }
  }

  private CliRun verify(String... extra) {
    return verifyTarget("lake.orders", extra);
  }

  private CliRun verifyTarget(String target, String... extra) {
    String[] base = {
      "verify",
      "--source",
      url,
      "--table",
      database + ".orders",
      "--target",
      target,
      "--window",
      "7d",
      "--time-column",
      "updated_at"
    };
    String[] args = new String[base.length + extra.length];
    System.arraycopy(base, 0, args, 0, base.length);
    System.arraycopy(extra, 0, args, base.length, extra.length);
    return CliRun.run(directory, args);
  }

  @Test
  void equalTablesExitZeroWithSummaryProgressAndJsonReport() throws Exception {
    CliRun run = verify("--cutoff", "2026-01-01", "--report", "report.json");

    assertThat(run.exitCode()).as(run.out() + run.err()).isZero();
    assertThat(run.out())
        .contains("Compared 500 MySQL rows in 1 slices")
        .contains("EQUAL: MySQL and the lake hold the same data.")
        .contains("Report: " + directory.resolve("report.json"))
        .doesNotContain("pw-cli-verify");
    assertThat(run.err()).contains("verify: 1/1 slices, 500 rows, ");
    assertThat(Files.readString(directory.resolve("report.json")))
        .contains("\"status\": \"equal\"")
        .contains("\"missing_in_lake\": {\"count\": 0, \"keys\": []}")
        .contains("\"extra_in_lake\": {\"count\": 0, \"keys\": []}")
        .contains("\"different\": {\"count\": 0, \"keys\": [], \"rows\": []}");
  }

  @Test
  void differencesExitOneWithKeysAndRepairHint() throws Exception {
    server.execute(
        "DELETE FROM `" + database + "`.orders WHERE id = 3000",
        "UPDATE `" + database + "`.orders SET amount = 99 WHERE id = 4000");

    CliRun run = verify("--cutoff", "2026-01-01", "--report", "out/report.json");

    assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(1);
    assertThat(run.err()).contains("verify: 1/1 mismatching slices narrowed down to rows\n");
    assertThat(run.out())
        .contains("DIFFERENT:\n")
        .contains("  missing in lake:   0\n")
        .contains("  extra in lake:     1\n    3000\n")
        .contains("  different content: 1\n    4000  columns: amount\n")
        .contains("Repair: re-sync these keys from MySQL");
    assertThat(Files.readString(directory.resolve("out/report.json")))
        .contains("\"status\": \"different\"")
        .contains("\"extra_in_lake\": {\"count\": 1, \"keys\": [3000]}")
        .contains("\"different\": {\"count\": 1, \"keys\": [4000]");
  }

  @Test
  void aNamedKeyMustBeAUniqueKey() {
    assertThat(verify("--cutoff", "2026-01-01", "--key", "id").exitCode()).isZero();

    CliRun notUnique = verify("--cutoff", "2026-01-01", "--key", "amount");

    assertThat(notUnique.exitCode()).isEqualTo(2);
    assertThat(notUnique.err())
        .contains(
            "Error: --key amount is not a unique key of "
                + database
                + ".orders: verify needs a unique index on exactly these columns. Unique keys of"
                + " the table: PRIMARY(id).");
  }

  @Test
  void whatCannotBeComparedExitsTwoWithTheReason() throws Exception {
    CliRun unknownTable =
        CliRun.run(
            directory,
            "verify",
            "--source",
            url,
            "--table",
            database + ".nope",
            "--time-column",
            "updated_at");
    assertThat(unknownTable.exitCode()).isEqualTo(2);
    assertThat(unknownTable.err())
        .contains(
            "Error: Table "
                + database
                + ".nope does not exist on the source (or the user may not"
                + " see it). Check --table DATABASE.TABLE.");

    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    CliRun unreachable =
        CliRun.run(
            directory,
            "verify",
            "--source",
            "mysql://u@127.0.0.1:" + closedPort,
            "--table",
            database + ".orders",
            "--time-column",
            "updated_at",
            "--connect-timeout",
            "2");
    assertThat(unreachable.exitCode()).isEqualTo(2);
    assertThat(unreachable.err())
        .startsWith("Error: Cannot reach a MySQL server at 127.0.0.1:" + closedPort + " (");

    CliRun noLake = verifyTarget("lake.missing");
    assertThat(noLake.exitCode()).isEqualTo(2);
    assertThat(noLake.err())
        .contains(
            "Error: Lake table lake.missing does not exist in catalog 'floe'. Name it with"
                + " --target NAMESPACE.TABLE.");

    CliRun badCutoff = verify("--cutoff", "soon");
    assertThat(badCutoff.exitCode()).isEqualTo(2);
    assertThat(badCutoff.err())
        .contains(
            "Error: --cutoff must be today, a date (2026-11-29) or an ISO date-time"
                + " (2026-11-29T06:00), got 'soon'.");

    CliRun badTable =
        CliRun.run(directory, "verify", "--source", url, "--table", "orders", "--time-column", "t");
    assertThat(badTable.exitCode()).isEqualTo(2);
    assertThat(badTable.err()).contains("Error: --table must be DATABASE.TABLE, got 'orders'.");

    server.execute("CREATE TABLE `" + database + "`.nokey (a INT, updated_at DATETIME)");
    CliRun noKey =
        CliRun.run(
            directory,
            "verify",
            "--source",
            url,
            "--table",
            database + ".nokey",
            "--time-column",
            "updated_at");
    assertThat(noKey.exitCode()).isEqualTo(2);
    assertThat(noKey.err())
        .contains(
            "Error: Table "
                + database
                + ".nokey has no primary key. verify matches rows by a unique key and slices the"
                + " table along it; name a unique NOT NULL key with --key COLUMN[,COLUMN...] or"
                + " add a primary key to the table.");
  }
}

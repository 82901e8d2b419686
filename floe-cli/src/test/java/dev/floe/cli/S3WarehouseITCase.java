package dev.floe.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.iceberg.FloeCatalog;
import dev.floe.testing.MariaDbExtension;
import dev.floe.testing.MariaDbServer;
import dev.floe.testing.PostgresExtension;
import dev.floe.testing.PostgresServer;
import dev.floe.testing.S3Server;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The warehouse on S3-compatible storage (the harness's s3proxy) through Iceberg's S3FileIO, set by
 * floe.yaml's catalog.s3-* keys, with the catalog on PostgreSQL: the whole flow ({@link
 * SharedCatalogFlow}: floe serve keeping the lake, floe sync with live changes, verify, sql), then
 * every maintenance command, orphan listing included, on the same lake; the S3 credentials are
 * never printed.
 */
@ExtendWith({MariaDbExtension.class, PostgresExtension.class})
class S3WarehouseITCase {

  @TempDir Path directory;

  static String s3Catalog(PostgresServer postgres, String database, S3Server s3, String bucket) {
    return String.join(
        "\n",
        "type: jdbc",
        "name: lake",
        "uri: " + postgres.jdbcUrl(database),
        "warehouse: s3://" + bucket + "/warehouse",
        "s3-endpoint: " + s3.endpoint(),
        "s3-region: " + S3Server.REGION,
        "s3-path-style-access: true",
        "s3-access-key-id: " + s3.accessKeyId(),
        "s3-secret-access-key: " + s3.secretAccessKey(),
        "properties:",
        "  jdbc.user: " + postgres.user(),
        "  jdbc.password: " + postgres.password());
  }

  @Test
  void syncKeeperVerifySqlAndEveryMaintenanceCommandWorkOnAnS3Warehouse(
      MariaDbServer mariadb, PostgresServer postgres) throws Exception {
    try (S3Server s3 = S3Server.start()) {
      s3.createBucket("lake");
      SharedCatalogFlow flow =
          new SharedCatalogFlow(
                  directory,
                  mariadb,
                  s3Catalog(postgres, postgres.createDatabase("s3"), s3, "lake"))
              // a commit on s3proxy takes 1-3 s here: a sync committing every second would win
              // every race against the keeper's commits (measured: 4 lost in a row, then backoff)
              .checkpointEvery(5)
              .withYaml("sync:\n  state-dir: s3://lake/floe-state\n");

      SharedCatalogFlow.History history = flow.run();

      assertThat(history.optimizeSnapshots()).isPositive();
      assertThat(history.syncSnapshotsAfterAnOptimize()).isPositive();
      String orders = flow.database() + ".orders";
      Path tableOnDisk =
          s3.dataDirectory().resolve("lake/warehouse/" + flow.database() + "/orders");
      try (FloeCatalog catalog = flow.openCatalog()) {
        Table table = catalog.catalog().loadTable(TableIdentifier.parse(orders));
        assertThat(table.location())
            .isEqualTo("s3://lake/warehouse/" + flow.database() + "/orders");
        assertThat(table.io().getClass().getName()).isEqualTo("org.apache.iceberg.aws.s3.S3FileIO");
      }
      assertThat(dataFiles(tableOnDisk)).as("data files in the bucket").isNotEmpty();

      // The sync's state is in the bucket (through Hadoop's S3A, with the catalog's S3
      // settings): the snapshot state, checkpoints, and the savepoint its stop took; nothing of it
      // on local disk. The same sync resumes from that savepoint, found in the bucket.
      Path syncState = s3.dataDirectory().resolve("lake/floe-state/shared");
      assertThat(syncState.resolve("snapshot.properties")).exists();
      assertThat(relativeFiles(syncState))
          .anyMatch(file -> file.matches("checkpoints/[0-9a-f]+/chk-\\d+/_metadata"))
          .anyMatch(file -> file.matches("savepoints/savepoint-[^/]+/_metadata"));
      assertThat(directory.resolve("sync-data/sync")).doesNotExist();
      String resumed = flow.resumeSync();
      assertThat(resumed)
          .contains(" (resumed from s3://lake/floe-state/shared/savepoints/savepoint-")
          .doesNotContain(s3.secretAccessKey());
      flow.assertLakeEqualsMySql();

      // An orphan in the table's location, older than the default minimum age (3 days).
      Path orphan = tableOnDisk.resolve("data/orphan-from-a-failed-writer.parquet");
      Files.writeString(orphan, "not referenced by any snapshot");
      Files.setLastModifiedTime(orphan, FileTime.from(Instant.now().minus(Duration.ofDays(10))));
      String orphanUri =
          "s3://lake/warehouse/"
              + flow.database()
              + "/orders/data/orphan-from-a-failed-writer.parquet";

      CliRun listed = floe(flow, "clean-orphans", orders, "--dry-run");
      assertThat(listed.exitCode()).as(listed.out() + listed.err()).isZero();
      assertThat(listed.out()).contains(orphanUri);
      assertThat(orphan).exists();
      CliRun cleaned = floe(flow, "clean-orphans", orders);
      assertThat(cleaned.exitCode()).as(cleaned.out() + cleaned.err()).isZero();
      assertThat(orphan).doesNotExist();

      for (List<String> command :
          List.of(
              List.of("optimize", orders),
              List.of("expire", orders),
              List.of("clean-metadata", orders),
              List.of("remove-dangling-deletes", orders),
              List.of("check-history", orders))) {
        CliRun run = floe(flow, command.toArray(String[]::new));
        assertThat(run.exitCode()).as("%s: %s%s", command, run.out(), run.err()).isZero();
        assertThat(run.out() + run.err()).doesNotContain(s3.secretAccessKey());
      }
      flow.assertLakeEqualsMySql();
      flow.assertVerifyEqual();

      CliRun config = floe(flow, "config");
      assertThat(config.exitCode()).as(config.err()).isZero();
      assertThat(config.out())
          .contains("s3.endpoint: " + s3.endpoint())
          .contains("s3.access-key-id: ******")
          .contains("s3.secret-access-key: ******")
          .doesNotContain(s3.secretAccessKey())
          .doesNotContain(s3.accessKeyId());
      for (String log :
          List.of("serve.log", "sync.log", "sync-resumed.log", "sync-data/logs/floe.log")) {
        assertThat(Files.readString(directory.resolve(log)))
            .as("%s never shows the S3 secret, nor log4j 1's warnings", log)
            .doesNotContain(s3.secretAccessKey())
            .doesNotContain("log4j:WARN");
      }
    }
  }

  @Test
  void anUnreachableEndpointRefusedCredentialsOrAMissingBucketStopEveryCommandBeforeItStarts(
      MariaDbServer mariadb, PostgresServer postgres) throws Exception {
    try (S3Server s3 = S3Server.start()) {
      s3.createBucket("lake");
      String database = postgres.createDatabase("s3bad");
      String good = s3Catalog(postgres, database, s3, "lake");
      String source = mariadb.createDatabase("s3bad");
      mariadb.execute("CREATE TABLE `" + source + "`.t (id INT PRIMARY KEY)");

      CliRun unreachable =
          run(good.replace(s3.endpoint(), "http://127.0.0.1:1"), "optimize", "shop.orders");
      assertStopped(unreachable, s3);
      assertThat(unreachable.err())
          .contains(
              "Cannot reach S3 at http://127.0.0.1:1 for the warehouse s3://lake/warehouse of"
                  + " catalog 'lake': ")
          .contains("Check catalog.s3-endpoint in floe.yaml and that the endpoint is reachable.");

      String wrongSecret = "wrong-" + s3.secretAccessKey().substring(6);
      CliRun refused =
          run(
              good.replace(s3.secretAccessKey(), wrongSecret),
              "sync",
              "--source",
              mariadb.sourceUrl("root", "", ""),
              "--tables",
              source + "\\..*");
      assertStopped(refused, s3);
      assertThat(refused.err())
          .contains(
              "S3 refused the credentials for the warehouse s3://lake/warehouse of catalog 'lake'"
                  + " at "
                  + s3.endpoint()
                  + " (SignatureDoesNotMatch). Check"
                  + " catalog.s3-access-key-id and catalog.s3-secret-access-key in floe.yaml")
          .doesNotContain(wrongSecret);
      assertThat(refused.out()).doesNotContain("Syncing");
      assertThat(directory.resolve("data/sync")).doesNotExist();

      CliRun unknownKey = run(good.replace(s3.accessKeyId(), "FLOEUNKNOWNKEY000000"), "serve");
      assertStopped(unknownKey, s3);
      assertThat(unknownKey.err())
          .contains("S3 refused the credentials")
          .contains("(InvalidAccessKeyId)");
      assertThat(unknownKey.out()).doesNotContain("Keeper serving");

      CliRun missing =
          run(good.replace("s3://lake/", "s3://no-such-bucket/"), "check-history", "shop.orders");
      assertStopped(missing, s3);
      assertThat(missing.err())
          .contains(
              "The bucket 'no-such-bucket' of the warehouse s3://no-such-bucket/warehouse of"
                  + " catalog 'lake' at "
                  + s3.endpoint()
                  + " does not exist. Create it, or fix"
                  + " catalog.warehouse in floe.yaml.");

      // Nothing was written: no table in the catalog, no object in the bucket.
      try (java.sql.Connection connection =
              java.sql.DriverManager.getConnection(
                  postgres.jdbcUrl(database), postgres.user(), postgres.password());
          java.sql.ResultSet tables =
              connection.getMetaData().getTables(null, null, "iceberg_tables", null)) {
        assertThat(tables.next()).as("the catalog was never even initialised").isFalse();
      }
      try (Stream<Path> objects = Files.walk(s3.dataDirectory().resolve("lake"))) {
        assertThat(objects.filter(Files::isRegularFile)).isEmpty();
      }
    }
  }

  private static void assertStopped(CliRun run, S3Server s3) {
    assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(2);
    assertThat(run.out() + run.err())
        .doesNotContain(s3.secretAccessKey())
        .doesNotContain(s3.accessKeyId())
        .doesNotContain("\tat ");
  }

  private CliRun run(String catalogYaml, String... command) throws Exception {
    Path config = directory.resolve("floe.yaml");
    StringBuilder yaml = new StringBuilder("catalog:\n");
    catalogYaml.lines().forEach(line -> yaml.append("  ").append(line).append('\n'));
    Files.writeString(config, yaml);
    String[] args = new String[command.length + 4];
    args[0] = "--config";
    args[1] = config.toString();
    args[2] = "--data-dir";
    args[3] = directory.resolve("data").toString();
    System.arraycopy(command, 0, args, 4, command.length);
    return CliRun.run(directory, args);
  }

  private CliRun floe(SharedCatalogFlow flow, String... command) {
    String[] args = new String[command.length + 4];
    args[0] = "--config";
    args[1] = flow.config().toString();
    args[2] = "--data-dir";
    args[3] = directory.resolve("cli-data").toString();
    System.arraycopy(command, 0, args, 4, command.length);
    return CliRun.run(directory, args);
  }

  private static List<Path> dataFiles(Path table) throws Exception {
    try (Stream<Path> files = Files.walk(table.resolve("data"))) {
      return files.filter(file -> file.toString().endsWith(".parquet")).toList();
    }
  }

  /** The files below {@code directory}, as paths relative to it with '/' between names. */
  private static List<String> relativeFiles(Path directory) throws Exception {
    try (Stream<Path> files = Files.walk(directory)) {
      return files
          .filter(Files::isRegularFile)
          .map(file -> directory.relativize(file).toString().replace('\\', '/'))
          .toList();
    }
  }
}

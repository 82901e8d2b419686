package dev.floe.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.iceberg.FloeCatalog;
import dev.floe.testing.HdfsServer;
import dev.floe.testing.MariaDbExtension;
import dev.floe.testing.MariaDbServer;
import dev.floe.testing.PostgresExtension;
import dev.floe.testing.PostgresServer;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The warehouse and the sync's state on HDFS (the harness's MiniDFSCluster), with the catalog on
 * PostgreSQL: the whole flow ({@link SharedCatalogFlow}: floe serve keeping the lake, floe sync
 * with live changes, verify, sql) with the sync's checkpoints and savepoints on HDFS
 * (sync.state-dir), the same sync resumed from its savepoint there and equal again, then every
 * maintenance command, orphan listing included, on the same lake. Hadoop client settings come from
 * catalog.hadoop.
 */
@ExtendWith({MariaDbExtension.class, PostgresExtension.class})
class HdfsWarehouseITCase {

  @TempDir Path directory;

  static String hdfsCatalog(PostgresServer postgres, String database, String warehouse) {
    return String.join(
        "\n",
        "type: jdbc",
        "name: lake",
        "uri: " + postgres.jdbcUrl(database),
        "warehouse: " + warehouse,
        "hadoop:",
        // one DataNode: one replica, so the NameNode has nothing to re-replicate
        "  dfs.replication: '1'",
        // A file's close waits until the NameNode has heard of its last block from the DataNode,
        // retrying after 400 ms by default: most of a small file's write time here (measured:
        // ~450 ms for 4 closes in 10, ~40 ms with 20 ms), several times per commit.
        "  dfs.client.block.write.locateFollowingBlock.initial.delay.ms: '20'",
        "properties:",
        "  jdbc.user: " + postgres.user(),
        "  jdbc.password: " + postgres.password());
  }

  /** About 3 minutes on a quiet machine (6 on a busy one): tagged slow, see README. */
  @Test
  @Tag("slow")
  void syncResumeKeeperVerifySqlAndEveryMaintenanceCommandWorkWithTheWarehouseAndStateOnHdfs(
      MariaDbServer mariadb, PostgresServer postgres) throws Exception {
    try (HdfsServer hdfs = HdfsServer.start()) {
      String stateDirectory = hdfs.uri("/floe/sync");
      SharedCatalogFlow flow =
          new SharedCatalogFlow(
                  directory,
                  mariadb,
                  hdfsCatalog(
                      postgres, postgres.createDatabase("hdfs"), hdfs.uri("/lake/warehouse")))
              .withYaml("sync:\n  state-dir: " + stateDirectory + "\n");

      SharedCatalogFlow.History history = flow.run();

      assertThat(history.optimizeSnapshots()).isPositive();
      assertThat(history.syncSnapshotsAfterAnOptimize()).isPositive();
      String orders = flow.database() + ".orders";
      String tableLocation = hdfs.uri("/lake/warehouse/" + flow.database() + "/orders");
      try (FloeCatalog catalog = flow.openCatalog()) {
        Table table = catalog.catalog().loadTable(TableIdentifier.parse(orders));
        assertThat(table.location()).isEqualTo(tableLocation);
        assertThat(table.io().getClass().getName())
            .isEqualTo("org.apache.iceberg.hadoop.HadoopFileIO");
      }
      Configuration configuration = new Configuration();
      configuration.setBoolean("fs.hdfs.impl.disable.cache", true);
      try (FileSystem client = FileSystem.get(URI.create(hdfs.uri()), configuration)) {
        List<String> dataFiles = files(client, tableLocation + "/data");
        assertThat(dataFiles).as("data files on HDFS").anyMatch(file -> file.endsWith(".parquet"));
        assertThat(
                client
                    .getFileStatus(new org.apache.hadoop.fs.Path(dataFiles.get(0)))
                    .getReplication())
            .as("catalog.hadoop's dfs.replication reached the writers")
            .isEqualTo((short) 1);

        // The sync's state is on HDFS: the snapshot state, checkpoints, and the savepoint its stop
        // took; nothing of it on local disk.
        String syncState = stateDirectory + "/shared";
        List<String> state = files(client, syncState);
        assertThat(state).contains(syncState + "/snapshot.properties");
        assertThat(state)
            .anyMatch(file -> file.matches(".*/checkpoints/[0-9a-f]+/chk-\\d+/_metadata"));
        assertThat(state).anyMatch(file -> file.matches(".*/savepoints/savepoint-[^/]+/_metadata"));
        assertThat(directory.resolve("sync-data/sync")).doesNotExist();

        // The same sync resumes from that savepoint, found on HDFS, and catches up again.
        String resumed = flow.resumeSync();
        assertThat(resumed).contains(" (resumed from " + syncState + "/savepoints/savepoint-");
        flow.assertLakeEqualsMySql();
        for (String table : List.of("customers", "products", "orders")) {
          flow.assertVerifyEqual(table);
        }

        // An orphan in the table's location, older than the default minimum age (3 days).
        org.apache.hadoop.fs.Path orphan =
            new org.apache.hadoop.fs.Path(
                tableLocation + "/data/orphan-from-a-failed-writer.parquet");
        try (OutputStream out = client.create(orphan)) {
          out.write("not referenced by any snapshot".getBytes(StandardCharsets.UTF_8));
        }
        client.setTimes(orphan, Instant.now().minus(Duration.ofDays(10)).toEpochMilli(), -1);

        CliRun listed = floe(flow, "clean-orphans", orders, "--dry-run");
        assertThat(listed.exitCode()).as(listed.out() + listed.err()).isZero();
        assertThat(listed.out()).contains(orphan.toString());
        assertThat(client.exists(orphan)).isTrue();
        CliRun cleaned = floe(flow, "clean-orphans", orders);
        assertThat(cleaned.exitCode()).as(cleaned.out() + cleaned.err()).isZero();
        assertThat(client.exists(orphan)).isFalse();
      }

      for (List<String> command :
          List.of(
              List.of("optimize", orders),
              List.of("expire", orders),
              List.of("clean-metadata", orders),
              List.of("remove-dangling-deletes", orders),
              List.of("check-history", orders))) {
        CliRun run = floe(flow, command.toArray(String[]::new));
        assertThat(run.exitCode()).as("%s: %s%s", command, run.out(), run.err()).isZero();
      }
      flow.assertLakeEqualsMySql();
      flow.assertVerifyEqual();

      CliRun config = floe(flow, "config");
      assertThat(config.exitCode()).as(config.err()).isZero();
      assertThat(config.out()).contains("hadoop.dfs.replication: 1");
    }
  }

  @Test
  void aNameNodeThatDoesNotAnswerOrAStateDirOnAnotherObjectStoreStopsTheCommandBeforeItStarts(
      MariaDbServer mariadb, PostgresServer postgres) throws Exception {
    String database = postgres.createDatabase("hdfsbad");
    String source = mariadb.createDatabase("hdfsbad");
    mariadb.execute("CREATE TABLE `" + source + "`.t (id INT PRIMARY KEY)");
    String nowhere = "hdfs://127.0.0.1:1";

    CliRun warehouse =
        run(hdfsCatalog(postgres, database, nowhere + "/lake"), "", "optimize", "shop.orders");
    assertStopped(warehouse);
    assertThat(warehouse.err())
        .contains(
            "Cannot reach HDFS at hdfs://127.0.0.1:1 for the warehouse hdfs://127.0.0.1:1/lake of"
                + " catalog 'lake': ")
        .contains(
            "Check catalog.warehouse and catalog.hadoop in floe.yaml and that the NameNode runs"
                + " and is reachable from this machine.")
        .doesNotContain(postgres.password());

    String localWarehouse = directory.resolve("warehouse").toUri().toString();
    String[] sync = {
      "sync", "--source", mariadb.sourceUrl("root", "", ""), "--tables", source + "\\..*"
    };
    CliRun state =
        run(
            hdfsCatalog(postgres, database, localWarehouse),
            "sync:\n  state-dir: " + nowhere + "/floe/sync\n",
            sync);
    assertStopped(state);
    assertThat(state.err())
        .contains(
            "Cannot reach the sync's state directory hdfs://127.0.0.1:1/floe/sync/"
                + "mysql-127.0.0.1-"
                + mariadb.port()
                + " (sync.state-dir): ")
        .contains(
            "Check sync.state-dir in floe.yaml and that its file system (the NameNode) runs and"
                + " is reachable from this machine. Nothing was changed.");
    assertThat(state.out()).doesNotContain("Syncing");

    CliRun gcs =
        run(
            hdfsCatalog(postgres, database, localWarehouse),
            "sync:\n  state-dir: gs://lake/floe-state\n",
            sync);
    assertStopped(gcs);
    assertThat(gcs.err())
        .contains(
            "sync.state-dir 'gs://lake/floe-state' is on an object store (gs://), where Floe"
                + " cannot keep a sync's checkpoints")
        .contains("Put the state on S3 (s3://BUCKET/PATH), on HDFS");

    // Nothing was written: no table, no local state.
    try (FloeCatalog catalog =
        new dev.floe.iceberg.CatalogFactory()
            .open(
                new dev.floe.config.ConfigLoader(java.util.Map.of())
                    .load(directory.resolve("floe.yaml"), java.util.Optional.empty(), directory)
                    .catalog(),
                directory.resolve("reader"))) {
      assertThat(catalog.catalog().tableExists(TableIdentifier.of(Namespace.of(source), "t")))
          .isFalse();
    }
    assertThat(directory.resolve("data/sync")).doesNotExist();
    assertThat(directory.resolve("warehouse/" + source)).doesNotExist();
  }

  private static void assertStopped(CliRun run) {
    assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(2);
    assertThat(run.out() + run.err()).doesNotContain("\tat ");
  }

  private CliRun run(String catalogYaml, String moreYaml, String... command) throws Exception {
    Path config = directory.resolve("floe.yaml");
    StringBuilder yaml = new StringBuilder("catalog:\n");
    catalogYaml.lines().forEach(line -> yaml.append("  ").append(line).append('\n'));
    yaml.append(moreYaml);
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

  /** Every file below a location, as full URIs. */
  private static List<String> files(FileSystem client, String location) throws Exception {
    List<String> files = new ArrayList<>();
    RemoteIterator<LocatedFileStatus> listing =
        client.listFiles(new org.apache.hadoop.fs.Path(location), true);
    while (listing.hasNext()) {
      files.add(listing.next().getPath().toString());
    }
    return files;
  }
}

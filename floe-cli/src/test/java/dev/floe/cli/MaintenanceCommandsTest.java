package dev.floe.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.core.config.CatalogSettings;
import dev.floe.iceberg.CatalogFactory;
import dev.floe.iceberg.FloeCatalog;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericAppenderFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MaintenanceCommandsTest {

  private static final TableIdentifier ORDERS = TableIdentifier.parse("shop.orders");
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "name", Types.StringType.get()));

  @TempDir Path directory;

  private Path data() {
    return directory.resolve("data");
  }

  private FloeCatalog open() {
    return new CatalogFactory().open(CatalogSettings.embedded(), data());
  }

  private static Table create(FloeCatalog catalog) {
    ((SupportsNamespaces) catalog.catalog()).createNamespace(Namespace.of("shop"));
    return catalog
        .catalog()
        .createTable(
            ORDERS,
            SCHEMA,
            PartitionSpec.unpartitioned(),
            Map.of(TableProperties.FORMAT_VERSION, "2"));
  }

  private static DataFile write(Table table, long... ids) {
    String location = table.locationProvider().newDataLocation(UUID.randomUUID() + ".parquet");
    DataWriter<Record> writer =
        new GenericAppenderFactory(table.schema(), table.spec())
            .newDataWriter(
                table.encryption().encrypt(table.io().newOutputFile(location)),
                FileFormat.PARQUET,
                null);
    try (writer) {
      for (long id : ids) {
        Record record = GenericRecord.create(SCHEMA);
        record.setField("id", id);
        record.setField("name", "n" + id);
        writer.write(record);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return writer.toDataFile();
  }

  private static void append(Table table, long... ids) {
    table.newAppend().appendFile(write(table, ids)).commit();
  }

  private static Path local(String location) {
    return Path.of(java.net.URI.create(location.replaceFirst("^file:/+", "file:///")));
  }

  private static void ageAll(Path root) throws IOException {
    FileTime old = FileTime.from(Instant.now().minus(Duration.ofDays(10)));
    try (var files = Files.walk(root)) {
      for (Path file : files.filter(Files::isRegularFile).toList()) {
        Files.setLastModifiedTime(file, old);
      }
    }
  }

  @Test
  void checkHistoryReportsTheSnapshotLostToStaleMetadataAcrossTwoRuns() {
    long lost;
    try (FloeCatalog writer = open();
        FloeCatalog hook = open()) {
      Table table = create(writer);
      append(table, 1, 2);
      // The hook caches the table's metadata...
      TableMetadata cached =
          ((HasTableOperations) hook.catalog().loadTable(ORDERS)).operations().current();
      // ...the writer commits...
      append(table, 3, 4, 5);
      lost = table.currentSnapshot().snapshotId();

      CliRun first = CliRun.run(directory, "--data-dir", "data", "check-history", "shop.orders");
      assertThat(first.exitCode()).as(first.err()).isZero();
      assertThat(first.out())
          .startsWith(
              "Table shop.orders: first observation (current snapshot "
                  + lost
                  + ", 2 snapshot(s) in its history); recorded in ")
          .contains("state/history/floe/shop.orders.history");

      // ...and the hook writes its stale copy back through the catalog.
      TableOperations operations =
          ((HasTableOperations) hook.catalog().loadTable(ORDERS)).operations();
      operations.commit(
          operations.current(),
          TableMetadata.buildFrom(cached).setProperties(Map.of("hook.synced", "true")).build());
    }

    CliRun second = CliRun.run(directory, "--data-dir", "data", "check-history", "shop.orders");
    CliRun third = CliRun.run(directory, "--data-dir", "data", "check-history", "shop.orders");

    assertThat(second.exitCode()).as(second.err()).isEqualTo(1);
    assertThat(second.out())
        .contains(
            "Table shop.orders: REWOUND: the table's history was rewound: the previous current"
                + " snapshot "
                + lost
                + " is no longer an ancestor of the current snapshot")
        .contains("Lost snapshots (newest first):\n  " + lost + " committed 20")
        .contains(", 3 records added, 5 records in the table");
    assertThat(third.exitCode()).isZero();
    assertThat(third.out()).contains("history intact: the current snapshot is unchanged");
  }

  @Test
  void expireDryRunShowsWhatGoesAndChangesNothing() {
    String replaced;
    try (FloeCatalog catalog = open()) {
      Table table = create(catalog);
      DataFile first = write(table, 1);
      table.newAppend().appendFile(first).commit();
      replaced = first.location();
      table.newRewrite().deleteFile(first).addFile(write(table, 1)).commit();
      append(table, 2);
    }

    CliRun dryRun =
        CliRun.run(
            directory,
            "--data-dir",
            "data",
            "expire",
            "shop.orders",
            "--dry-run",
            "--older-than",
            "0s",
            "--retain-last",
            "1");
    assertThat(dryRun.exitCode()).as(dryRun.err()).isZero();
    assertThat(dryRun.out())
        .startsWith(
            "Table shop.orders: expire snapshots (dry run: nothing changed)\nSnapshots to expire: 2\n")
        .contains(replaced + " (")
        .containsPattern("Files to delete: \\d+ \\(\\d+ bytes\\)");
    assertThat(local(replaced)).exists();

    CliRun run =
        CliRun.run(
            directory,
            "--data-dir",
            "data",
            "expire",
            "shop.orders",
            "--older-than",
            "0s",
            "--retain-last",
            "1");
    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out())
        .containsPattern("Done: committed; deleted \\d+ file\\(s\\) \\(\\d+ bytes\\)\\.");
    assertThat(local(replaced)).doesNotExist();
    try (FloeCatalog catalog = open()) {
      assertThat(catalog.catalog().loadTable(ORDERS).snapshots()).hasSize(1);
    }
  }

  @Test
  void cleanOrphansDryRunThenRun() throws IOException {
    Path stray;
    try (FloeCatalog catalog = open()) {
      Table table = create(catalog);
      append(table, 1);
      stray = local(table.location()).resolve("data/stray.parquet");
      Files.write(stray, new byte[321]);
      ageAll(local(table.location()));
    }

    CliRun dryRun =
        CliRun.run(directory, "--data-dir", "data", "clean-orphans", "shop.orders", "--dry-run");
    assertThat(dryRun.exitCode()).as(dryRun.err()).isZero();
    assertThat(dryRun.out())
        .isEqualTo(
            "Table shop.orders: remove orphan files (dry run: nothing changed)\n"
                + "Files to delete: 1 (321 bytes)\n"
                + "  file:"
                + stray
                + " (321 bytes)\n");
    assertThat(stray).exists();

    CliRun run = CliRun.run(directory, "--data-dir", "data", "clean-orphans", "shop.orders");
    assertThat(run.exitCode()).as(run.err()).isZero();
    // The preview it commits, then what the commit did.
    assertThat(run.out())
        .isEqualTo(
            "Table shop.orders: remove orphan files\n"
                + "Files planned: 1 (321 bytes)\n"
                + "  file:"
                + stray
                + " (321 bytes)\n"
                + "Done: deleted 1 file(s) (321 bytes).\n");
    assertThat(stray).doesNotExist();
    try (FloeCatalog catalog = open()) {
      Table table = catalog.catalog().loadTable(ORDERS);
      assertThat(table.currentSnapshot().allManifests(table.io())).isNotEmpty();
    }
  }

  @Test
  void cleanMetadataDryRunListsOldMetadataFiles() throws IOException {
    try (FloeCatalog catalog = open()) {
      Table table = create(catalog);
      for (int i = 0; i < 4; i++) {
        append(table, i);
      }
      ageAll(local(table.location()));
    }

    CliRun dryRun =
        CliRun.run(
            directory,
            "--data-dir",
            "data",
            "clean-metadata",
            "shop.orders",
            "--dry-run",
            "--retain-versions",
            "1");

    assertThat(dryRun.exitCode()).as(dryRun.err()).isZero();
    assertThat(dryRun.out())
        .startsWith(
            "Table shop.orders: clean metadata files (dry run: nothing changed)\nFiles to delete: 3 (")
        .contains("00000-")
        .contains(".metadata.json");
  }

  @Test
  void anUnsafeOrphanAgeFromTheTablePropertyNeedsForce() throws IOException {
    Path stray;
    try (FloeCatalog catalog = open()) {
      Table table = create(catalog);
      append(table, 1);
      table.updateProperties().set("floe.orphan.min-age", "10m").commit();
      stray = local(table.location()).resolve("data/stray.parquet");
      Files.write(stray, new byte[1]);
      ageAll(local(table.location()));
    }

    CliRun refused = CliRun.run(directory, "--data-dir", "data", "clean-orphans", "shop.orders");
    assertThat(refused.exitCode()).isEqualTo(2);
    assertThat(refused.err())
        .isEqualTo(
            "Error: Table shop.orders: floe.orphan.min-age is 10m, below the safe minimum of 1h:"
                + " files a writer has written but not yet committed would be deleted. Nothing"
                + " was changed. Use 1h or more, or add --force if no writer can be running.\n");
    assertThat(stray).exists();

    CliRun forced =
        CliRun.run(directory, "--data-dir", "data", "clean-metadata", "shop.orders", "--force");
    assertThat(forced.exitCode()).as(forced.err()).isZero();
    CliRun forcedOrphans =
        CliRun.run(directory, "--data-dir", "data", "clean-orphans", "shop.orders", "--force");
    assertThat(forcedOrphans.exitCode()).as(forcedOrphans.err()).isZero();
    assertThat(forcedOrphans.out()).endsWith("Done: deleted 1 file(s) (1 bytes).\n");
    assertThat(stray).doesNotExist();
  }

  @Test
  void refusalsChangeNothingAndSayWhy() throws IOException {
    Path stray;
    try (FloeCatalog catalog = open()) {
      Table table = create(catalog);
      append(table, 1);
      stray = local(table.location()).resolve("data/stray.parquet");
      Files.write(stray, new byte[1]);
      ageAll(local(table.location()));
    }

    CliRun unknown = CliRun.run(directory, "--data-dir", "data", "clean-orphans", "shop.nope");
    CliRun tooYoung =
        CliRun.run(
            directory, "--data-dir", "data", "clean-orphans", "shop.orders", "--older-than", "5m");
    CliRun badDuration =
        CliRun.run(
            directory, "--data-dir", "data", "expire", "shop.orders", "--older-than", "soon");

    assertThat(unknown.exitCode()).isEqualTo(2);
    assertThat(unknown.err())
        .isEqualTo(
            "Error: Table shop.nope does not exist in catalog 'floe'. Nothing was changed. Check the"
                + " name (NAMESPACE.TABLE) and the catalog settings.\n");
    assertThat(tooYoung.exitCode()).isEqualTo(2);
    assertThat(tooYoung.err())
        .isEqualTo(
            "Error: Table shop.orders: --older-than is 5m, below the safe minimum of 1h: files a"
                + " writer has written but not yet committed would be deleted. Nothing was"
                + " changed. Use 1h or more, or add --force if no writer can be running.\n");
    assertThat(badDuration.exitCode()).isEqualTo(2);
    assertThat(badDuration.err())
        .isEqualTo(
            "Error: --older-than must be a duration such as 30m, 12h or 3d, got 'soon'. Nothing"
                + " was changed.\n");
    assertThat(stray).exists();

    try (FloeCatalog catalog = open()) {
      catalog.catalog().loadTable(ORDERS).updateProperties().set("gc.enabled", "false").commit();
    }
    for (String command : List.of("expire", "clean-orphans", "clean-metadata")) {
      CliRun refused = CliRun.run(directory, "--data-dir", "data", command, "shop.orders");
      assertThat(refused.exitCode()).as(command).isEqualTo(2);
      assertThat(refused.err())
          .as(command)
          .startsWith("Error: Table shop.orders has gc.enabled=false");
    }
    assertThat(stray).exists();
  }
}

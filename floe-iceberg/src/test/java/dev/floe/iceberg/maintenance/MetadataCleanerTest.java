package dev.floe.iceberg.maintenance;

import static dev.floe.iceberg.maintenance.LakeTables.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.floe.core.maintenance.FileToDelete;
import dev.floe.core.maintenance.MaintenancePolicy;
import dev.floe.iceberg.FloeCatalog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MetadataCleanerTest {

  @TempDir Path dataDirectory;

  private FloeCatalog catalog;
  private final Instant now = Instant.now();

  @BeforeEach
  void open() {
    catalog = LakeTables.open(dataDirectory);
  }

  @AfterEach
  void close() {
    catalog.close();
  }

  private static long metadataJsonFiles(Table table) throws Exception {
    try (Stream<Path> files = Files.list(LakeTables.tableDirectory(table).resolve("metadata"))) {
      return files.filter(file -> file.toString().endsWith(".metadata.json")).count();
    }
  }

  @Test
  void removesMetadataFilesBeyondTheRetainedVersionsAndUnreachableManifests() throws Exception {
    Table table = LakeTables.create(catalog, "shop.orders", false);
    table.updateProperties().set("write.metadata.previous-versions-max", "3").commit();
    for (int i = 0; i < 6; i++) {
      LakeTables.append(table, List.of(row(i, "r" + i, 1)));
    }
    new SnapshotExpirer()
        .previewAndCommit(
            "shop.orders",
            table,
            MaintenancePolicy.defaults().withMinSnapshots(2),
            now.plus(Duration.ofDays(2)));
    Path manifestLeftOver = LakeTables.tableDirectory(table).resolve("metadata/left-over-m0.avro");
    Files.writeString(manifestLeftOver, "avro");
    LakeTables.ageAll(LakeTables.tableDirectory(table), now.minus(Duration.ofDays(10)));
    table.refresh();
    assertThat(metadataJsonFiles(table)).isGreaterThan(5);
    MaintenancePolicy policy =
        MaintenancePolicy.fromProperties("shop.orders", table.properties())
            .withRetainedMetadataVersions(1);

    MaintenanceOutcome outcome =
        new MetadataCleaner().previewAndCommit("shop.orders", table, policy, now);

    assertThat(outcome.preview().filesToDelete())
        .extracting(FileToDelete::location)
        .anyMatch(location -> location.endsWith("left-over-m0.avro"));
    // current + 1 retained previous version
    assertThat(metadataJsonFiles(table)).isEqualTo(2);
    assertThat(manifestLeftOver).doesNotExist();
    Table reloaded = catalog.catalog().loadTable(TableIdentifier.parse("shop.orders"));
    assertThat(LakeTables.rows(reloaded)).hasSize(6);
    LakeTables.assertEveryReferencedFileExists(reloaded);
  }

  @Test
  void gcDisabledBetweenPreviewAndCommitDeletesNothing() throws Exception {
    Table table = LakeTables.create(catalog, "shop.orders", false);
    for (int i = 0; i < 4; i++) {
      LakeTables.append(table, List.of(row(i, "r" + i, 1)));
    }
    LakeTables.ageAll(LakeTables.tableDirectory(table), now.minus(Duration.ofDays(10)));
    MetadataCleaner cleaner = new MetadataCleaner();
    MetadataCleaner.Preview preview =
        cleaner.preview(
            "shop.orders",
            table,
            MaintenancePolicy.defaults().withRetainedMetadataVersions(0),
            now);
    table.updateProperties().set("gc.enabled", "false").commit();
    long before = metadataJsonFiles(table);

    assertThatThrownBy(() -> cleaner.commit(table, preview))
        .hasMessage(
            "Table shop.orders has gc.enabled=false: its files may be shared with another table,"
                + " so Floe will not clean metadata files. Nothing was changed. If the table owns"
                + " all its files, set the table property gc.enabled=true.");
    assertThat(preview.preview().filesToDelete()).isNotEmpty();
    assertThat(metadataJsonFiles(table)).isEqualTo(before);
  }

  @Test
  void youngMetadataFilesStay() throws Exception {
    Table table = LakeTables.create(catalog, "shop.orders", false);
    table.updateProperties().set("write.metadata.previous-versions-max", "1").commit();
    for (int i = 0; i < 3; i++) {
      LakeTables.append(table, List.of(row(i, "r" + i, 1)));
    }
    long before = metadataJsonFiles(table);

    MaintenanceOutcome outcome =
        new MetadataCleaner()
            .previewAndCommit(
                "shop.orders",
                table,
                MaintenancePolicy.fromProperties("shop.orders", table.properties()),
                now);

    assertThat(outcome.deletedFiles()).isZero();
    assertThat(outcome.preview().filesKept()).isPositive();
    assertThat(metadataJsonFiles(table)).isEqualTo(before);
  }
}

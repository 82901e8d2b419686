package dev.floe.iceberg.maintenance;

import static dev.floe.iceberg.maintenance.LakeTables.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.floe.core.error.FloeException;
import dev.floe.core.maintenance.FileToDelete;
import dev.floe.core.maintenance.MaintenancePolicy;
import dev.floe.iceberg.FloeCatalog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.GenericStatisticsFile;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OrphanFileCleanerTest {

  @TempDir Path dataDirectory;

  private FloeCatalog catalog;
  private final OrphanFileCleaner cleaner = new OrphanFileCleaner();
  private final Instant now = Instant.now();
  private final Instant longAgo = now.minus(Duration.ofDays(10));

  @BeforeEach
  void open() {
    catalog = LakeTables.open(dataDirectory);
  }

  @AfterEach
  void close() {
    catalog.close();
  }

  @Test
  void deletesOldOrphansAndKeepsLiveFilesAndYoungUncommittedOnes() throws Exception {
    Table table = LakeTables.create(catalog, "shop.orders", true);
    LakeTables.append(table, List.of(row(1, "a", 1), row(2, "b", 2)));
    DataFile abandoned = LakeTables.write(table, List.of(row(8, "failed write", 1)));
    Path stray = LakeTables.tableDirectory(table).resolve("data/day=9/stray.parquet");
    Files.createDirectories(stray.getParent());
    Files.writeString(stray, "not iceberg");
    long straySize = Files.size(stray);
    // Every file, live ones included, looks ten days old: only references protect them.
    LakeTables.ageAll(LakeTables.tableDirectory(table), longAgo);
    DataFile inFlight = LakeTables.write(table, List.of(row(9, "uncommitted", 1)));
    MaintenancePolicy policy = MaintenancePolicy.defaults();

    OrphanFileCleaner.Preview preview = cleaner.preview("shop.orders", table, policy, now);
    MaintenanceOutcome outcome = cleaner.previewAndCommit("shop.orders", table, policy, now);

    assertThat(preview.preview().filesToDelete())
        .extracting(file -> FileLocationsForTest.path(file.location()))
        .containsExactlyInAnyOrder(
            FileLocationsForTest.path(abandoned.location()),
            FileLocationsForTest.path(stray.toString()));
    assertThat(preview.preview().bytesToDelete())
        .isEqualTo(abandoned.fileSizeInBytes() + straySize);
    assertThat(preview.preview().filesKept()).isEqualTo(1);
    assertThat(outcome.deletedFiles()).isEqualTo(2);
    assertThat(table.io().newInputFile(abandoned.location()).exists()).isFalse();
    assertThat(stray).doesNotExist();
    assertThat(table.io().newInputFile(inFlight.location()).exists()).isTrue();
    // The writer can still commit its files.
    table.newAppend().appendFile(inFlight).commit();
    assertThat(LakeTables.rows(table)).containsExactly("1:a:1", "2:b:2", "9:uncommitted:1");
    LakeTables.assertEveryReferencedFileExists(table);
  }

  @Test
  void aFileCommittedBetweenPreviewAndCommitIsNotDeleted() throws Exception {
    Table table = LakeTables.create(catalog, "shop.orders", false);
    LakeTables.append(table, List.of(row(1, "a", 1)));
    DataFile late = LakeTables.write(table, List.of(row(2, "late", 1)));
    Path stray = LakeTables.tableDirectory(table).resolve("data/stray.parquet");
    Files.writeString(stray, "not iceberg");
    LakeTables.ageAll(LakeTables.tableDirectory(table), longAgo);

    OrphanFileCleaner.Preview preview =
        cleaner.preview("shop.orders", table, MaintenancePolicy.defaults(), now);
    // A slow writer commits its old file after the preview.
    table.newAppend().appendFile(late).commit();
    MaintenanceOutcome outcome = cleaner.commit(table, preview);

    assertThat(preview.preview().filesToDelete()).hasSize(2);
    assertThat(outcome.deletedFiles()).isEqualTo(1);
    assertThat(outcome.stillReferenced())
        .extracting(FileLocationsForTest::path)
        .containsExactly(FileLocationsForTest.path(late.location()));
    assertThat(stray).doesNotExist();
    assertThat(LakeTables.rows(table)).containsExactly("1:a:1", "2:late:1");
    LakeTables.assertEveryReferencedFileExists(table);
  }

  @Test
  void filesOfExpiredButRetainedHistoryStatisticsAndOldMetadataStay() throws Exception {
    Table table = LakeTables.create(catalog, "shop.orders", false);
    LakeTables.append(table, List.of(row(1, "a", 1)));
    long first = table.currentSnapshot().snapshotId();
    table.manageSnapshots().createTag("first", first).commit();
    table
        .newDelete()
        .deleteFromRowFilter(org.apache.iceberg.expressions.Expressions.alwaysTrue())
        .commit();
    Path statistics =
        LakeTables.tableDirectory(table).resolve("metadata/stats-" + first + ".puffin");
    Files.writeString(statistics, "puffin");
    table
        .updateStatistics()
        .setStatistics(
            new GenericStatisticsFile(
                first, statistics.toUri().toString(), Files.size(statistics), 0, List.of()))
        .commit();
    LakeTables.ageAll(LakeTables.tableDirectory(table), longAgo);

    MaintenanceOutcome outcome =
        cleaner.previewAndCommit("shop.orders", table, MaintenancePolicy.defaults(), now);

    assertThat(outcome.preview().filesToDelete()).isEmpty();
    assertThat(statistics).exists();
    assertThat(LakeTables.rowsAt(table, first)).containsExactly("1:a:1");
    LakeTables.assertEveryReferencedFileExists(table);
  }

  @Test
  void anAgeBelowOneHourIsRefusedUnlessAccepted() {
    Table table = LakeTables.create(catalog, "shop.orders", false);
    MaintenancePolicy policy =
        MaintenancePolicy.defaults().withOrphanMinAge(Duration.ofMinutes(10));

    assertThatThrownBy(() -> cleaner.preview("shop.orders", table, policy, now))
        .isInstanceOf(FloeException.class)
        .hasMessage(
            "Table shop.orders: floe.orphan.min-age is 10m, below the safe minimum of 1h: files a"
                + " writer has written but not yet committed would be deleted. Nothing was"
                + " changed. Use 1h or more.");
    assertThat(
            cleaner
                .previewAndCommit("shop.orders", table, policy.acceptingUnsafeOrphanAge(), now)
                .deletedFiles())
        .isZero();
  }

  @Test
  void gcDisabledIsRefused() {
    Table table = LakeTables.create(catalog, "shop.orders", false);
    table.updateProperties().set("gc.enabled", "false").commit();

    assertThatThrownBy(
            () ->
                cleaner.previewAndCommit(
                    "shop.orders",
                    table,
                    MaintenancePolicy.fromProperties("shop.orders", table.properties()),
                    now))
        .hasMessage(
            "Table shop.orders has gc.enabled=false: its files may be shared with another table,"
                + " so Floe will not remove orphan files. Nothing was changed. If the table owns"
                + " all its files, set the table property gc.enabled=true.");
  }

  @Test
  void previewListsPathsAndSizes() throws Exception {
    Table table = LakeTables.create(catalog, "shop.orders", false);
    Path stray = LakeTables.tableDirectory(table).resolve("data/stray.bin");
    Files.createDirectories(stray.getParent());
    Files.write(stray, new byte[1234]);
    LakeTables.age(stray.toUri().toString(), longAgo);

    OrphanFileCleaner.Preview preview =
        cleaner.preview("shop.orders", table, MaintenancePolicy.defaults(), now);

    assertThat(preview.preview().filesToDelete())
        .extracting(FileToDelete::sizeBytes)
        .containsExactly(1234L);
    assertThat(stray).exists();
  }
}

package dev.floe.iceberg.maintenance;

import static dev.floe.iceberg.maintenance.LakeTables.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.floe.core.error.ErrorCategory;
import dev.floe.core.error.FloeException;
import dev.floe.core.maintenance.FileToDelete;
import dev.floe.core.state.SnapshotWriter;
import dev.floe.iceberg.FloeCatalog;
import java.nio.file.Path;
import java.util.List;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DanglingDeleteRemoverTest {

  @TempDir Path dataDirectory;

  private FloeCatalog catalog;

  @BeforeEach
  void open() {
    catalog = LakeTables.open(dataDirectory);
  }

  @AfterEach
  void close() {
    catalog.close();
  }

  @Test
  void deleteFilesWhoseDataWasRewrittenAreRemovedWithACommit() {
    Table table = LakeTables.create(catalog, "shop.orders", true);
    DataFile day1 = LakeTables.write(table, List.of(row(1, "a", 1), row(2, "b", 1)));
    DataFile day2 = LakeTables.write(table, List.of(row(3, "c", 2), row(4, "d", 2)));
    table.newAppend().appendFile(day1).appendFile(day2).commit();
    DeleteFile deletesDay1 = LakeTables.positionDeletes(table, day1, 0);
    DeleteFile deletesDay2 = LakeTables.positionDeletes(table, day2, 1);
    table.newRowDelta().addDeletes(deletesDay1).addDeletes(deletesDay2).commit();
    // Compaction of day 1 applies the delete: the delete file no longer applies to anything.
    DataFile compacted = LakeTables.write(table, List.of(row(2, "b", 1)));
    table
        .newRewrite()
        .validateFromSnapshot(table.currentSnapshot().snapshotId())
        .deleteFile(day1)
        .addFile(compacted)
        .commit();
    List<String> expected = LakeTables.rows(table);
    assertThat(expected).containsExactly("2:b:1", "3:c:2");

    DanglingDeleteRemover remover = new DanglingDeleteRemover();
    DanglingDeleteRemover.Preview preview = remover.preview("shop.orders", table);
    MaintenanceOutcome outcome = remover.commit(table, preview);

    assertThat(preview.preview().filesToDelete())
        .extracting(FileToDelete::location)
        .containsExactly(deletesDay1.location());
    assertThat(outcome.committed()).isTrue();
    table.refresh();
    assertThat(table.currentSnapshot().operation()).isEqualTo("replace");
    assertThat(SnapshotWriter.of(table.currentSnapshot().summary()))
        .isEqualTo(SnapshotWriter.MAINTENANCE);
    assertThat(table.currentSnapshot().summary())
        .containsEntry(SnapshotWriter.MAINTENANCE_ACTION, "remove-dangling-deletes");
    assertThat(remover.preview("shop.orders", table).preview().filesToDelete()).isEmpty();
    assertThat(LakeTables.rows(table)).isEqualTo(expected);
    LakeTables.assertEveryReferencedFileExists(table);
  }

  @Test
  void theCommitRemovesExactlyThePreviewedDeleteFiles() {
    Table table = LakeTables.create(catalog, "shop.orders", true);
    DataFile day1 = LakeTables.write(table, List.of(row(1, "a", 1), row(2, "b", 1)));
    DataFile day2 = LakeTables.write(table, List.of(row(3, "c", 2), row(4, "d", 2)));
    // Day 3 keeps the oldest data sequence number live: Iceberg's own commits drop delete files
    // older than every live data file.
    DataFile day3 = LakeTables.write(table, List.of(row(5, "e", 3)));
    table.newAppend().appendFile(day1).appendFile(day2).appendFile(day3).commit();
    DeleteFile deletesDay1 = LakeTables.positionDeletes(table, day1, 0);
    DeleteFile deletesDay2 = LakeTables.positionDeletes(table, day2, 1);
    table.newRowDelta().addDeletes(deletesDay1).addDeletes(deletesDay2).commit();
    table.newDelete().deleteFile(day1).commit();
    DanglingDeleteRemover remover = new DanglingDeleteRemover();

    DanglingDeleteRemover.Preview preview = remover.preview("shop.orders", table);
    // After the preview, day 2's data goes too: its delete file dangles now, but was not previewed.
    table.newDelete().deleteFile(day2).commit();
    MaintenanceOutcome outcome = remover.commit(table, preview);

    assertThat(preview.preview().filesToDelete())
        .extracting(FileToDelete::location)
        .containsExactly(deletesDay1.location());
    assertThat(outcome.committed()).isTrue();
    assertThat(remover.preview("shop.orders", table).preview().filesToDelete())
        .extracting(FileToDelete::location)
        .containsExactly(deletesDay2.location());
  }

  @Test
  void aPreviewedDeleteFileRemovedMeanwhileFailsTheCommit() {
    Table table = LakeTables.create(catalog, "shop.orders", true);
    DataFile data = LakeTables.write(table, List.of(row(1, "a", 1), row(2, "b", 1)));
    DataFile other = LakeTables.write(table, List.of(row(3, "c", 2)));
    table.newAppend().appendFile(data).appendFile(other).commit();
    table.newRowDelta().addDeletes(LakeTables.positionDeletes(table, data, 0)).commit();
    table.newDelete().deleteFile(data).commit();
    DanglingDeleteRemover remover = new DanglingDeleteRemover();
    DanglingDeleteRemover.Preview preview = remover.preview("shop.orders", table);
    assertThat(preview.dangling()).hasSize(1);
    remover.commit(table, preview);
    long current = table.currentSnapshot().snapshotId();

    assertThatThrownBy(() -> remover.commit(table, preview))
        .isInstanceOf(FloeException.class)
        .hasMessageStartingWith(
            "Table shop.orders: a concurrent commit conflicts with the removal of dangling delete"
                + " files: Missing required files to delete: ")
        .hasMessageEndingWith("Nothing was changed. Preview and run it again.")
        .extracting(e -> ((FloeException) e).category())
        .isEqualTo(ErrorCategory.COMMIT_CONFLICT);
    table.refresh();
    assertThat(table.currentSnapshot().snapshotId()).isEqualTo(current);
  }
}

package dev.floe.iceberg.maintenance;

import static dev.floe.iceberg.maintenance.LakeTables.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.floe.core.error.ErrorCategory;
import dev.floe.core.error.FloeException;
import dev.floe.core.maintenance.FileToDelete;
import dev.floe.core.maintenance.MaintenancePolicy;
import dev.floe.core.maintenance.SnapshotFacts;
import dev.floe.iceberg.FloeCatalog;
import dev.floe.iceberg.ForwardingTableOperations;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SnapshotExpirerTest {

  @TempDir Path dataDirectory;

  private FloeCatalog catalog;
  private final SnapshotExpirer expirer = new SnapshotExpirer();
  private final Instant later = Instant.now().plus(Duration.ofDays(2));

  @BeforeEach
  void open() {
    catalog = LakeTables.open(dataDirectory);
  }

  @AfterEach
  void close() {
    catalog.close();
  }

  private static MaintenancePolicy keepLast(int count) {
    return MaintenancePolicy.defaults().withMinSnapshots(count);
  }

  @Test
  void expiresOldSnapshotsAndDeletesOnlyFilesNoRemainingSnapshotReaches() {
    Table table = LakeTables.create(catalog, "shop.orders", true);
    LakeTables.append(table, List.of(row(1, "a", 1), row(2, "b", 2)));
    DataFile replaced = LakeTables.write(table, List.of(row(3, "c", 1)));
    table.newAppend().appendFile(replaced).commit();
    DataFile replacement = LakeTables.write(table, List.of(row(3, "c2", 1)));
    table.newRewrite().deleteFile(replaced).addFile(replacement).commit();
    LakeTables.append(table, List.of(row(4, "d", 3)));
    List<String> expected = LakeTables.rows(table);
    long current = table.currentSnapshot().snapshotId();

    SnapshotExpirer.Preview preview = expirer.preview("shop.orders", table, keepLast(2), later);
    MaintenanceOutcome outcome = expirer.previewAndCommit("shop.orders", table, keepLast(2), later);

    assertThat(preview.preview().snapshotsToExpire()).hasSize(2);
    assertThat(outcome.preview().filesToDelete())
        .extracting(FileToDelete::location)
        .containsExactlyElementsOf(
            preview.preview().filesToDelete().stream().map(FileToDelete::location).toList())
        .contains(replaced.location())
        .doesNotContain(replacement.location());
    assertThat(outcome.deletedFiles()).isEqualTo(preview.preview().filesToDelete().size());
    assertThat(outcome.failedDeletes()).isEmpty();
    assertThat(table.io().newInputFile(replaced.location()).exists()).isFalse();
    table.refresh();
    assertThat(table.snapshots()).hasSize(2);
    assertThat(table.currentSnapshot().snapshotId()).isEqualTo(current);
    assertThat(LakeTables.rows(table)).isEqualTo(expected);
    LakeTables.assertEveryReferencedFileExists(table);
  }

  private static void assertPreviewedFilesStillExist(Table table, SnapshotExpirer.Preview preview) {
    preview
        .preview()
        .filesToDelete()
        .forEach(
            previewed ->
                assertThat(table.io().newInputFile(previewed.location()).exists()).isTrue());
  }

  private static Set<Long> snapshotIds(Table table) {
    table.refresh();
    return StreamSupport.stream(table.snapshots().spliterator(), false)
        .map(Snapshot::snapshotId)
        .collect(Collectors.toSet());
  }

  @Test
  void aSnapshotCommittedBetweenPreviewAndCommitIsNotExpired() {
    Table table = LakeTables.create(catalog, "shop.orders", false);
    LakeTables.append(table, List.of(row(1, "a", 1)));
    long first = table.currentSnapshot().snapshotId();
    LakeTables.append(table, List.of(row(2, "b", 1)));
    long second = table.currentSnapshot().snapshotId();
    LakeTables.append(table, List.of(row(3, "c", 1)));
    long third = table.currentSnapshot().snapshotId();

    SnapshotExpirer.Preview preview = expirer.preview("shop.orders", table, keepLast(1), later);
    LakeTables.append(table, List.of(row(4, "d", 1)));
    long fourth = table.currentSnapshot().snapshotId();
    MaintenanceOutcome outcome = expirer.commit(table, preview);

    assertThat(preview.plan().expiredIds()).containsExactly(first, second);
    assertThat(outcome.committed()).isTrue();
    // A fresh plan would expire the third snapshot too; the commit lands only the preview.
    assertThat(snapshotIds(table)).containsExactlyInAnyOrder(third, fourth);
    assertThat(outcome.deletedFiles()).isEqualTo(preview.preview().filesToDelete().size());
    assertThat(outcome.stillReferenced()).isEmpty();
    assertThat(LakeTables.rows(table)).containsExactly("1:a:1", "2:b:1", "3:c:1", "4:d:1");
    LakeTables.assertEveryReferencedFileExists(table);
  }

  @Test
  void aPreviewedFileThatASnapshotReachesAgainAtCommitTimeIsKept() {
    Table table = LakeTables.create(catalog, "shop.orders", false);
    DataFile file = LakeTables.write(table, List.of(row(1, "a", 1)));
    table.newAppend().appendFile(file).commit();
    table.newDelete().deleteFile(file).commit();
    LakeTables.append(table, List.of(row(2, "b", 1)));

    SnapshotExpirer.Preview preview = expirer.preview("shop.orders", table, keepLast(1), later);
    // Another writer adds the very file back before the commit.
    table.newAppend().appendFile(file).commit();
    MaintenanceOutcome outcome = expirer.commit(table, preview);

    assertThat(preview.preview().filesToDelete())
        .extracting(FileToDelete::location)
        .contains(file.location());
    assertThat(outcome.stillReferenced()).contains(file.location());
    assertThat(table.io().newInputFile(file.location()).exists()).isTrue();
    assertThat(LakeTables.rows(table)).containsExactly("1:a:1", "2:b:1");
    LakeTables.assertEveryReferencedFileExists(table);
  }

  @Test
  void aPreviewedSnapshotTheTableNowKeepsFailsTheCommitAndNothingChanges() {
    Table table = LakeTables.create(catalog, "shop.orders", false);
    LakeTables.append(table, List.of(row(1, "a", 1)));
    long first = table.currentSnapshot().snapshotId();
    LakeTables.append(table, List.of(row(2, "b", 1)));

    SnapshotExpirer.Preview preview = expirer.preview("shop.orders", table, keepLast(1), later);
    table.manageSnapshots().createTag("audit", first).commit();
    Set<Long> before = snapshotIds(table);

    assertThatThrownBy(() -> expirer.commit(table, preview))
        .isInstanceOf(FloeException.class)
        .hasMessage(
            "Table shop.orders changed since the preview: snapshot "
                + first
                + " is now kept (a branch or tag points to it). Nothing was changed. Preview"
                + " again.")
        .extracting(e -> ((FloeException) e).category())
        .isEqualTo(ErrorCategory.COMMIT_CONFLICT);
    assertThat(snapshotIds(table)).isEqualTo(before);
    assertPreviewedFilesStillExist(table, preview);
  }

  @Test
  void aCommitThatLosesEveryRetryToAnotherWriterIsACommitConflictAndNothingIsDeleted() {
    Table table = LakeTables.create(catalog, "shop.orders", false);
    table.updateProperties().set("commit.retry.num-retries", "1").commit();
    LakeTables.append(table, List.of(row(1, "a", 1)));
    LakeTables.append(table, List.of(row(2, "b", 1)));
    SnapshotExpirer.Preview preview = expirer.preview("shop.orders", table, keepLast(1), later);
    assertThat(preview.plan().expired()).isNotEmpty();
    // Another writer (a real second handle on the catalog) commits just before each of the
    // expiry's attempts, so every attempt loses the catalog's compare-and-swap.
    Table otherWriter = catalog.catalog().loadTable(TableIdentifier.parse("shop.orders"));
    TableOperations real = ((HasTableOperations) table).operations();
    AtomicInteger raced = new AtomicInteger();
    TableOperations racing =
        new ForwardingTableOperations(real) {
          @Override
          public void commit(TableMetadata base, TableMetadata metadata) {
            otherWriter.refresh();
            LakeTables.append(otherWriter, List.of(row(100 + raced.incrementAndGet(), "w", 1)));
            super.commit(base, metadata);
          }
        };
    Table losing = new BaseTable(racing, "shop.orders");

    assertThatThrownBy(() -> expirer.commit(losing, preview))
        .isInstanceOf(FloeException.class)
        .hasMessageStartingWith(
            "Table shop.orders: another writer committed while the snapshot expiry was committing,"
                + " and it lost every retry")
        .hasMessageContaining("Nothing was changed. Run it again")
        .extracting(e -> ((FloeException) e).category())
        .isEqualTo(ErrorCategory.COMMIT_CONFLICT);
    assertThat(raced.get()).isEqualTo(2);
    table.refresh();
    assertThat(snapshotIds(table)).containsAll(preview.plan().expiredIds());
    assertPreviewedFilesStillExist(table, preview);
    LakeTables.assertEveryReferencedFileExists(table);
  }

  @Test
  void youngSnapshotsAndTheCurrentOneStay() {
    Table table = LakeTables.create(catalog, "shop.orders", false);
    LakeTables.append(table, List.of(row(1, "a", 1)));
    LakeTables.append(table, List.of(row(2, "b", 1)));

    MaintenanceOutcome young =
        expirer.previewAndCommit("shop.orders", table, keepLast(1), Instant.now());
    MaintenanceOutcome old = expirer.previewAndCommit("shop.orders", table, keepLast(1), later);

    assertThat(young.committed()).isFalse();
    assertThat(young.preview().snapshotsToExpire()).isEmpty();
    assertThat(old.preview().snapshotsToExpire()).hasSize(1);
    table.refresh();
    assertThat(table.snapshots()).hasSize(1);
    assertThat(LakeTables.rows(table)).containsExactly("1:a:1", "2:b:1");
  }

  @Test
  void branchAndTagSnapshotsAndTheirFilesStay() {
    Table table = LakeTables.create(catalog, "shop.orders", true);
    LakeTables.append(table, List.of(row(1, "a", 1)));
    long tagged = table.currentSnapshot().snapshotId();
    table.manageSnapshots().createTag("eoy", tagged).commit();
    DataFile onlyTagged = LakeTables.write(table, List.of(row(2, "b", 1)));
    table.newAppend().appendFile(onlyTagged).commit();
    table.manageSnapshots().createBranch("audit").commit();
    DataFile branchFile = LakeTables.write(table, List.of(row(9, "branch", 2)));
    table.newAppend().appendFile(branchFile).toBranch("audit").commit();
    table.newDelete().deleteFile(onlyTagged).commit();
    LakeTables.append(table, List.of(row(3, "c", 1)));
    LakeTables.append(table, List.of(row(4, "d", 1)));

    expirer.previewAndCommit("shop.orders", table, keepLast(1), later);

    table.refresh();
    assertThat(table.snapshot(tagged)).isNotNull();
    assertThat(LakeTables.rowsAt(table, tagged)).containsExactly("1:a:1");
    assertThat(LakeTables.rowsAt(table, table.refs().get("audit").snapshotId()))
        .containsExactly("1:a:1", "2:b:1", "9:branch:2");
    assertThat(LakeTables.rows(table)).containsExactly("1:a:1", "3:c:1", "4:d:1");
    LakeTables.assertEveryReferencedFileExists(table);
  }

  @Test
  void keepsEachFlinkJobsLastCheckpointAndTheChainToIt() {
    Table table = LakeTables.create(catalog, "shop.orders", false);
    table
        .newAppend()
        .appendFile(LakeTables.write(table, List.of(row(1, "a", 1))))
        .set(SnapshotFacts.FLINK_JOB_ID, "job-1")
        .set(SnapshotFacts.FLINK_CHECKPOINT_ID, "7")
        .commit();
    long checkpointed = table.currentSnapshot().snapshotId();
    LakeTables.append(table, List.of(row(2, "b", 1)));
    LakeTables.append(table, List.of(row(3, "c", 1)));

    expirer.previewAndCommit("shop.orders", table, keepLast(1), later);

    table.refresh();
    assertThat(table.snapshots()).hasSize(3);
    // Flink walks parents from the current snapshot: the chain must reach its last checkpoint.
    Snapshot walk = table.currentSnapshot();
    while (walk.parentId() != null) {
      walk = table.snapshot(walk.parentId());
    }
    assertThat(walk.snapshotId()).isEqualTo(checkpointed);
    assertThat(walk.summary()).containsEntry(SnapshotFacts.FLINK_CHECKPOINT_ID, "7");
  }

  @Test
  void gcDisabledIsRefusedAndNothingChanges() {
    Table table = LakeTables.create(catalog, "shop.orders", false);
    LakeTables.append(table, List.of(row(1, "a", 1)));
    LakeTables.append(table, List.of(row(2, "b", 1)));
    table.updateProperties().set("gc.enabled", "false").commit();
    MaintenancePolicy policy =
        MaintenancePolicy.fromProperties("shop.orders", table.properties()).withMinSnapshots(1);

    assertThatThrownBy(() -> expirer.previewAndCommit("shop.orders", table, policy, later))
        .isInstanceOf(FloeException.class)
        .hasMessageStartingWith("Table shop.orders has gc.enabled=false");
    table.refresh();
    assertThat(table.snapshots()).hasSize(2);
  }

  @Test
  void honoursIcebergsOwnRetentionProperties() {
    Table table = LakeTables.create(catalog, "shop.orders", false);
    for (int i = 0; i < 4; i++) {
      LakeTables.append(table, List.of(row(i, "r" + i, 1)));
    }
    table.updateProperties().set("history.expire.min-snapshots-to-keep", "3").commit();

    expirer.previewAndCommit(
        "shop.orders",
        table,
        MaintenancePolicy.fromProperties("shop.orders", table.properties()),
        later);

    table.refresh();
    assertThat(table.snapshots()).hasSize(3);
    assertThat(Map.copyOf(table.properties()))
        .containsEntry("history.expire.min-snapshots-to-keep", "3");
  }
}

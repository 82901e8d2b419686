package dev.floe.iceberg.maintenance;

import static java.util.Objects.requireNonNull;

import dev.floe.core.maintenance.DanglingDeletePlanner;
import dev.floe.core.maintenance.DanglingDeletePlanner.DataFileFacts;
import dev.floe.core.maintenance.DanglingDeletePlanner.DeleteFileFacts;
import dev.floe.core.maintenance.DanglingDeletePlanner.DeleteKind;
import dev.floe.core.maintenance.FileToDelete;
import dev.floe.core.maintenance.MaintenanceAction;
import dev.floe.core.maintenance.MaintenancePolicy;
import dev.floe.core.maintenance.MaintenancePreview;
import dev.floe.core.state.SnapshotWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RewriteFiles;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;

/**
 * Removes delete files that no longer apply to any live data file of the current snapshot, with a
 * {@code RewriteFiles} commit of exactly the previewed delete files, validated from the snapshot
 * the preview was made on. It deletes no file: the removed delete files stay reachable from older
 * snapshots until expiry. It needs no policy: removing a delete that applies to nothing changes no
 * row. Stateless; see {@link MaintenanceJob}.
 */
public final class DanglingDeleteRemover implements MaintenanceJob<DanglingDeleteRemover.Preview> {

  /**
   * A previewed removal.
   *
   * @param preview the delete files to remove
   * @param dangling those delete files, as the commit removes them
   * @param snapshotId the snapshot the preview was made on; empty for a table without one
   */
  public record Preview(
      MaintenancePreview preview, List<DeleteFile> dangling, OptionalLong snapshotId)
      implements MaintenanceJob.Preview {

    public Preview {
      requireNonNull(preview, "preview is null");
      dangling = List.copyOf(requireNonNull(dangling, "dangling is null"));
      requireNonNull(snapshotId, "snapshotId is null");
    }
  }

  private final DanglingDeletePlanner planner = new DanglingDeletePlanner();

  /** Plans, changes nothing; the policy and time do not matter to this operation. */
  @Override
  public Preview preview(String name, Table table, MaintenancePolicy policy, Instant now) {
    return preview(name, table);
  }

  /** Plans, changes nothing. */
  public Preview preview(String name, Table table) {
    table.refresh();
    Snapshot current = table.currentSnapshot();
    if (current == null) {
      return new Preview(empty(name), List.of(), OptionalLong.empty());
    }
    Map<Integer, PartitionSpec> specs = table.specs();
    List<DataFileFacts> data = new ArrayList<>();
    for (ManifestFile manifest : current.dataManifests(table.io())) {
      for (DataFile file : read(ManifestFiles.read(manifest, table.io(), specs))) {
        data.add(
            new DataFileFacts(file.location(), partition(specs, file), file.dataSequenceNumber()));
      }
    }
    Map<String, DeleteFile> byLocation = new HashMap<>();
    List<DeleteFileFacts> deletes = new ArrayList<>();
    for (ManifestFile manifest : current.deleteManifests(table.io())) {
      for (DeleteFile file : read(ManifestFiles.readDeleteManifest(manifest, table.io(), specs))) {
        byLocation.put(file.location(), file);
        deletes.add(
            new DeleteFileFacts(
                file.location(),
                partition(specs, file),
                file.content() == FileContent.EQUALITY_DELETES
                    ? DeleteKind.EQUALITY
                    : DeleteKind.POSITION,
                file.dataSequenceNumber(),
                file.content() == FileContent.EQUALITY_DELETES
                    && specs.get(file.specId()).isUnpartitioned(),
                Optional.ofNullable(file.referencedDataFile()),
                file.fileSizeInBytes()));
      }
    }
    List<DeleteFileFacts> dangling = planner.plan(data, deletes);
    List<DeleteFile> files =
        dangling.stream().map(facts -> byLocation.get(facts.location())).toList();
    MaintenancePreview preview =
        new MaintenancePreview(
            MaintenanceAction.REMOVE_DANGLING_DELETES,
            name,
            List.of(),
            dangling.stream()
                .map(facts -> new FileToDelete(facts.location(), facts.sizeBytes()))
                .sorted(Comparator.comparing(FileToDelete::location))
                .toList(),
            0,
            List.of());
    return new Preview(preview, files, OptionalLong.of(current.snapshotId()));
  }

  /**
   * Commits the removal of exactly the previewed delete files, validated from the previewed
   * snapshot.
   *
   * @throws dev.floe.core.error.FloeException COMMIT_CONFLICT when a concurrent commit removed one
   *     of them, conflicts with the removal or won every retry; nothing was committed.
   *     COMMIT_STATE_UNKNOWN when the catalog did not confirm the commit
   */
  /** The {@link SnapshotWriter#MAINTENANCE_ACTION} of the removal's snapshot. */
  public static final String DANGLING_DELETES_ACTION = "remove-dangling-deletes";

  @Override
  public MaintenanceOutcome commit(Table table, Preview preview) {
    if (preview.dangling().isEmpty()) {
      return MaintenanceOutcome.nothingDone(preview.preview());
    }
    RewriteFiles rewrite =
        table.newRewrite().validateFromSnapshot(preview.snapshotId().getAsLong());
    preview.dangling().forEach(rewrite::deleteFile);
    rewrite.set(SnapshotWriter.MAINTENANCE_ACTION, DANGLING_DELETES_ACTION);
    MaintenanceCommit.land(
        preview.preview().table(), "the removal of dangling delete files", rewrite::commit);
    return new MaintenanceOutcome(preview.preview(), true, 0, 0, List.of(), List.of());
  }

  private static MaintenancePreview empty(String name) {
    return new MaintenancePreview(
        MaintenanceAction.REMOVE_DANGLING_DELETES, name, List.of(), List.of(), 0, List.of());
  }

  private static String partition(Map<Integer, PartitionSpec> specs, ContentFile<?> file) {
    PartitionSpec spec = specs.get(file.specId());
    return file.specId()
        + "/"
        + (spec.isUnpartitioned() ? "" : spec.partitionToPath(file.partition()));
  }

  private static <F extends ContentFile<F>> List<F> read(ManifestReader<F> reader) {
    List<F> files = new ArrayList<>();
    try (reader) {
      for (F file : reader) {
        files.add(file.copyWithoutStats());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return files;
  }
}

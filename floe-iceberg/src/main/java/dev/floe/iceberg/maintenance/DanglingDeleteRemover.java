package dev.floe.iceberg.maintenance;

import dev.floe.core.maintenance.DanglingDeletePlanner;
import dev.floe.core.maintenance.DanglingDeletePlanner.DataFileFacts;
import dev.floe.core.maintenance.DanglingDeletePlanner.DeleteFileFacts;
import dev.floe.core.maintenance.DanglingDeletePlanner.DeleteKind;
import dev.floe.core.maintenance.FileToDelete;
import dev.floe.core.maintenance.MaintenanceAction;
import dev.floe.core.maintenance.MaintenancePreview;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
 * {@code RewriteFiles} commit validated from the snapshot it planned on. It deletes no file: the
 * removed delete files stay reachable from older snapshots until expiry.
 */
public final class DanglingDeleteRemover {

  /** A preview together with the delete files it would remove. */
  public record Preview(MaintenancePreview preview, List<DeleteFile> dangling, long snapshotId) {}

  private final DanglingDeletePlanner planner = new DanglingDeletePlanner();

  /** Plans, changes nothing. */
  public Preview preview(String name, Table table) {
    table.refresh();
    Snapshot current = table.currentSnapshot();
    if (current == null) {
      return new Preview(empty(name), List.of(), -1);
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
                .sorted(java.util.Comparator.comparing(FileToDelete::location))
                .toList(),
            0,
            List.of());
    return new Preview(preview, files, current.snapshotId());
  }

  /**
   * Commits the removal of the dangling delete files.
   *
   * @throws org.apache.iceberg.exceptions.ValidationException when a concurrent commit changed the
   *     delete files; nothing was committed
   */
  public MaintenanceOutcome run(String name, Table table) {
    Preview preview = preview(name, table);
    if (preview.dangling().isEmpty()) {
      return new MaintenanceOutcome(preview.preview(), false, 0, 0, List.of());
    }
    RewriteFiles rewrite = table.newRewrite().validateFromSnapshot(preview.snapshotId());
    preview.dangling().forEach(rewrite::deleteFile);
    rewrite.commit();
    return new MaintenanceOutcome(preview.preview(), true, 0, 0, List.of());
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

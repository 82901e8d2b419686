package dev.floe.iceberg.optimize;

import dev.floe.core.optimize.PartitionKey;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;

/**
 * Lists the live files of the planned partitions at the planned snapshot: one streaming pass over
 * the snapshot's manifests that keeps (copies of) only those partitions' files, so memory follows
 * the plan, not the table.
 */
final class PartitionFileCollector {

  Map<PartitionKey, PartitionFiles> collect(
      Table table, long snapshotId, Set<PartitionKey> wanted) {
    Snapshot snapshot = table.snapshot(snapshotId);
    if (snapshot == null) {
      throw new IllegalStateException("planned snapshot " + snapshotId + " no longer exists");
    }
    Map<Integer, PartitionSpec> specs = table.specs();
    List<DeleteFile> global = new ArrayList<>();
    Map<PartitionKey, PartitionFiles> files = new HashMap<>();
    for (PartitionKey key : wanted) {
      files.put(key, new PartitionFiles(key, table.schema(), global));
    }
    try {
      for (ManifestFile manifest : snapshot.dataManifests(table.io())) {
        try (ManifestReader<DataFile> reader = ManifestFiles.read(manifest, table.io(), specs)) {
          for (DataFile file : reader) {
            PartitionFiles partition =
                files.get(OptimizeScanner.partitionKey(specs, file.specId(), file));
            if (partition != null) {
              partition.dataFiles.add(file.copy());
            }
          }
        }
      }
      for (ManifestFile manifest : snapshot.deleteManifests(table.io())) {
        try (ManifestReader<DeleteFile> reader =
            ManifestFiles.readDeleteManifest(manifest, table.io(), specs)) {
          for (DeleteFile file : reader) {
            // Equality deletes of an unpartitioned spec apply to every partition (as in
            // Iceberg's DeleteFileIndex); everything else applies within its partition.
            if (file.content() == FileContent.EQUALITY_DELETES
                && specs.get(file.specId()).isUnpartitioned()) {
              global.add(file.copy());
              continue;
            }
            PartitionFiles partition =
                files.get(OptimizeScanner.partitionKey(specs, file.specId(), file));
            if (partition != null) {
              partition.deleteFiles.add(file.copy());
            }
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the manifests of snapshot " + snapshotId, e);
    }
    return files;
  }
}

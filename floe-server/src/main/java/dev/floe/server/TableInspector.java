package dev.floe.server;

import static java.util.Objects.requireNonNull;

import dev.floe.core.error.FloeException;
import dev.floe.core.optimize.OptimizePolicy;
import dev.floe.core.state.SnapshotWriter;
import dev.floe.core.state.TableKey;
import dev.floe.server.discovery.KeptCatalog;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Reads what the table pages show straight from a table's Iceberg metadata: its snapshot timeline
 * and its data-file sizes. Blocks on the catalog and the file system; thread-safe.
 */
public final class TableInspector {

  /** One snapshot of the timeline; counts from its summary (0 when it records none). */
  public record SnapshotEntry(
      long snapshotId,
      Optional<Long> parentId,
      Instant committedAt,
      String operation,
      SnapshotWriter writer,
      long addedDataFiles,
      long removedDataFiles,
      long addedDeleteFiles,
      long removedDeleteFiles,
      long addedRecords,
      long removedRecords) {}

  /** The current snapshot's data files by size, and the table's target file size. */
  public record Files(List<FileSizeHistogram.Bucket> histogram, long targetFileSize) {}

  private final Map<String, KeptCatalog> catalogs;

  public TableInspector(Map<String, KeptCatalog> catalogs) {
    this.catalogs = Map.copyOf(requireNonNull(catalogs, "catalogs is null"));
  }

  /** The current snapshot and its ancestors, newest first, at most {@code limit}. */
  public List<SnapshotEntry> snapshots(TableKey key, int limit) {
    Table table = load(key);
    List<SnapshotEntry> entries = new ArrayList<>();
    Snapshot snapshot = table.currentSnapshot();
    while (snapshot != null && entries.size() < limit) {
      Map<String, String> summary = snapshot.summary();
      entries.add(
          new SnapshotEntry(
              snapshot.snapshotId(),
              Optional.ofNullable(snapshot.parentId()),
              Instant.ofEpochMilli(snapshot.timestampMillis()),
              String.valueOf(snapshot.operation()),
              SnapshotWriter.of(summary),
              count(summary, "added-data-files"),
              count(summary, "deleted-data-files"),
              count(summary, "added-delete-files"),
              count(summary, "removed-delete-files"),
              count(summary, "added-records"),
              count(summary, "deleted-records")));
      snapshot = snapshot.parentId() == null ? null : table.snapshot(snapshot.parentId());
    }
    return entries;
  }

  /**
   * The live data files of the current snapshot by size.
   *
   * @throws FloeException BAD_INPUT when the table's {@code floe.optimize.*} properties are invalid
   */
  public Files files(TableKey key) {
    Table table = load(key);
    FileSizeHistogram histogram = new FileSizeHistogram();
    Snapshot snapshot = table.currentSnapshot();
    if (snapshot != null) {
      for (ManifestFile manifest : snapshot.dataManifests(table.io())) {
        try (ManifestReader<DataFile> reader =
            ManifestFiles.read(manifest, table.io(), table.specs())) {
          for (DataFile file : reader) {
            histogram.add(file.fileSizeInBytes());
          }
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    }
    long target =
        OptimizePolicy.fromProperties(key.table(), table.properties()).targetFileSizeBytes();
    return new Files(histogram.buckets(), target);
  }

  private Table load(TableKey key) {
    KeptCatalog catalog = catalogs.get(key.catalog());
    if (catalog == null) {
      throw FloeException.badInput("no catalog " + key.catalog() + " is kept by the keeper");
    }
    return catalog.catalog().catalog().loadTable(TableIdentifier.parse(key.table()));
  }

  private static long count(Map<String, String> summary, String name) {
    String value = summary.get(name);
    if (value == null) {
      return 0;
    }
    try {
      return Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      return 0; // another writer's malformed summary: nothing to count
    }
  }
}

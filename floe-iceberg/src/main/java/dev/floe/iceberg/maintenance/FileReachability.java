package dev.floe.iceberg.maintenance;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.ManifestContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.PartitionStatisticsFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StatisticsFile;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.io.FileIO;

/**
 * Every file each snapshot of one table metadata references: its manifest list, its manifests, the
 * live data and delete files of those manifests, and its statistics files. Each manifest is read
 * once however many snapshots share it. A read failure fails the whole scan: a partial reachable
 * set would make live files look unreferenced.
 */
final class FileReachability {

  private final Map<Long, Set<String>> filesBySnapshot;
  private final Set<String> metadataFiles;
  private final Set<String> statisticsFiles;
  private final Map<String, Long> sizes;

  private FileReachability(
      Map<Long, Set<String>> filesBySnapshot,
      Set<String> metadataFiles,
      Set<String> statisticsFiles,
      Map<String, Long> sizes) {
    this.filesBySnapshot = filesBySnapshot;
    this.metadataFiles = metadataFiles;
    this.statisticsFiles = statisticsFiles;
    this.sizes = sizes;
  }

  static FileReachability scan(TableMetadata metadata, FileIO io) {
    Map<Integer, PartitionSpec> specs = metadata.specsById();
    Map<String, List<String>> manifestContents = new HashMap<>();
    Map<Long, Set<String>> filesBySnapshot = new HashMap<>();
    Map<String, Long> sizes = new HashMap<>();
    for (Snapshot snapshot : metadata.snapshots()) {
      Set<String> files = new LinkedHashSet<>();
      if (snapshot.manifestListLocation() != null) {
        files.add(snapshot.manifestListLocation());
      }
      for (ManifestFile manifest : snapshot.allManifests(io)) {
        files.add(manifest.path());
        sizes.put(manifest.path(), manifest.length());
        files.addAll(
            manifestContents.computeIfAbsent(
                manifest.path(), path -> contents(manifest, io, specs, sizes)));
      }
      filesBySnapshot.put(snapshot.snapshotId(), files);
    }
    for (StatisticsFile statistics : metadata.statisticsFiles()) {
      sizes.put(statistics.path(), statistics.fileSizeInBytes());
      Set<String> files = filesBySnapshot.get(statistics.snapshotId());
      if (files != null) {
        files.add(statistics.path());
      }
    }
    for (PartitionStatisticsFile statistics : metadata.partitionStatisticsFiles()) {
      sizes.put(statistics.path(), statistics.fileSizeInBytes());
      Set<String> files = filesBySnapshot.get(statistics.snapshotId());
      if (files != null) {
        files.add(statistics.path());
      }
    }
    // Statistics files the metadata names are kept, even if their snapshot is gone.
    Set<String> statisticsFiles = new LinkedHashSet<>();
    metadata.statisticsFiles().forEach(statistics -> statisticsFiles.add(statistics.path()));
    metadata
        .partitionStatisticsFiles()
        .forEach(statistics -> statisticsFiles.add(statistics.path()));
    Set<String> metadataFiles = new LinkedHashSet<>();
    if (metadata.metadataFileLocation() != null) {
      metadataFiles.add(metadata.metadataFileLocation());
    }
    metadata.previousFiles().forEach(entry -> metadataFiles.add(entry.file()));
    return new FileReachability(filesBySnapshot, metadataFiles, statisticsFiles, sizes);
  }

  private static List<String> contents(
      ManifestFile manifest,
      FileIO io,
      Map<Integer, PartitionSpec> specs,
      Map<String, Long> sizes) {
    List<String> locations = new ArrayList<>();
    try (ManifestReader<? extends ContentFile<?>> reader =
        manifest.content() == ManifestContent.DATA
            ? ManifestFiles.read(manifest, io, specs)
            : ManifestFiles.readDeleteManifest(manifest, io, specs)) {
      for (ContentFile<?> file : reader) {
        locations.add(file.location());
        sizes.put(file.location(), file.fileSizeInBytes());
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read manifest " + manifest.path(), e);
    }
    return locations;
  }

  /** Files referenced by the given snapshots (statistics and metadata files not included). */
  Set<String> filesOf(Collection<Long> snapshotIds) {
    Set<String> files = new HashSet<>();
    for (Long id : snapshotIds) {
      files.addAll(filesBySnapshot.getOrDefault(id, Set.of()));
    }
    return files;
  }

  /** Every snapshot's files and every statistics file; no metadata files. */
  Set<String> snapshotAndStatisticsFiles() {
    Set<String> files = filesOf(filesBySnapshot.keySet());
    files.addAll(statisticsFiles);
    return files;
  }

  /** Everything the metadata keeps: every snapshot's files, statistics, metadata files. */
  Set<String> all() {
    Set<String> files = snapshotAndStatisticsFiles();
    files.addAll(metadataFiles);
    return files;
  }

  /** The current metadata file and every file of the metadata log. */
  Set<String> metadataFiles() {
    return metadataFiles;
  }

  /** The size the metadata records for a file, or -1. */
  long size(String location) {
    return sizes.getOrDefault(location, -1L);
  }
}

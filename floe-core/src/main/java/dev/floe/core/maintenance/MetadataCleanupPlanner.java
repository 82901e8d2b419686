package dev.floe.core.maintenance;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;

/**
 * Decides which files of a table's metadata directory go: metadata files beyond the retained
 * versions, and manifests, manifest lists and statistics files no snapshot references, each only
 * when older than the threshold. Files of other kinds are never touched.
 */
public final class MetadataCleanupPlanner {

  private final OrphanPlanner orphans = new OrphanPlanner();

  /**
   * @param listed the files of the metadata directory
   * @param currentMetadata the current metadata file
   * @param metadataLog previous metadata files, oldest first, as the current metadata lists them
   * @param retainedVersions how many of the newest previous metadata files to keep
   * @param reachableFiles every manifest list, manifest and statistics file any snapshot references
   * @param minAge files younger than this are kept
   * @param now the time of planning
   */
  public OrphanPlan plan(
      List<ListedFile> listed,
      String currentMetadata,
      List<String> metadataLog,
      int retainedVersions,
      List<String> reachableFiles,
      Duration minAge,
      Instant now) {
    requireNonNull(listed, "listed is null");
    requireNonNull(currentMetadata, "currentMetadata is null");
    requireNonNull(metadataLog, "metadataLog is null");
    requireNonNull(reachableFiles, "reachableFiles is null");
    List<ListedFile> candidates =
        listed.stream().filter(file -> isMetadataKind(file.location())).toList();
    return orphans.plan(
        candidates,
        kept(currentMetadata, metadataLog, retainedVersions, reachableFiles),
        minAge,
        now);
  }

  /**
   * What metadata cleanup keeps: the current metadata file, the newest {@code retainedVersions}
   * files of the metadata log, and every file a snapshot references. A commit checks its preview's
   * files against this set as the table is at commit time.
   */
  public static ReachableLocations kept(
      String currentMetadata,
      List<String> metadataLog,
      int retainedVersions,
      Collection<String> reachableFiles) {
    if (retainedVersions < 0) {
      throw new IllegalArgumentException("retainedVersions must be 0 or more: " + retainedVersions);
    }
    List<String> kept = new ArrayList<>(reachableFiles);
    kept.add(currentMetadata);
    int keepFrom = Math.max(0, metadataLog.size() - retainedVersions);
    kept.addAll(metadataLog.subList(keepFrom, metadataLog.size()));
    return new ReachableLocations(kept);
  }

  static boolean isMetadataKind(String location) {
    String name = location.toLowerCase(Locale.ROOT);
    return name.endsWith(".metadata.json")
        || name.endsWith(".metadata.json.gz")
        || name.endsWith(".avro")
        || name.endsWith(".stats")
        || name.endsWith(".puffin");
  }
}

package dev.floe.core.maintenance;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Finds delete files that can no longer apply to any live data file. Position deletes apply to data
 * files of their partition with a data sequence number up to their own; equality deletes to data
 * files with a smaller one; a position delete that names its data file applies only to that file.
 * Equality deletes of an unpartitioned spec are global: they apply to every partition.
 */
public final class DanglingDeletePlanner {

  /**
   * A live data file.
   *
   * @param location where it is
   * @param partition its spec id and partition value, as one key
   * @param dataSequenceNumber its data sequence number
   */
  public record DataFileFacts(String location, String partition, long dataSequenceNumber) {
    public DataFileFacts {
      requireNonNull(location, "location is null");
      requireNonNull(partition, "partition is null");
    }
  }

  /** What a delete file deletes by. */
  public enum DeleteKind {
    POSITION,
    EQUALITY
  }

  /**
   * A live delete file.
   *
   * @param location where it is
   * @param partition its spec id and partition value, as one key
   * @param kind position or equality
   * @param dataSequenceNumber its data sequence number
   * @param global an equality delete of an unpartitioned spec
   * @param referencedDataFile the one data file a position delete applies to, when it says
   * @param sizeBytes its size
   */
  public record DeleteFileFacts(
      String location,
      String partition,
      DeleteKind kind,
      long dataSequenceNumber,
      boolean global,
      Optional<String> referencedDataFile,
      long sizeBytes) {
    public DeleteFileFacts {
      requireNonNull(location, "location is null");
      requireNonNull(partition, "partition is null");
      requireNonNull(kind, "kind is null");
      requireNonNull(referencedDataFile, "referencedDataFile is null");
    }
  }

  /** The delete files no live data file needs, in the given order. */
  public List<DeleteFileFacts> plan(List<DataFileFacts> liveData, List<DeleteFileFacts> deletes) {
    requireNonNull(liveData, "liveData is null");
    requireNonNull(deletes, "deletes is null");
    Map<String, Long> minimumByPartition = new HashMap<>();
    long globalMinimum = Long.MAX_VALUE;
    Set<String> liveLocations = new HashSet<>();
    for (DataFileFacts data : liveData) {
      minimumByPartition.merge(data.partition(), data.dataSequenceNumber(), Math::min);
      globalMinimum = Math.min(globalMinimum, data.dataSequenceNumber());
      liveLocations.add(FileLocation.parse(data.location()).path());
    }
    List<DeleteFileFacts> dangling = new ArrayList<>();
    for (DeleteFileFacts delete : deletes) {
      long minimum =
          delete.global()
              ? globalMinimum
              : minimumByPartition.getOrDefault(delete.partition(), Long.MAX_VALUE);
      boolean applies =
          switch (delete.kind()) {
            case POSITION -> minimum <= delete.dataSequenceNumber();
            case EQUALITY -> minimum < delete.dataSequenceNumber();
          };
      if (applies
          && delete.kind() == DeleteKind.POSITION
          && delete.referencedDataFile().isPresent()) {
        applies =
            liveLocations.contains(FileLocation.parse(delete.referencedDataFile().get()).path());
      }
      if (!applies) {
        dangling.add(delete);
      }
    }
    return dangling;
  }
}

package dev.floe.core.maintenance;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Decides which listed files are orphans: not reachable from anything the table keeps, and older
 * than the threshold. Pure: the listing, the reachable set and the time are given.
 */
public final class OrphanPlanner {

  /**
   * @param listed every file found under the location that is cleaned
   * @param reachable everything the table's metadata still references
   * @param minAge files modified less than this long before {@code now} are kept
   * @param now the time of planning
   */
  public OrphanPlan plan(
      List<ListedFile> listed, ReachableLocations reachable, Duration minAge, Instant now) {
    requireNonNull(listed, "listed is null");
    requireNonNull(reachable, "reachable is null");
    requireNonNull(minAge, "minAge is null");
    requireNonNull(now, "now is null");
    Instant cutoff = now.minus(minAge);
    List<ListedFile> orphans = new ArrayList<>();
    List<ListedFile> tooYoung = new ArrayList<>();
    List<PathConflict> conflicts = new ArrayList<>();
    int referenced = 0;
    for (ListedFile file : listed) {
      FileLocation location = FileLocation.parse(file.location());
      switch (reachable.match(location)) {
        case REFERENCED -> referenced++;
        case CONFLICT ->
            conflicts.add(
                new PathConflict(
                    file.location(), reachable.samePath(location).orElseThrow().toString()));
        case UNREFERENCED -> {
          // A listing that reports no time (0, the epoch) would make every file look ancient: an
          // unknown age is treated as young (compare apache/amoro#2925, uncommitted files
          // deleted when the age threshold "did not take effect").
          boolean ageKnown = file.modifiedAt().isAfter(Instant.EPOCH);
          if (ageKnown && file.modifiedAt().isBefore(cutoff)) {
            orphans.add(file);
          } else {
            tooYoung.add(file);
          }
        }
      }
    }
    Comparator<ListedFile> byLocation = Comparator.comparing(ListedFile::location);
    orphans.sort(byLocation);
    tooYoung.sort(byLocation);
    return new OrphanPlan(orphans, tooYoung, conflicts, referenced, minAge, cutoff);
  }
}

package dev.floe.core.maintenance;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Every location a table's metadata still references, indexed by normalized path, so a listed file
 * can be matched whatever scheme or authority spelling either side uses.
 */
public final class ReachableLocations {

  /** How a listed file relates to the reachable locations. */
  public enum Match {
    /** Some reachable location names this file. */
    REFERENCED,
    /** No reachable location has this path. */
    UNREFERENCED,
    /**
     * A reachable location has this path with another scheme or authority: it may be this very file
     * through another name, so it must not be deleted.
     */
    CONFLICT
  }

  private final Map<String, List<FileLocation>> byPath = new HashMap<>();
  private final int size;

  public ReachableLocations(Collection<String> locations) {
    int count = 0;
    for (String location : locations) {
      FileLocation parsed = FileLocation.parse(location);
      byPath.computeIfAbsent(parsed.path(), path -> new ArrayList<>(1)).add(parsed);
      count++;
    }
    this.size = count;
  }

  /** How many locations were given (spellings of one file count once each). */
  public int size() {
    return size;
  }

  public Match match(String listedLocation) {
    return match(FileLocation.parse(listedLocation));
  }

  public Match match(FileLocation listed) {
    List<FileLocation> samePath = byPath.get(listed.path());
    if (samePath == null) {
      return Match.UNREFERENCED;
    }
    for (FileLocation reachable : samePath) {
      if (reachable.compatibleWith(listed)) {
        return Match.REFERENCED;
      }
    }
    return Match.CONFLICT;
  }

  /** A reachable location with the same path as the listed one, for conflict messages. */
  public Optional<FileLocation> samePath(FileLocation listed) {
    List<FileLocation> samePath = byPath.get(listed.path());
    return samePath == null ? Optional.empty() : Optional.of(samePath.get(0));
  }
}

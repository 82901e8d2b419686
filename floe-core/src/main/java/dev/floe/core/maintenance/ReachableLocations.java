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

  /** Path to its one location, or to a list when several spellings share the path. */
  private final Map<String, Object> byPath;

  private final int size;

  public ReachableLocations(Collection<String> locations) {
    byPath = new HashMap<>(Math.max(16, locations.size() * 4 / 3 + 1));
    int count = 0;
    for (String location : locations) {
      FileLocation parsed = FileLocation.parse(location);
      byPath.merge(parsed.path(), parsed, ReachableLocations::add);
      count++;
    }
    this.size = count;
  }

  @SuppressWarnings("unchecked")
  private static Object add(Object existing, Object added) {
    List<FileLocation> all;
    if (existing instanceof List<?> list) {
      all = (List<FileLocation>) list;
    } else {
      all = new ArrayList<>(2);
      all.add((FileLocation) existing);
    }
    all.add((FileLocation) added);
    return all;
  }

  @SuppressWarnings("unchecked")
  private List<FileLocation> samePathList(String path) {
    Object found = byPath.get(path);
    if (found == null) {
      return null;
    }
    return found instanceof List<?> list
        ? (List<FileLocation>) list
        : List.of((FileLocation) found);
  }

  /** How many locations were given (spellings of one file count once each). */
  public int size() {
    return size;
  }

  public Match match(String listedLocation) {
    return match(FileLocation.parse(listedLocation));
  }

  public Match match(FileLocation listed) {
    List<FileLocation> samePath = samePathList(listed.path());
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
    List<FileLocation> samePath = samePathList(listed.path());
    return samePath == null ? Optional.empty() : Optional.of(samePath.get(0));
  }
}

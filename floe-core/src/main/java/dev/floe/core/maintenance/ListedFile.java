package dev.floe.core.maintenance;

import static java.util.Objects.requireNonNull;

import java.time.Instant;

/**
 * A file found by listing a table's location.
 *
 * @param location the location as the listing spells it
 * @param sizeBytes its size
 * @param modifiedAt its last modification time
 */
public record ListedFile(String location, long sizeBytes, Instant modifiedAt) {

  public ListedFile {
    requireNonNull(location, "location is null");
    requireNonNull(modifiedAt, "modifiedAt is null");
  }
}

package dev.floe.core.maintenance;

import static java.util.Objects.requireNonNull;

/**
 * A file a maintenance action deletes (or, for dangling deletes, removes from the table).
 *
 * @param location its location
 * @param sizeBytes its size, -1 when unknown
 */
public record FileToDelete(String location, long sizeBytes) {

  public FileToDelete {
    requireNonNull(location, "location is null");
  }
}

package dev.floe.core.maintenance;

import static java.util.Objects.requireNonNull;

/**
 * A listed file whose path a reachable location also has, under another scheme or authority.
 *
 * @param listed the location the listing gave
 * @param referenced the location the table metadata gives for the same path
 */
public record PathConflict(String listed, String referenced) {

  public PathConflict {
    requireNonNull(listed, "listed is null");
    requireNonNull(referenced, "referenced is null");
  }
}

package dev.floe.core.maintenance;

import static java.util.Objects.requireNonNull;

/**
 * A named reference to a snapshot.
 *
 * @param name the branch or tag name ({@code main} is the current history)
 * @param snapshotId the snapshot it points to
 * @param branch true for a branch, false for a tag
 */
public record TableRef(String name, long snapshotId, boolean branch) {

  public static final String MAIN = "main";

  public TableRef {
    requireNonNull(name, "name is null");
  }
}

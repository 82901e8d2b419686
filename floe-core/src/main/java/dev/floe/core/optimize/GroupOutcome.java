package dev.floe.core.optimize;

/** How one file group's commit ended. */
public enum GroupOutcome {
  /** Committed. */
  COMMITTED,
  /** A genuine conflict or failure: nothing landed, the group's output was deleted. */
  FAILED,
  /** The commit may or may not have landed: its output was kept. */
  UNKNOWN
}

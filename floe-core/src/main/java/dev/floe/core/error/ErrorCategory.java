package dev.floe.core.error;

/**
 * What kind of failure a {@link FloeException} is; decides exit codes and HTTP statuses at the
 * edges.
 */
public enum ErrorCategory {
  /** The user gave something Floe cannot use: a config key, a URL, a table name. Fix the input. */
  BAD_INPUT,
  /** A system Floe reads from (MySQL, a catalog, storage) cannot be reached or refused access. */
  SOURCE_UNAVAILABLE,
  /** A commit lost a compare-and-swap race; retrying later is safe. */
  COMMIT_CONFLICT,
  /** A commit may or may not have landed; nothing it wrote may be cleaned up. */
  COMMIT_STATE_UNKNOWN,
  /** A bug or an unexpected state inside Floe. */
  INTERNAL
}

package dev.floe.core.error;

import static java.util.Objects.requireNonNull;

/**
 * The one exception type Floe throws on purpose. Its message is written for the user: it names the
 * input or system, the value and what to do, and never contains a secret.
 */
public class FloeException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final ErrorCategory category;

  public FloeException(ErrorCategory category, String message) {
    super(requireNonNull(message, "message is null"));
    this.category = requireNonNull(category, "category is null");
  }

  public FloeException(ErrorCategory category, String message, Throwable cause) {
    super(requireNonNull(message, "message is null"), cause);
    this.category = requireNonNull(category, "category is null");
  }

  public ErrorCategory category() {
    return category;
  }

  public static FloeException badInput(String message) {
    return new FloeException(ErrorCategory.BAD_INPUT, message);
  }

  public static FloeException commitConflict(String message) {
    return new FloeException(ErrorCategory.COMMIT_CONFLICT, message);
  }

  public static FloeException commitConflict(String message, Throwable cause) {
    return new FloeException(ErrorCategory.COMMIT_CONFLICT, message, cause);
  }

  public static FloeException commitStateUnknown(String message, Throwable cause) {
    return new FloeException(ErrorCategory.COMMIT_STATE_UNKNOWN, message, cause);
  }

  public static FloeException sourceUnavailable(String message, Throwable cause) {
    return new FloeException(ErrorCategory.SOURCE_UNAVAILABLE, message, cause);
  }

  public static FloeException internal(String message, Throwable cause) {
    return new FloeException(ErrorCategory.INTERNAL, message, cause);
  }
}

package dev.floe.cli;

/** The exit codes every floe command uses. */
public final class ExitCodes {
  /** Done; every check passed; tables are equal. */
  public static final int OK = 0;

  /** Ran, and found a problem: a failed check, a difference, a rewound table. */
  public static final int PROBLEM_FOUND = 1;

  /** Could not do the job: bad input, an unreachable system. The message says why. */
  public static final int COULD_NOT_RUN = 2;

  /** A bug in Floe. */
  public static final int INTERNAL_ERROR = 3;

  private ExitCodes() {}
}

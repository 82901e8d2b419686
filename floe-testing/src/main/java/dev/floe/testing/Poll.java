package dev.floe.testing;

import java.time.Duration;
import java.time.Instant;

/** Waits for a condition by polling it, failing after a deadline: tests never sleep a guess. */
public final class Poll {

  /** A condition, checked again until it holds. */
  @FunctionalInterface
  public interface Condition {
    boolean holds() throws Exception;
  }

  private Poll() {}

  /**
   * Returns once {@code condition} holds, checking it every {@code every}.
   *
   * @throws AssertionError naming {@code what} when it does not hold within {@code within}
   */
  public static void until(String what, Duration within, Duration every, Condition condition)
      throws Exception {
    Instant deadline = Instant.now().plus(within);
    while (!condition.holds()) {
      if (Instant.now().isAfter(deadline)) {
        throw new AssertionError("not true after " + within + ": " + what);
      }
      Thread.sleep(every.toMillis()); // polling, bounded by the deadline
    }
  }
}

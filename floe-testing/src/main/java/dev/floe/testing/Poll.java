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

  /** A value that may not be there yet. */
  @FunctionalInterface
  public interface Probe<T> {
    java.util.Optional<T> look() throws Exception;
  }

  /** A check that says what is still wrong, or nothing once the awaited state is reached. */
  @FunctionalInterface
  public interface Check {
    java.util.Optional<String> whatIsWrong() throws Exception;
  }

  private Poll() {}

  /**
   * Returns once {@code check} finds nothing wrong, checking it every {@code every}.
   *
   * @throws AssertionError naming {@code what} and the last thing found wrong when something is
   *     still wrong after {@code within}
   */
  public static void untilNothingWrong(String what, Duration within, Duration every, Check check)
      throws Exception {
    String[] wrong = {"never checked"};
    try {
      until(
          what,
          within,
          every,
          () -> {
            java.util.Optional<String> found = check.whatIsWrong();
            found.ifPresent(w -> wrong[0] = w);
            return found.isEmpty();
          });
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "; last seen: " + wrong[0], e);
    }
  }

  /**
   * Returns the value once {@code probe} finds one, looking every {@code every}.
   *
   * @throws AssertionError naming {@code what} when none is found within {@code within}
   */
  public static <T> T until(String what, Duration within, Duration every, Probe<T> probe)
      throws Exception {
    Object[] found = new Object[1];
    until(
        what,
        within,
        every,
        () -> {
          java.util.Optional<T> value = probe.look();
          value.ifPresent(v -> found[0] = v);
          return value.isPresent();
        });
    @SuppressWarnings("unchecked")
    T value = (T) found[0];
    return value;
  }

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

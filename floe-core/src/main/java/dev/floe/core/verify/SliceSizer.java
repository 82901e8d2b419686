package dev.floe.core.verify;

import static java.util.Objects.requireNonNull;

import java.time.Duration;

/**
 * Adapts the number of keys per slice so a MySQL digest query takes about the target time: the next
 * size is the current size scaled by target / took, at most halved or doubled per step, within
 * [minimum, maximum].
 */
public record SliceSizer(Duration target, int minimum, int maximum) {

  public static final SliceSizer DEFAULT = new SliceSizer(Duration.ofSeconds(1), 1_000, 1_000_000);

  public SliceSizer {
    requireNonNull(target, "target is null");
    if (target.isNegative() || target.isZero()) {
      throw new IllegalArgumentException("target must be positive, got " + target);
    }
    if (minimum < 1 || maximum < minimum) {
      throw new IllegalArgumentException(
          "need 1 <= minimum <= maximum, got " + minimum + " and " + maximum);
    }
  }

  /** The first slice size: small, so the first measurement is cheap. */
  public int initial() {
    return Math.min(maximum, Math.max(minimum, 10_000));
  }

  /** The next slice size after a slice of {@code current} keys took {@code took}. */
  public int next(int current, Duration took) {
    double ratio = (double) target.toNanos() / Math.max(1, took.toNanos());
    double scaled = current * Math.max(0.5, Math.min(2.0, ratio));
    return (int) Math.max(minimum, Math.min(maximum, Math.round(scaled)));
  }
}

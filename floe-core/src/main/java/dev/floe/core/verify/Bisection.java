package dev.floe.core.verify;

/**
 * What to do with a slice whose digests differ: compare it row by row when it is small, else split
 * it into {@code fanout} parts of equal key counts (a k-way bisection: few differences spread over
 * a big slice are found in log_fanout(slice / rowLimit) rounds, each reading the mismatching ranges
 * about twice).
 *
 * @param rowLimit slices of at most this many keys are compared row by row
 * @param fanout how many parts a mismatching slice is split into
 */
public record Bisection(int rowLimit, int fanout) {

  public static final Bisection DEFAULT = new Bisection(100, 16);

  public Bisection {
    if (rowLimit < 1) {
      throw new IllegalArgumentException("rowLimit must be >= 1, got " + rowLimit);
    }
    if (fanout < 2) {
      throw new IllegalArgumentException("fanout must be >= 2, got " + fanout);
    }
  }

  /** Splits in two. */
  public Bisection(int rowLimit) {
    this(rowLimit, 2);
  }

  /** How many keys each part of a mismatching slice gets (the last part may get fewer). */
  public long partKeys(Slice slice) {
    return Math.max(1, (slice.keys() + fanout - 1) / fanout);
  }

  /** Whether a mismatching slice of this many MySQL keys is compared row by row. */
  public boolean compareRows(Slice slice) {
    return slice.keys() <= rowLimit;
  }

  /** The offset of the key that starts the upper half (the lower half keeps this many keys). */
  public long splitOffset(Slice slice) {
    return slice.keys() / 2;
  }
}

package dev.floe.core.verify;

/**
 * What to do with a slice whose digests differ: compare it row by row when it is small, else split
 * it at its middle key.
 *
 * @param rowLimit slices of at most this many keys are compared row by row
 */
public record Bisection(int rowLimit) {

  public static final Bisection DEFAULT = new Bisection(100);

  public Bisection {
    if (rowLimit < 1) {
      throw new IllegalArgumentException("rowLimit must be >= 1, got " + rowLimit);
    }
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

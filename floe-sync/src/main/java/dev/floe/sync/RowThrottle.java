package dev.floe.sync;

/**
 * Caps the rows per second the snapshot reads from MySQL, over all workers, so a copy can be made
 * gentle on a busy source. Zero means no cap.
 */
final class RowThrottle {

  private final long rowsPerSecond;
  private long nextFreeNanos = System.nanoTime();

  RowThrottle(long rowsPerSecond) {
    if (rowsPerSecond < 0) {
      throw new IllegalArgumentException(
          "rowsPerSecond must not be negative, got " + rowsPerSecond);
    }
    this.rowsPerSecond = rowsPerSecond;
  }

  static RowThrottle unlimited() {
    return new RowThrottle(0);
  }

  /** Waits until {@code rows} more rows fit under the cap. */
  void acquire(long rows) throws InterruptedException {
    if (rowsPerSecond == 0 || rows == 0) {
      return;
    }
    long waitNanos;
    synchronized (this) {
      long now = System.nanoTime();
      long start = Math.max(now, nextFreeNanos);
      nextFreeNanos = start + rows * 1_000_000_000L / rowsPerSecond;
      waitNanos = start - now;
    }
    if (waitNanos > 0) {
      // pacing, not waiting for a condition: the cap is a rate
      java.util.concurrent.TimeUnit.NANOSECONDS.sleep(waitNanos);
    }
  }
}

package dev.floe.core.verify;

import static java.util.Objects.requireNonNull;

import java.math.BigInteger;

/**
 * The order-independent digest of a set of rows: how many, and the exact sum of their 64-bit row
 * hashes (as unsigned numbers). MySQL computes it with {@code COUNT(*)} and {@code SUM(...)}.
 */
public record SliceDigest(long rows, BigInteger hashSum) {
  public static final SliceDigest EMPTY = new SliceDigest(0, BigInteger.ZERO);

  public SliceDigest {
    requireNonNull(hashSum, "hashSum is null");
  }

  /** This digest with one more row. */
  public SliceDigest plus(long rowHash) {
    return new SliceDigest(rows + 1, hashSum.add(unsigned(rowHash)));
  }

  static BigInteger unsigned(long value) {
    BigInteger result = BigInteger.valueOf(value & Long.MAX_VALUE);
    return value < 0 ? result.setBit(63) : result;
  }

  /** Adds row hashes without allocating per row; not thread-safe. */
  public static final class Accumulator {
    private long rows;
    private long low;
    private long carries;

    public void add(long rowHash) {
      rows++;
      long sum = low + rowHash;
      if (Long.compareUnsigned(sum, low) < 0) {
        carries++;
      }
      low = sum;
    }

    /** Adds everything another accumulator holds. */
    public void add(Accumulator other) {
      rows += other.rows;
      carries += other.carries;
      long sum = low + other.low;
      if (Long.compareUnsigned(sum, low) < 0) {
        carries++;
      }
      low = sum;
    }

    public SliceDigest digest() {
      return new SliceDigest(rows, BigInteger.valueOf(carries).shiftLeft(64).add(unsigned(low)));
    }
  }
}

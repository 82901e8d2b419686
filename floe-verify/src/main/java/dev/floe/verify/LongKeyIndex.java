package dev.floe.verify;

import dev.floe.core.verify.KeyRange;
import dev.floe.core.verify.RowKey;
import dev.floe.core.verify.SliceDigest;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.Optional;

/**
 * The compared lake rows of one mismatching slice of a table keyed by one integer column, as (key,
 * row hash) in two primitive arrays sorted by key: 16 bytes a row, so bisection digests any
 * sub-range, picks part boundaries among the lake's own keys and checks single keys from memory.
 * Immutable once built.
 */
final class LongKeyIndex {

  private final long[] keys;
  private final long[] hashes;

  private LongKeyIndex(long[] keys, long[] hashes) {
    this.keys = keys;
    this.hashes = hashes;
  }

  /** Collects (key, hash) pairs in any order; not thread-safe. */
  static final class Builder {
    private long[] keys = new long[256];
    private long[] hashes = new long[256];
    private int size;

    void add(long key, long hash) {
      if (size == keys.length) {
        keys = Arrays.copyOf(keys, size * 2);
        hashes = Arrays.copyOf(hashes, size * 2);
      }
      keys[size] = key;
      hashes[size] = hash;
      size++;
    }

    void addAll(Builder other) {
      for (int i = 0; i < other.size; i++) {
        add(other.keys[i], other.hashes[i]);
      }
    }

    int size() {
      return size;
    }

    LongKeyIndex build() {
      long[] sortedKeys = Arrays.copyOf(keys, size);
      long[] sortedHashes = Arrays.copyOf(hashes, size);
      sort(sortedKeys, sortedHashes, 0, size - 1);
      return new LongKeyIndex(sortedKeys, sortedHashes);
    }
  }

  int size() {
    return keys.length;
  }

  long key(int position) {
    return keys[position];
  }

  long hash(int position) {
    return hashes[position];
  }

  /** The position of the first key at or after {@code key} (size() when there is none). */
  int firstAtOrAfter(long key) {
    int low = 0;
    int high = keys.length;
    while (low < high) {
      int middle = (low + high) >>> 1;
      if (keys[middle] < key) {
        low = middle + 1;
      } else {
        high = middle;
      }
    }
    return low;
  }

  /** The digest of the rows at positions [from, to). */
  SliceDigest digest(int from, int to) {
    SliceDigest.Accumulator digest = new SliceDigest.Accumulator();
    for (int i = from; i < to; i++) {
      digest.add(hashes[i]);
    }
    return digest.digest();
  }

  /** The digest of the rows whose key is in the range. */
  SliceDigest digest(KeyRange range) {
    return digest(from(range), to(range));
  }

  /** The position of the range's first row. */
  int from(KeyRange range) {
    return range.lower().map(this::position).orElse(0);
  }

  /** The position after the range's last row. */
  int to(KeyRange range) {
    return range.upper().map(this::position).orElse(keys.length);
  }

  /**
   * The position of the first key at or after a MySQL key; a key beyond the range of a long (an
   * unsigned BIGINT) lies after or before every lake key.
   */
  private int position(RowKey key) {
    BigInteger value = new BigInteger(key.values().get(0));
    if (value.bitLength() >= 64) {
      return value.signum() > 0 ? keys.length : 0;
    }
    return firstAtOrAfter(value.longValueExact());
  }

  /** The key of a MySQL key text when it fits a long. */
  static Optional<Long> longKey(RowKey key) {
    BigInteger value = new BigInteger(key.values().get(0));
    return value.bitLength() < 64 ? Optional.of(value.longValueExact()) : Optional.empty();
  }

  /** Sorts both arrays by key (quicksort, insertion sort for short runs). */
  private static void sort(long[] keys, long[] hashes, int low, int high) {
    while (high - low > 16) {
      int middle = (low + high) >>> 1;
      // median of three as the pivot
      if (keys[middle] < keys[low]) {
        swap(keys, hashes, middle, low);
      }
      if (keys[high] < keys[low]) {
        swap(keys, hashes, high, low);
      }
      if (keys[high] < keys[middle]) {
        swap(keys, hashes, high, middle);
      }
      long pivot = keys[middle];
      int left = low;
      int right = high;
      while (left <= right) {
        while (keys[left] < pivot) {
          left++;
        }
        while (keys[right] > pivot) {
          right--;
        }
        if (left <= right) {
          swap(keys, hashes, left, right);
          left++;
          right--;
        }
      }
      // recurse into the smaller part, loop on the larger: the stack stays logarithmic
      if (right - low < high - left) {
        sort(keys, hashes, low, right);
        low = left;
      } else {
        sort(keys, hashes, left, high);
        high = right;
      }
    }
    for (int i = low + 1; i <= high; i++) {
      long key = keys[i];
      long hash = hashes[i];
      int j = i - 1;
      while (j >= low && keys[j] > key) {
        keys[j + 1] = keys[j];
        hashes[j + 1] = hashes[j];
        j--;
      }
      keys[j + 1] = key;
      hashes[j + 1] = hash;
    }
  }

  private static void swap(long[] keys, long[] hashes, int i, int j) {
    long key = keys[i];
    keys[i] = keys[j];
    keys[j] = key;
    long hash = hashes[i];
    hashes[i] = hashes[j];
    hashes[j] = hash;
  }
}

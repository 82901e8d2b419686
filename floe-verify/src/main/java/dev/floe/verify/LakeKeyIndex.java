package dev.floe.verify;

import static java.util.Objects.requireNonNull;

import dev.floe.core.verify.KeyRange;
import dev.floe.core.verify.RowKey;
import dev.floe.core.verify.SliceDigest;
import java.util.Comparator;
import java.util.List;

/**
 * The compared lake rows of one mismatching slice as (key, row hash), sorted by key, so bisection
 * digests any sub-range from memory instead of reading the lake again. Memory: one entry per lake
 * row of the slice. Immutable.
 */
final class LakeKeyIndex {

  private final List<RowKey> keys;
  private final long[] hashes;
  private final Comparator<RowKey> order;

  LakeKeyIndex(List<RowKey> sortedKeys, long[] hashes, Comparator<RowKey> order) {
    this.keys = List.copyOf(requireNonNull(sortedKeys, "sortedKeys is null"));
    this.hashes = requireNonNull(hashes, "hashes is null").clone();
    this.order = requireNonNull(order, "order is null");
    if (keys.size() != hashes.length) {
      throw new IllegalArgumentException("one hash per key");
    }
  }

  /** The digest of the rows whose key is in the range. */
  SliceDigest digest(KeyRange range) {
    int from = range.lower().map(this::firstAtOrAfter).orElse(0);
    int to = range.upper().map(this::firstAtOrAfter).orElse(keys.size());
    SliceDigest.Accumulator digest = new SliceDigest.Accumulator();
    for (int i = from; i < to; i++) {
      digest.add(hashes[i]);
    }
    return digest.digest();
  }

  private int firstAtOrAfter(RowKey key) {
    int low = 0;
    int high = keys.size();
    while (low < high) {
      int middle = (low + high) >>> 1;
      if (order.compare(keys.get(middle), key) < 0) {
        low = middle + 1;
      } else {
        high = middle;
      }
    }
    return low;
  }
}

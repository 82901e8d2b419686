package dev.floe.server;

import java.util.ArrayList;
import java.util.List;

/**
 * Data files by size, in power-of-two buckets: bucket {@code [2^k, 2^(k+1))} holds the files of at
 * least {@code 2^k} and fewer than {@code 2^(k+1)} bytes (files of 0 or 1 byte are in {@code [0,
 * 2)}). Pure; not thread-safe (fill it, then read it).
 */
public final class FileSizeHistogram {

  /** One bucket: sizes in {@code [minBytes, maxBytes)}. */
  public record Bucket(long minBytes, long maxBytes, long files, long bytes) {}

  private final long[] files = new long[64];
  private final long[] bytes = new long[64];

  /** Counts one file. */
  public void add(long sizeBytes) {
    int index = index(Math.max(0, sizeBytes));
    files[index]++;
    bytes[index] += Math.max(0, sizeBytes);
  }

  /** The buckets from the smallest to the largest non-empty one, empty buckets between included. */
  public List<Bucket> buckets() {
    int first = -1;
    int last = -1;
    for (int i = 0; i < files.length; i++) {
      if (files[i] > 0) {
        first = first < 0 ? i : first;
        last = i;
      }
    }
    List<Bucket> buckets = new ArrayList<>();
    for (int i = Math.max(first, 0); first >= 0 && i <= last; i++) {
      long min = i == 0 ? 0 : 1L << i;
      long max = i >= 62 ? Long.MAX_VALUE : 1L << (i + 1);
      buckets.add(new Bucket(min, max, files[i], bytes[i]));
    }
    return buckets;
  }

  private static int index(long size) {
    return size < 2 ? 0 : 63 - Long.numberOfLeadingZeros(size);
  }
}

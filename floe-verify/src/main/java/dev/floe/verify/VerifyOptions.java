package dev.floe.verify;

import static java.util.Objects.requireNonNull;

import dev.floe.core.verify.Bisection;
import dev.floe.core.verify.SliceSizer;
import java.time.Duration;

/**
 * How hard verify may work the source.
 *
 * @param threads slices compared at once
 * @param maximumQueries MySQL queries running at once (the connection pool size)
 * @param sliceSizer the adaptive slice size toward a target time per digest query
 * @param bisection when a mismatching slice is compared row by row
 * @param maximumThreadsRunning pause while the source's Threads_running (minus verify's own
 *     queries) is above this
 * @param loadCheckEvery how often Threads_running is read
 * @param keyLimit keys kept per kind of difference (counts are exact)
 */
public record VerifyOptions(
    int threads,
    int maximumQueries,
    SliceSizer sliceSizer,
    Bisection bisection,
    long maximumThreadsRunning,
    Duration loadCheckEvery,
    int keyLimit) {

  public VerifyOptions {
    if (threads < 1) {
      throw new IllegalArgumentException("threads must be >= 1, got " + threads);
    }
    if (maximumQueries < 1) {
      throw new IllegalArgumentException("maximumQueries must be >= 1, got " + maximumQueries);
    }
    requireNonNull(sliceSizer, "sliceSizer is null");
    requireNonNull(bisection, "bisection is null");
    requireNonNull(loadCheckEvery, "loadCheckEvery is null");
  }

  public static VerifyOptions defaults() {
    return new VerifyOptions(
        2, 2, SliceSizer.DEFAULT, Bisection.DEFAULT, 32, Duration.ofSeconds(1), 1_000);
  }

  public VerifyOptions withThreads(int newThreads) {
    return new VerifyOptions(
        newThreads,
        newThreads,
        sliceSizer,
        bisection,
        maximumThreadsRunning,
        loadCheckEvery,
        keyLimit);
  }

  public VerifyOptions withSliceSizer(SliceSizer newSizer) {
    return new VerifyOptions(
        threads,
        maximumQueries,
        newSizer,
        bisection,
        maximumThreadsRunning,
        loadCheckEvery,
        keyLimit);
  }

  public VerifyOptions withMaximumQueries(int newMaximum) {
    return new VerifyOptions(
        threads,
        newMaximum,
        sliceSizer,
        bisection,
        maximumThreadsRunning,
        loadCheckEvery,
        keyLimit);
  }

  public VerifyOptions withMaximumThreadsRunning(long newMaximum) {
    return new VerifyOptions(
        threads, maximumQueries, sliceSizer, bisection, newMaximum, loadCheckEvery, keyLimit);
  }
}

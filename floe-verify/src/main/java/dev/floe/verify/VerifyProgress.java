package dev.floe.verify;

import java.time.Duration;

/** What a running verification reports; called from worker threads. */
public interface VerifyProgress {

  /**
   * One slice is done.
   *
   * @param slicesDone slices compared so far
   * @param slicesFound slices found so far by walking the key index
   * @param walkDone whether the key walk reached the end (slicesFound is the total)
   * @param rows MySQL rows compared so far
   * @param elapsed time since the start
   */
  void sliceDone(long slicesDone, long slicesFound, boolean walkDone, long rows, Duration elapsed);

  /**
   * One mismatching slice has been narrowed down to its differing rows.
   *
   * @param slicesDone mismatching slices narrowed so far
   * @param slicesMismatching mismatching slices in all
   * @param elapsed time since the start
   */
  default void sliceNarrowed(long slicesDone, long slicesMismatching, Duration elapsed) {}

  /** Verify is holding back because the source is busy. */
  void paused(String reason);

  VerifyProgress NONE =
      new VerifyProgress() {
        @Override
        public void sliceDone(
            long slicesDone, long slicesFound, boolean walkDone, long rows, Duration elapsed) {}

        @Override
        public void paused(String reason) {}
      };
}

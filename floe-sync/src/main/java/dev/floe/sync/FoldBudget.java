package dev.floe.sync;

/**
 * How many changed keys the writers of one subtask may hold back, together, until their checkpoint
 * closes (docs/sync.md, "Few deletes, no duplicates"). A writer takes one unit per key it holds and
 * gives its units back when it writes what it held. The bound is for the whole subtask, however
 * many tables change in one checkpoint.
 *
 * <p>Not thread-safe: one per writer subtask, used by its task thread only.
 */
final class FoldBudget {

  /** What a writer subtask holds back at most: about 25 MiB of rows of a few hundred bytes. */
  static final int DEFAULT_KEYS = 50_000;

  private final int limit;
  private int held;

  FoldBudget(int limit) {
    if (limit < 0) {
      throw new IllegalArgumentException("limit is negative: " + limit);
    }
    this.limit = limit;
  }

  /** Takes one unit; false (nothing taken) when the budget is spent. */
  boolean take() {
    if (held >= limit) {
      return false;
    }
    held++;
    return true;
  }

  void release(int units) {
    if (units < 0 || units > held) {
      throw new IllegalStateException("releasing " + units + " of " + held + " held");
    }
    held -= units;
  }

  int held() {
    return held;
  }
}

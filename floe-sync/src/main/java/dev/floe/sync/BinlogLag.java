package dev.floe.sync;

import static java.util.Objects.requireNonNull;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * How far a sync's lake is behind its source, from binlog positions rather than from the last
 * change alone.
 *
 * <p>The lake is complete up to the MySQL commit time of the newest change it holds (the
 * watermark). That alone makes an idle sync look ever further behind: no change, no newer
 * watermark. So each observation also records the server's binlog head and when it was read, and
 * compares the position the sync has read and checkpointed up to (which binlog heartbeats move on
 * while no captured change arrives) with the heads seen before: once the sync is at or past a head
 * read at time T, everything written before T is in the lake, changed table or not. An idle source
 * therefore lags by about zero, a busy server whose other databases keep writing by about the
 * heartbeat plus the checkpoint interval, and one change after an hour of quiet by seconds, not by
 * an hour.
 *
 * <p>No I/O and no clock: callers pass positions and times. Not thread-safe.
 */
final class BinlogLag {

  /** Heads not yet reached that are remembered; beyond it the oldest go (the lag only grows). */
  static final int MAX_PENDING_HEADS = 10_000;

  private record Head(BinlogPosition position, long readAtMillis) {}

  private final Deque<Head> pending = new ArrayDeque<>();
  private OptionalLong completeUpTo = OptionalLong.empty();

  /**
   * Takes one observation.
   *
   * @param processed the binlog position the sync has read and checkpointed up to; empty when no
   *     checkpoint says
   * @param head the server's binlog head; empty when it could not be read
   * @param headReadAtMillis when the head was read (taken before asking)
   * @param watermarkMillis the MySQL commit time of the newest change in the lake, if any
   */
  void observe(
      Optional<BinlogPosition> processed,
      Optional<BinlogPosition> head,
      long headReadAtMillis,
      OptionalLong watermarkMillis) {
    requireNonNull(processed, "processed is null");
    requireNonNull(head, "head is null");
    requireNonNull(watermarkMillis, "watermarkMillis is null");
    head.ifPresent(position -> pending.addLast(new Head(position, headReadAtMillis)));
    if (pending.size() > MAX_PENDING_HEADS) {
      pending.removeFirst();
    }
    if (processed.isPresent()) {
      while (!pending.isEmpty() && pending.peekFirst().position().compareTo(processed.get()) <= 0) {
        completeUpTo = max(completeUpTo, OptionalLong.of(pending.removeFirst().readAtMillis()));
      }
    }
    completeUpTo = max(completeUpTo, watermarkMillis);
  }

  /** The MySQL time (epoch milliseconds) up to which the lake is known complete, if known. */
  OptionalLong completeUpTo() {
    return completeUpTo;
  }

  /** Now minus the time the lake is complete up to, never negative; empty when unknown. */
  OptionalLong lagMillis(long nowMillis) {
    return completeUpTo.isPresent()
        ? OptionalLong.of(Math.max(0, nowMillis - completeUpTo.getAsLong()))
        : OptionalLong.empty();
  }

  private static OptionalLong max(OptionalLong first, OptionalLong second) {
    if (first.isEmpty()) {
      return second;
    }
    if (second.isEmpty()) {
      return first;
    }
    return OptionalLong.of(Math.max(first.getAsLong(), second.getAsLong()));
  }
}

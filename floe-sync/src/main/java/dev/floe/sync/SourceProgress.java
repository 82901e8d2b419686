package dev.floe.sync;

import java.util.Map;

/**
 * How far a sync has read its source, as each commit records it in its snapshot summary: a binlog
 * position (MySQL) or the next offset of each Kafka partition ({@link KafkaOffsets}). Immutable.
 *
 * <p>{@link #NONE} (no position yet) is the neutral element of {@link #merge}.
 */
sealed interface SourceProgress permits BinlogPosition, KafkaOffsets {

  /** No progress yet. */
  SourceProgress NONE = BinlogPosition.NONE;

  /** Whether this is {@link #NONE}, or Kafka offsets of no partition. */
  boolean isEmpty();

  /**
   * The progress that covers both: the later binlog position; per Kafka partition the higher next
   * offset.
   *
   * @throws IllegalArgumentException for progress of two kinds of source
   */
  SourceProgress merge(SourceProgress other);

  /**
   * The entries a commit records in its snapshot summary ({@code floe.binlog-*}, {@code
   * floe.kafka.*}).
   */
  Map<String, String> summary();
}

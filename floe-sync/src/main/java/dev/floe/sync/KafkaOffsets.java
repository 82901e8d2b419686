package dev.floe.sync;

import static java.util.Objects.requireNonNull;

import dev.floe.core.sync.SyncSummary;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The next offset to read per Kafka partition: every message below it has been read (and, in a
 * commit's summary, is in the table). Immutable.
 *
 * @param next per partition, the offset after the last message read
 */
record KafkaOffsets(SortedMap<Partition, Long> next)
    implements SourceProgress, java.io.Serializable {

  /** No partition read yet. */
  static final KafkaOffsets EMPTY = new KafkaOffsets(new TreeMap<>());

  /** One partition of one topic. */
  record Partition(String topic, int partition)
      implements Comparable<Partition>, java.io.Serializable {
    Partition {
      requireNonNull(topic, "topic is null");
    }

    @Override
    public int compareTo(Partition other) {
      int byTopic = topic.compareTo(other.topic);
      return byTopic != 0 ? byTopic : Integer.compare(partition, other.partition);
    }

    @Override
    public String toString() {
      return topic + "/" + partition;
    }
  }

  KafkaOffsets {
    next = Collections.unmodifiableSortedMap(new TreeMap<>(requireNonNull(next, "next is null")));
  }

  static KafkaOffsets of(Map<Partition, Long> next) {
    return new KafkaOffsets(new TreeMap<>(next));
  }

  @Override
  public boolean isEmpty() {
    return next.isEmpty();
  }

  @Override
  public SourceProgress merge(SourceProgress other) {
    if (other.isEmpty()) {
      return this;
    }
    if (!(other instanceof KafkaOffsets kafka)) {
      throw new IllegalArgumentException("cannot merge Kafka offsets with " + other);
    }
    if (isEmpty()) {
      return kafka;
    }
    TreeMap<Partition, Long> merged = new TreeMap<>(next);
    kafka.next.forEach((partition, offset) -> merged.merge(partition, offset, Math::max));
    return new KafkaOffsets(merged);
  }

  /** The next offset of a partition, if read. */
  java.util.Optional<Long> next(Partition partition) {
    return java.util.Optional.ofNullable(next.get(partition));
  }

  /**
   * {@code floe.kafka.offset.<topic>.<partition>} per partition and {@code floe.kafka.topics} (the
   * topics, sorted, comma-separated).
   */
  @Override
  public Map<String, String> summary() {
    Map<String, String> summary = new LinkedHashMap<>();
    if (next.isEmpty()) {
      return summary;
    }
    TreeSet<String> topics = new TreeSet<>();
    next.forEach(
        (partition, offset) -> {
          topics.add(partition.topic());
          summary.put(
              SyncSummary.KAFKA_OFFSET_PREFIX + partition.topic() + "." + partition.partition(),
              Long.toString(offset));
        });
    summary.put(SyncSummary.KAFKA_TOPICS, String.join(",", topics));
    return summary;
  }

  /**
   * The offsets a snapshot summary records ({@link #summary()}); empty when it records none.
   *
   * @throws IllegalArgumentException for an offset entry that is not {@code <topic>.<partition> =
   *     number}
   */
  static KafkaOffsets fromSummary(Map<String, String> summary) {
    TreeMap<Partition, Long> next = new TreeMap<>();
    summary.forEach(
        (key, value) -> {
          if (key.startsWith(SyncSummary.KAFKA_OFFSET_PREFIX)) {
            String rest = key.substring(SyncSummary.KAFKA_OFFSET_PREFIX.length());
            int dot = rest.lastIndexOf('.');
            try {
              next.put(
                  new Partition(rest.substring(0, dot), Integer.parseInt(rest.substring(dot + 1))),
                  Long.parseLong(value));
            } catch (RuntimeException malformed) {
              throw new IllegalArgumentException(
                  "the snapshot summary entry " + key + "=" + value + " is not a Kafka offset",
                  malformed);
            }
          }
        });
    return new KafkaOffsets(next);
  }

  @Override
  public String toString() {
    return next.toString();
  }
}

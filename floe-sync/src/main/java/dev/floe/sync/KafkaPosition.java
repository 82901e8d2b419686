package dev.floe.sync;

import static java.util.Objects.requireNonNull;

/**
 * A Kafka message's place: topic, partition, offset.
 *
 * @param offset the message's own offset; the partition's next offset after it is {@code offset +
 *     1}
 */
record KafkaPosition(String topic, int partition, long offset) implements SourcePosition {

  KafkaPosition {
    requireNonNull(topic, "topic is null");
  }

  @Override
  public KafkaOffsets.Partition stream() {
    return new KafkaOffsets.Partition(topic, partition);
  }

  @Override
  public KafkaOffsets progress() {
    return KafkaOffsets.of(java.util.Map.of(stream(), offset + 1));
  }

  @Override
  public String toString() {
    return topic + "/" + partition + "@" + offset;
  }
}

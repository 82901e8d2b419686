package dev.floe.sync;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;
import org.apache.kafka.common.TopicPartition;

/**
 * Where a fresh Kafka sync job starts each partition: at the offsets the runner worked out (the
 * tables' own, or {@code --starting-offsets}), and a partition it did not know of (created since)
 * from its beginning. Never the consumer group's committed offsets, which are for monitoring only.
 * An offset Kafka no longer has fails the read ({@link OffsetResetStrategy#NONE}) instead of
 * skipping to another.
 */
final class KafkaStartOffsets implements OffsetsInitializer {

  private static final long serialVersionUID = 1L;

  private final Map<String, Map<Integer, Long>> offsets;

  KafkaStartOffsets(KafkaOffsets start) {
    Map<String, Map<Integer, Long>> byTopic = new HashMap<>();
    start
        .next()
        .forEach(
            (partition, offset) ->
                byTopic
                    .computeIfAbsent(partition.topic(), topic -> new HashMap<>())
                    .put(partition.partition(), offset));
    this.offsets = byTopic;
  }

  @Override
  public Map<TopicPartition, Long> getPartitionOffsets(
      Collection<TopicPartition> partitions, PartitionOffsetsRetriever retriever) {
    Map<TopicPartition, Long> result = new HashMap<>();
    List<TopicPartition> unknown = new java.util.ArrayList<>();
    for (TopicPartition partition : partitions) {
      Long offset = offsets.getOrDefault(partition.topic(), Map.of()).get(partition.partition());
      if (offset == null) {
        unknown.add(partition);
      } else {
        result.put(partition, offset);
      }
    }
    if (!unknown.isEmpty()) {
      result.putAll(retriever.beginningOffsets(unknown));
    }
    return result;
  }

  @Override
  public OffsetResetStrategy getAutoOffsetResetStrategy() {
    return OffsetResetStrategy.NONE;
  }
}

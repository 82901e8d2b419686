package dev.floe.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.floe.core.sync.SyncSummary;
import java.util.Map;
import org.junit.jupiter.api.Test;

class KafkaOffsetsTest {

  private static KafkaOffsets.Partition partition(String topic, int partition) {
    return new KafkaOffsets.Partition(topic, partition);
  }

  @Test
  void mergeKeepsTheHigherNextOffsetPerPartition() {
    KafkaOffsets one = KafkaOffsets.of(Map.of(partition("t", 0), 5L, partition("t", 1), 9L));
    KafkaOffsets two = KafkaOffsets.of(Map.of(partition("t", 0), 7L, partition("u", 0), 1L));
    assertThat(one.merge(two))
        .isEqualTo(
            KafkaOffsets.of(
                Map.of(partition("t", 0), 7L, partition("t", 1), 9L, partition("u", 0), 1L)));
    assertThat(one.merge(SourceProgress.NONE)).isSameAs(one);
    assertThat(SourceProgress.NONE.merge(one)).isSameAs(one);
    assertThatThrownBy(() -> one.merge(new BinlogPosition("mysql-bin.000001", 4)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void theSummaryNamesEveryPartitionAndTheTopicsAndReadsBack() {
    KafkaOffsets offsets =
        KafkaOffsets.of(
            Map.of(
                partition("shop.orders", 0),
                12L,
                partition("shop.orders", 2),
                3L,
                partition("a", 1),
                0L));
    Map<String, String> summary = offsets.summary();
    assertThat(summary)
        .containsEntry("floe.kafka.offset.shop.orders.0", "12")
        .containsEntry("floe.kafka.offset.shop.orders.2", "3")
        .containsEntry("floe.kafka.offset.a.1", "0")
        .containsEntry(SyncSummary.KAFKA_TOPICS, "a,shop.orders")
        .hasSize(4);
    assertThat(KafkaOffsets.fromSummary(summary)).isEqualTo(offsets);
    assertThat(KafkaOffsets.EMPTY.summary()).isEmpty();
  }

  @Test
  void aBinlogPositionSummaryIsTheMySqlSyncsKeys() {
    assertThat(new BinlogPosition("mysql-bin.000003", 4711).summary())
        .isEqualTo(
            Map.of(
                SyncSummary.BINLOG_FILE, "mysql-bin.000003", SyncSummary.BINLOG_POSITION, "4711"));
    assertThat(BinlogPosition.NONE.summary()).isEmpty();
  }

  @Test
  void aMalformedOffsetEntryIsNamed() {
    assertThatThrownBy(() -> KafkaOffsets.fromSummary(Map.of("floe.kafka.offset.t.x", "1")))
        .hasMessage("the snapshot summary entry floe.kafka.offset.t.x=1 is not a Kafka offset");
  }
}

package dev.floe.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.testing.KafkaBroker.Message;
import dev.floe.testing.KafkaBroker.Sent;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;

class KafkaBrokerTest {

  @Test
  void keyedMessagesSentToATopicOfThreePartitionsAreReadBackInOrderPerKey() throws Exception {
    Path directory;
    long pid;
    try (KafkaBroker broker = KafkaBroker.start()) {
      directory = broker.directory();
      pid = broker.pid();
      assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive)).contains(true);
      broker.createTopic("orders", 3);
      List<Message> messages =
          IntStream.range(0, 60).mapToObj(i -> Message.of("key-" + (i % 7), "value-" + i)).toList();
      List<Sent> sent = broker.send("orders", messages);
      assertThat(sent).hasSize(60);
      // Keyed: every key's messages are in one partition, and the partitions are all used.
      Map<String, Integer> partitionOfKey = new HashMap<>();
      for (int i = 0; i < sent.size(); i++) {
        Integer earlier =
            partitionOfKey.putIfAbsent(messages.get(i).key(), sent.get(i).partition());
        assertThat(earlier == null || earlier == sent.get(i).partition()).isTrue();
      }
      assertThat(sent.stream().map(Sent::partition).distinct().count()).isGreaterThan(1);

      Map<String, List<String>> readPerKey = new HashMap<>();
      try (KafkaConsumer<byte[], byte[]> consumer = consumer(broker)) {
        List<TopicPartition> partitions =
            List.of(
                new TopicPartition("orders", 0),
                new TopicPartition("orders", 1),
                new TopicPartition("orders", 2));
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        List<ConsumerRecord<byte[], byte[]>> read = new ArrayList<>();
        Poll.until(
            "60 messages read back from orders",
            Duration.ofSeconds(30),
            Duration.ZERO,
            () -> {
              consumer.poll(Duration.ofMillis(500)).forEach(read::add);
              return read.size() >= 60;
            });
        assertThat(read).hasSize(60);
        for (ConsumerRecord<byte[], byte[]> record : read) {
          readPerKey
              .computeIfAbsent(text(record.key()), k -> new ArrayList<>())
              .add(text(record.value()));
        }
      }
      Map<String, List<String>> sentPerKey = new HashMap<>();
      for (Message message : messages) {
        sentPerKey.computeIfAbsent(message.key(), k -> new ArrayList<>()).add(message.value());
      }
      assertThat(readPerKey).isEqualTo(sentPerKey);

      Sent toPartition = broker.sendToPartition("orders", 2, List.of(Message.of("k", "v"))).get(0);
      assertThat(toPartition.partition()).isEqualTo(2);
    }
    assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
    assertThat(Files.exists(directory)).isFalse();
  }

  private static KafkaConsumer<byte[], byte[]> consumer(KafkaBroker broker) {
    Properties properties = new Properties();
    properties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    properties.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    properties.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    return new KafkaConsumer<>(properties);
  }

  private static String text(byte[] bytes) {
    return new String(bytes, StandardCharsets.UTF_8);
  }
}

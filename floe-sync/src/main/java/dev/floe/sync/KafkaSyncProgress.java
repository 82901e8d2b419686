package dev.floe.sync;

import static java.util.Objects.requireNonNull;

import dev.floe.core.sync.SyncSummary;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;

/**
 * Reads a running Kafka sync's {@link KafkaSyncStatus}: its tables' current snapshots (rows, the
 * offsets and source time they record), the end offsets of the partitions its pattern matches, and
 * its rows in the dead-letter table. Each call asks Kafka and the catalog afresh; thread-safe.
 */
public final class KafkaSyncProgress implements AutoCloseable {

  private final Catalog catalog;
  private final KafkaSyncOptions options;
  private final Clock clock;
  private final Admin admin;

  public KafkaSyncProgress(Catalog catalog, KafkaSyncOptions options, Clock clock) {
    this.catalog = requireNonNull(catalog, "catalog is null");
    this.options = requireNonNull(options, "options is null");
    this.clock = requireNonNull(clock, "clock is null");
    Properties properties = new Properties();
    options.kafkaProperties().forEach(properties::setProperty);
    properties.setProperty(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, options.bootstrapServers());
    // default.api.timeout.ms may not be below request.timeout.ms (30 s by default)
    properties.setProperty(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
    properties.setProperty(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "10000");
    this.admin = Admin.create(properties);
  }

  /**
   * @throws IllegalStateException when Kafka or the catalog cannot be read now
   */
  public KafkaSyncStatus status() {
    Map<String, KafkaOffsets> offsets =
        KafkaSyncRunner.tableOffsets(catalog, options.name(), KafkaSyncRunner.namespaces(options));
    long newest = 0;
    Map<KafkaOffsets.Partition, Long> committed = new HashMap<>();
    for (Map.Entry<String, KafkaOffsets> table : offsets.entrySet()) {
      Snapshot current =
          catalog
              .loadTable(org.apache.iceberg.catalog.TableIdentifier.parse(table.getKey()))
              .currentSnapshot();
      if (current != null) {
        newest =
            Math.max(
                newest,
                Long.parseLong(
                    current.summary().getOrDefault(SyncSummary.SOURCE_WATERMARK_MS, "0")));
      }
      table
          .getValue()
          .next()
          .forEach((partition, next) -> committed.merge(partition, next, Math::max));
    }
    long behind = 0;
    int partitions = 0;
    try {
      List<String> topics =
          admin.listTopics().names().get(10, TimeUnit.SECONDS).stream()
              .filter(topic -> options.topicPattern().matcher(topic).matches())
              .toList();
      Map<TopicPartition, OffsetSpec> ends = new HashMap<>();
      for (TopicDescription description :
          admin.describeTopics(topics).allTopicNames().get(10, TimeUnit.SECONDS).values()) {
        description
            .partitions()
            .forEach(
                info ->
                    ends.put(
                        new TopicPartition(description.name(), info.partition()),
                        OffsetSpec.latest()));
      }
      partitions = ends.size();
      for (Map.Entry<
              TopicPartition,
              org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo>
          end : admin.listOffsets(ends).all().get(10, TimeUnit.SECONDS).entrySet()) {
        long read =
            committed.getOrDefault(
                new KafkaOffsets.Partition(end.getKey().topic(), end.getKey().partition()), 0L);
        behind += Math.max(0, end.getValue().offset() - read);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while asking Kafka", e);
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("cannot ask Kafka for its offsets: " + e.getMessage(), e);
    }
    return new KafkaSyncStatus(
        List.copyOf(offsets.keySet()),
        partitions,
        behind,
        rejected(),
        newest > 0
            ? Optional.of(Duration.ofMillis(Math.max(0, clock.millis() - newest)))
            : Optional.empty());
  }

  /** This sync's rows in the dead-letter table (a small table: read with a filter). */
  private long rejected() {
    if (!catalog.tableExists(options.deadLetter())) {
      return 0;
    }
    long count = 0;
    try (CloseableIterable<Record> records =
        IcebergGenerics.read(catalog.loadTable(options.deadLetter()))
            .where(Expressions.equal("sync", options.name()))
            .select("sync")
            .build()) {
      for (Record ignored : records) {
        count++;
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return count;
  }

  @Override
  public void close() {
    admin.close(Duration.ofSeconds(5));
  }
}

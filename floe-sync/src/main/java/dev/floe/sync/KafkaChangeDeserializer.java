package dev.floe.sync;

import static java.util.Objects.requireNonNull;

import dev.floe.core.error.FloeException;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.apache.flink.util.Collector;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns Kafka messages into {@link ChangeRecord}s for the Iceberg writer: decodes each with the
 * format's {@link KafkaMessageDecoder}, finds (creates, widens) its table through {@link
 * KafkaTables}, and sends its rows as upserts and deletes by the primary key. A message that cannot
 * be applied goes to the dead-letter table as a row of its own (or stops the job with {@code
 * --on-bad-message fail}); nothing is dropped silently.
 *
 * <p>Restart without checkpoints: a message of table T at an offset below T's own recorded next
 * offset for that partition is already in T and is skipped ({@code alreadyHeld}).
 *
 * <p>Every change carries its message's topic, partition and offset ({@link KafkaPosition}), from
 * which the committer records the offsets each commit covers.
 */
final class KafkaChangeDeserializer implements KafkaRecordDeserializationSchema<ChangeRecord> {

  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(KafkaChangeDeserializer.class);

  private final CatalogLoader catalogLoader;
  private final SyncTargets targets;
  private final String syncName;
  private final KafkaMessageDecoder decoder;
  private final Map<String, String> partitions;
  private final Map<String, KafkaOffsets> alreadyHeld;
  private final String deadLetter;
  private final KafkaSyncOptions.OnBadMessage onBadMessage;
  private final boolean typesFromTable;

  private transient KafkaTables tables;
  private transient Counter rejected;

  /**
   * @param alreadyHeld per Iceberg table ({@code namespace.table}), the offsets its newest commit
   *     recorded when the job was built: messages below them are in the table
   */
  KafkaChangeDeserializer(
      CatalogLoader catalogLoader,
      SyncTargets targets,
      String syncName,
      KafkaMessageDecoder decoder,
      Map<String, String> partitions,
      Map<String, KafkaOffsets> alreadyHeld,
      TableIdentifier deadLetter,
      KafkaSyncOptions.OnBadMessage onBadMessage,
      boolean typesFromTable) {
    this.catalogLoader = requireNonNull(catalogLoader, "catalogLoader is null");
    this.targets = requireNonNull(targets, "targets is null");
    this.syncName = requireNonNull(syncName, "syncName is null");
    this.decoder = requireNonNull(decoder, "decoder is null");
    this.partitions = Map.copyOf(partitions);
    this.alreadyHeld = Map.copyOf(alreadyHeld);
    this.deadLetter = requireNonNull(deadLetter, "deadLetter is null").toString();
    this.onBadMessage = requireNonNull(onBadMessage, "onBadMessage is null");
    this.typesFromTable = typesFromTable;
  }

  @Override
  public void open(DeserializationSchema.InitializationContext context) {
    rejected = context.getMetricGroup().counter("rejectedMessages");
  }

  @Override
  public void deserialize(ConsumerRecord<byte[], byte[]> message, Collector<ChangeRecord> out) {
    if (tables == null) {
      tables = new KafkaTables(catalogLoader.open(), targets, syncName, partitions, typesFromTable);
    }
    KafkaPosition at = new KafkaPosition(message.topic(), message.partition(), message.offset());
    KafkaMessageDecoder.Decoded decoded = decoder.decode(message.key(), message.value());
    if (decoded instanceof KafkaMessageDecoder.Rejected rejection) {
      reject(message, at, rejection.reason(), out);
      return;
    }
    if (!(decoded instanceof KafkaMessageDecoder.Changes changes)) {
      return; // DDL, tombstones, heartbeats: nothing to apply
    }
    java.util.List<ChangeRecord> records = new java.util.ArrayList<>();
    try {
      for (DecodedChange change : changes.changes()) {
        if (!targets.matches(change.table().qualifiedName())) {
          continue; // a table --tables leaves out
        }
        KafkaTables.Target table = tables.table(change.table());
        if (held(table.key, at)) {
          continue;
        }
        records(table, change, at, records);
      }
    } catch (KafkaTables.Rejection rejection) {
      reject(message, at, rejection.getMessage(), out);
      return;
    }
    records.forEach(out::collect);
  }

  /** Whether the table already holds this message (it recorded a later offset). */
  private boolean held(String table, KafkaPosition at) {
    KafkaOffsets offsets = alreadyHeld.get(table);
    if (offsets == null) {
      return false;
    }
    Optional<Long> next = offsets.next(new KafkaOffsets.Partition(at.topic(), at.partition()));
    return next.isPresent() && at.offset() < next.get();
  }

  private static void records(
      KafkaTables.Target table,
      DecodedChange change,
      KafkaPosition at,
      java.util.List<ChangeRecord> out) {
    int schemaId = table.schema.schemaId();
    long millis = change.sourceMillis();
    switch (change.kind()) {
      case INSERT -> out.add(upsert(table, change, change.after().orElseThrow(), at, millis));
      case DELETE -> out.add(delete(table, change, change.before().orElseThrow(), at, millis));
      case UPDATE -> {
        ChangeRecord after = upsert(table, change, change.after().orElseThrow(), at, millis);
        Object[] before = table.values(change.table(), change.before().orElseThrow());
        String beforeKey = ChangeDeserializer.routingKey(table.key, table.keyPositions, before);
        if (!beforeKey.equals(after.key())) {
          // the key changed: the row under the old key goes
          out.add(
              new ChangeRecord(
                  table.key,
                  ChangeRecord.Operation.DELETE,
                  before,
                  beforeKey,
                  schemaId,
                  schemaId,
                  at,
                  millis));
        }
        out.add(after);
      }
    }
  }

  private static ChangeRecord upsert(
      KafkaTables.Target table,
      DecodedChange change,
      Map<String, Object> row,
      KafkaPosition at,
      long millis) {
    return record(table, ChangeRecord.Operation.UPSERT, change, row, at, millis);
  }

  private static ChangeRecord delete(
      KafkaTables.Target table,
      DecodedChange change,
      Map<String, Object> row,
      KafkaPosition at,
      long millis) {
    return record(table, ChangeRecord.Operation.DELETE, change, row, at, millis);
  }

  /**
   * A change as the writer takes it. Inserts are upserts: a message read again (after a restart
   * without checkpoints, or a producer's retry) replaces its row instead of doubling it. The schema
   * version is the schema id: the readers of several partitions change a table's schema side by
   * side, and its ids only grow, so the committer commits rows of an older schema first.
   */
  private static ChangeRecord record(
      KafkaTables.Target table,
      ChangeRecord.Operation operation,
      DecodedChange change,
      Map<String, Object> row,
      KafkaPosition at,
      long millis) {
    Object[] values = table.values(change.table(), row);
    for (int position : table.keyPositions) {
      if (values[position] == null) {
        throw new KafkaTables.Rejection(
            "the message of "
                + change.table().qualifiedName()
                + " has no value for key column "
                + table.schema.columns().get(position).name());
      }
    }
    if (operation != ChangeRecord.Operation.DELETE) {
      for (int position : table.requiredPositions) {
        if (values[position] == null) {
          throw new KafkaTables.Rejection(
              "the message of "
                  + change.table().qualifiedName()
                  + " has no value for column "
                  + table.schema.columns().get(position).name()
                  + ", which is NOT NULL in Iceberg table "
                  + table.key);
        }
      }
    }
    int schemaId = table.schema.schemaId();
    if (table.keyPositions.length == 0) {
      // A table without a key (plain JSON without --key) is appended to; its rows spread over
      // the writers by partition, each partition's in order.
      return new ChangeRecord(
          table.key,
          ChangeRecord.Operation.INSERT,
          values,
          table.key + "\u0001" + at.topic() + "\u0001" + at.partition(),
          schemaId,
          schemaId,
          at,
          millis);
    }
    return new ChangeRecord(
        table.key,
        operation,
        values,
        ChangeDeserializer.routingKey(table.key, table.keyPositions, values),
        schemaId,
        schemaId,
        at,
        millis);
  }

  /** The message to the dead-letter table, or the job stopped with the reason. */
  private void reject(
      ConsumerRecord<byte[], byte[]> message,
      KafkaPosition at,
      String reason,
      Collector<ChangeRecord> out) {
    String where =
        "topic " + at.topic() + " partition " + at.partition() + " offset " + at.offset();
    if (onBadMessage == KafkaSyncOptions.OnBadMessage.FAIL) {
      // The same message fails the same way after every restart: fail once, with the reason.
      throw new SuppressRestartsException(
          FloeException.badInput(
              "The Kafka message at "
                  + where
                  + " cannot be applied: "
                  + reason
                  + ". Fix the message's producer, or run with --on-bad-message dead-letter to"
                  + " keep such messages in "
                  + deadLetter
                  + " and go on."));
    }
    if (rejected != null) {
      rejected.inc();
    }
    LOG.warn("rejected the Kafka message at {}: {} (kept in {})", where, reason, deadLetter);
    KafkaTables.Target table = tables.deadLetters(TableIdentifier.parse(deadLetter));
    if (held(table.key, at)) {
      return;
    }
    Object[] values = new Object[KafkaTables.DEAD_LETTER_SCHEMA.columns().size()];
    values[0] = syncName;
    values[1] = at.topic();
    values[2] = at.partition();
    values[3] = at.offset();
    values[4] =
        message.timestamp() < 0
            ? null
            : OffsetDateTime.ofInstant(Instant.ofEpochMilli(message.timestamp()), ZoneOffset.UTC);
    values[5] = message.key() == null ? null : ByteBuffer.wrap(message.key().clone());
    values[6] = message.value() == null ? null : ByteBuffer.wrap(message.value().clone());
    values[7] = reason;
    int schemaId = table.schema.schemaId();
    out.collect(
        new ChangeRecord(
            table.key,
            ChangeRecord.Operation.UPSERT,
            values,
            ChangeDeserializer.routingKey(table.key, table.keyPositions, values),
            schemaId,
            schemaId,
            at,
            0));
  }

  @Override
  public TypeInformation<ChangeRecord> getProducedType() {
    return new SerializerTypeInfo<>(ChangeRecord.class, ChangeRecordSerializer.INSTANCE);
  }

  @Override
  public String toString() {
    return "KafkaChangeDeserializer" + Arrays.asList(targets, decoder);
  }
}

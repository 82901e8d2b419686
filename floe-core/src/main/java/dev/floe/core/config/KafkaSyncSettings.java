package dev.floe.core.config;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The Kafka keys of floe.yaml's {@code sync:} section: defaults for {@code floe sync --source
 * kafka://...}; its flags override each value.
 *
 * @param topics a regular expression over whole topic names ({@code sync.topics})
 * @param format the messages' format: canal-json, debezium-json or maxwell-json ({@code
 *     sync.format})
 * @param startingOffsets where a first start reads: earliest, latest or timestamp:EPOCH_MS ({@code
 *     sync.starting-offsets})
 * @param properties Kafka client properties, e.g. security.protocol, sasl.*, ssl.* ({@code
 *     sync.kafka.properties}); values of secret-named keys are never printed
 * @param deadLetter the table rejected messages go to, NS.TABLE ({@code sync.dead-letter})
 * @param onBadMessage dead-letter or fail ({@code sync.on-bad-message})
 * @param target plain JSON: the table every message is a row of ({@code sync.target})
 * @param key plain JSON: the columns rows are upserted by; empty: appended ({@code sync.key})
 * @param schema plain JSON: the target's columns, {@code NAME TYPE [NOT NULL], ...} ({@code
 *     sync.kafka.schema}); empty: the existing table's, else inferred
 */
public record KafkaSyncSettings(
    Optional<String> topics,
    Optional<String> format,
    Optional<String> startingOffsets,
    Map<String, String> properties,
    Optional<String> deadLetter,
    Optional<String> onBadMessage,
    Optional<String> target,
    List<String> key,
    Optional<String> schema) {

  public KafkaSyncSettings {
    requireNonNull(topics, "topics is null");
    requireNonNull(format, "format is null");
    requireNonNull(startingOffsets, "startingOffsets is null");
    properties = Map.copyOf(requireNonNull(properties, "properties is null"));
    requireNonNull(deadLetter, "deadLetter is null");
    requireNonNull(onBadMessage, "onBadMessage is null");
    requireNonNull(target, "target is null");
    key = List.copyOf(requireNonNull(key, "key is null"));
    requireNonNull(schema, "schema is null");
  }

  public static KafkaSyncSettings defaults() {
    return new KafkaSyncSettings(
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        Map.of(),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        List.of(),
        Optional.empty());
  }
}

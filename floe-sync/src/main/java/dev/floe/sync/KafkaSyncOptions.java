package dev.floe.sync;

import static java.util.Objects.requireNonNull;

import dev.floe.core.error.FloeException;
import dev.floe.core.sync.PartitionSpecs;
import dev.floe.core.sync.TableSelection;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * One Kafka sync's settings ({@code floe sync --source kafka://...}, docs/kafka.md).
 *
 * @param name names the job and its state directory; a restart with the same name resumes
 * @param bootstrapServers the brokers, {@code HOST:PORT[,HOST:PORT...]}
 * @param topics a regular expression over whole topic names
 * @param format how the messages are written
 * @param selection which source tables ({@code db.table} in the messages), and where they land
 * @param checkpointInterval how often changes are committed to Iceberg
 * @param parallelism source readers and Iceberg writers
 * @param stateDirectory where checkpoints and savepoints of this sync live
 * @param startingOffsets where a partition no table has offsets of is read from on a first start
 * @param kafkaProperties Kafka client properties (security, SASL, TLS), passed as they are
 * @param partitions partitioning of tables the sync creates, per source table or route's table
 * @param serverTimeZone the zone of the MySQL server the messages come from, for TIMESTAMP text
 *     (Canal, Maxwell)
 * @param deadLetter the table rejected messages go to
 * @param onBadMessage what a message that cannot be applied does
 * @param target plain JSON ({@link KafkaFormat#JSON}): the one table, {@code NS.TABLE}, every
 *     message is a row of
 * @param key plain JSON: the columns rows are upserted by; empty: rows are appended
 * @param schema plain JSON: the target table's declared columns ({@code --schema}, {@code
 *     sync.kafka.schema}, read by {@link dev.floe.core.sync.DeclaredSchema}); the table is created
 *     from them when missing, and an existing table must have them. Empty: the existing table's
 *     columns, else inferred from the messages
 */
public record KafkaSyncOptions(
    String name,
    String bootstrapServers,
    String topics,
    KafkaFormat format,
    TableSelection selection,
    Duration checkpointInterval,
    int parallelism,
    StateDirectory stateDirectory,
    StartingOffsets startingOffsets,
    Map<String, String> kafkaProperties,
    Map<String, String> partitions,
    ZoneId serverTimeZone,
    TableIdentifier deadLetter,
    OnBadMessage onBadMessage,
    Optional<String> target,
    List<String> key,
    Optional<Schema> schema) {

  /**
   * Settings of a CDC format: no target table, no key, no declared schema ({@link #asPlainJson}
   * turns them into plain JSON's).
   */
  public static KafkaSyncOptions of(
      String name,
      String bootstrapServers,
      String topics,
      KafkaFormat format,
      TableSelection selection,
      Duration checkpointInterval,
      int parallelism,
      StateDirectory stateDirectory,
      StartingOffsets startingOffsets,
      Map<String, String> kafkaProperties,
      Map<String, String> partitions,
      ZoneId serverTimeZone,
      TableIdentifier deadLetter,
      OnBadMessage onBadMessage) {
    return new KafkaSyncOptions(
        name,
        bootstrapServers,
        topics,
        format,
        selection,
        checkpointInterval,
        parallelism,
        stateDirectory,
        startingOffsets,
        kafkaProperties,
        partitions,
        serverTimeZone,
        deadLetter,
        onBadMessage,
        Optional.empty(),
        List.of(),
        Optional.empty());
  }

  /**
   * These settings with plain JSON as the format, with its target table and key (the declared
   * schema unchanged).
   */
  public KafkaSyncOptions asPlainJson(Optional<String> target, List<String> key) {
    return new KafkaSyncOptions(
        name,
        bootstrapServers,
        topics,
        KafkaFormat.JSON,
        selection,
        checkpointInterval,
        parallelism,
        stateDirectory,
        startingOffsets,
        kafkaProperties,
        partitions,
        serverTimeZone,
        deadLetter,
        onBadMessage,
        target,
        key,
        schema);
  }

  /** The default dead-letter table. */
  public static final TableIdentifier DEFAULT_DEAD_LETTER =
      TableIdentifier.of("floe_rejected", "messages");

  /** What a message that cannot be applied does. */
  public enum OnBadMessage {
    /** It goes to the dead-letter table, with the reason; the sync goes on. */
    DEAD_LETTER("dead-letter"),
    /** The sync stops, naming the topic, partition, offset and reason. */
    FAIL("fail");

    private final String option;

    OnBadMessage(String option) {
      this.option = option;
    }

    public String option() {
      return option;
    }

    /**
     * @throws FloeException BAD_INPUT for another value
     */
    public static OnBadMessage parse(String text, String input) {
      for (OnBadMessage value : values()) {
        if (value.option.equals(text.trim().toLowerCase(Locale.ROOT))) {
          return value;
        }
      }
      throw FloeException.badInput(
          input + " " + text + " is not a choice: use dead-letter (the default) or fail.");
    }
  }

  /**
   * Where a first start reads a partition: {@code earliest}, {@code latest} or {@code
   * timestamp:EPOCH_MS} (the first message at or after that time).
   */
  public record StartingOffsets(Kind kind, long timestampMillis) {
    public enum Kind {
      EARLIEST,
      LATEST,
      TIMESTAMP
    }

    public static final StartingOffsets EARLIEST = new StartingOffsets(Kind.EARLIEST, 0);

    public StartingOffsets {
      requireNonNull(kind, "kind is null");
    }

    /**
     * @throws FloeException BAD_INPUT naming the input for anything else
     */
    public static StartingOffsets parse(String text, String input) {
      String value = text.trim().toLowerCase(Locale.ROOT);
      if (value.equals("earliest")) {
        return EARLIEST;
      }
      if (value.equals("latest")) {
        return new StartingOffsets(Kind.LATEST, 0);
      }
      if (value.startsWith("timestamp:")) {
        try {
          long millis = Long.parseLong(value.substring("timestamp:".length()));
          if (millis >= 0) {
            return new StartingOffsets(Kind.TIMESTAMP, millis);
          }
        } catch (NumberFormatException notANumber) {
          // the message below says what is expected
        }
      }
      throw FloeException.badInput(
          input
              + " "
              + text
              + " is not a starting offset: use earliest, latest or timestamp:EPOCH_MS (e.g."
              + " timestamp:1700000000000).");
    }

    @Override
    public String toString() {
      return kind == Kind.TIMESTAMP
          ? "timestamp:" + timestampMillis
          : kind.name().toLowerCase(Locale.ROOT);
    }
  }

  public KafkaSyncOptions {
    requireNonNull(name, "name is null");
    requireNonNull(bootstrapServers, "bootstrapServers is null");
    requireNonNull(topics, "topics is null");
    requireNonNull(format, "format is null");
    requireNonNull(selection, "selection is null");
    requireNonNull(checkpointInterval, "checkpointInterval is null");
    requireNonNull(stateDirectory, "stateDirectory is null");
    requireNonNull(startingOffsets, "startingOffsets is null");
    kafkaProperties = Map.copyOf(requireNonNull(kafkaProperties, "kafkaProperties is null"));
    partitions = Map.copyOf(requireNonNull(partitions, "partitions is null"));
    requireNonNull(serverTimeZone, "serverTimeZone is null");
    requireNonNull(deadLetter, "deadLetter is null");
    requireNonNull(onBadMessage, "onBadMessage is null");
    if (parallelism < 1) {
      throw new IllegalArgumentException("parallelism must be at least 1, got " + parallelism);
    }
    requireNonNull(target, "target is null");
    key = List.copyOf(requireNonNull(key, "key is null"));
    if (format == KafkaFormat.JSON && target.isEmpty()) {
      throw FloeException.badInput(
          "--format json needs the table the messages go to: pass --target NAMESPACE.TABLE (and"
              + " --key COL[,COL] to upsert by those columns instead of appending).");
    }
    if (format != KafkaFormat.JSON && (target.isPresent() || !key.isEmpty())) {
      throw FloeException.badInput(
          "--target and --key are for --format json; a "
              + format.option()
              + " message names its own table and primary key.");
    }
    target.ifPresent(
        table -> {
          if (!table.matches("[^.\\s]+\\.[^.\\s]+")) {
            throw FloeException.badInput(
                "--target " + table + " is not NAMESPACE.TABLE, e.g. --target ods.events.");
          }
        });
    requireNonNull(schema, "schema is null");
    if (schema.isPresent()) {
      if (format != KafkaFormat.JSON) {
        throw FloeException.badInput(
            "--schema is for --format json; a "
                + format.option()
                + " message brings its own columns. Leave --schema (sync.kafka.schema) out.");
      }
      for (String column : key) {
        if (schema.get().caseInsensitiveFindField(column) == null) {
          throw FloeException.badInput(
              "The key column "
                  + column
                  + " (--key) is not in --schema: declare it there, e.g. '"
                  + column
                  + " BIGINT NOT NULL, ...'.");
        }
      }
      // A partitioning that does not fit the declared columns is refused before anything exists.
      partitioning(target.get(), schema.get(), partitions);
    }
  }

  /**
   * The partitioning of the plain JSON target when it is created from the declared schema: {@code
   * --partition} for the target's name, else none.
   *
   * @throws FloeException BAD_INPUT when it names a column the schema lacks or a transform its type
   *     cannot take
   */
  public PartitionSpec targetPartitioning() {
    return partitioning(target.orElseThrow(), schema.orElseThrow(), partitions);
  }

  private static PartitionSpec partitioning(
      String table, Schema declared, Map<String, String> partitions) {
    return partitions.containsKey(table)
        ? PartitionSpecs.parse(table, partitions.get(table), declared)
        : PartitionSpec.unpartitioned();
  }

  /** The decoder of the messages. */
  KafkaMessageDecoder decoder() {
    return format == KafkaFormat.JSON
        ? new PlainJsonDecoder(target.orElseThrow(), key)
        : format.decoder(serverTimeZone);
  }

  /** The topic pattern, matched against whole topic names. */
  public Pattern topicPattern() {
    return topicPattern(topics, "--topics");
  }

  /**
   * @throws FloeException BAD_INPUT for a pattern that is not a regular expression
   */
  public static Pattern topicPattern(String topics, String input) {
    try {
      return Pattern.compile(topics);
    } catch (PatternSyntaxException wrong) {
      throw FloeException.badInput(
          input
              + " '"
              + topics
              + "' is not a regular expression ("
              + wrong.getDescription()
              + "). Give a pattern over whole topic names, e.g. 'shop\\..*'.");
    }
  }

  /** Whether a Kafka property's value must never be printed (passwords, secrets, JAAS config). */
  public static boolean isSecret(String key) {
    String lower = key.toLowerCase(Locale.ROOT);
    return lower.contains("password")
        || lower.contains("secret")
        || lower.contains("jaas")
        || lower.contains("token")
        || lower.contains("credential")
        || lower.endsWith(".key")
        || lower.contains("private")
        || lower.contains("user.info");
  }

  /** The Kafka properties as they may be printed: secret values as {@code ****}. */
  public static Map<String, String> masked(Map<String, String> properties) {
    Map<String, String> masked = new TreeMap<>();
    properties.forEach((key, value) -> masked.put(key, isSecret(key) ? "****" : value));
    return masked;
  }

  /**
   * The brokers of a {@code kafka://HOST:PORT[,HOST:PORT...]} source.
   *
   * @throws FloeException BAD_INPUT naming the input for anything else
   */
  public static String bootstrapServers(String url, String input) {
    String prefix = "kafka://";
    if (!url.regionMatches(true, 0, prefix, 0, prefix.length())) {
      throw FloeException.badInput(
          input + " " + url + " is not a Kafka source: write kafka://HOST:PORT[,HOST:PORT...].");
    }
    String rest = url.substring(prefix.length());
    if (rest.endsWith("/")) {
      rest = rest.substring(0, rest.length() - 1);
    }
    List<String> brokers = new ArrayList<>();
    for (String broker : rest.split(",", -1)) {
      String trimmed = broker.trim();
      int colon = trimmed.lastIndexOf(':');
      boolean valid = colon > 0 && colon < trimmed.length() - 1;
      if (valid) {
        try {
          int port = Integer.parseInt(trimmed.substring(colon + 1));
          valid = port > 0 && port < 65536;
        } catch (NumberFormatException notAPort) {
          valid = false;
        }
      }
      if (!valid) {
        throw FloeException.badInput(
            input
                + " "
                + url
                + ": '"
                + trimmed
                + "' is not HOST:PORT. Write kafka://HOST:PORT[,HOST:PORT...], e.g."
                + " kafka://127.0.0.1:9092.");
      }
      brokers.add(trimmed);
    }
    return String.join(",", brokers);
  }
}

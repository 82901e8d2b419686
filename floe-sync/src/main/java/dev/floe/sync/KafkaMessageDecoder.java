package dev.floe.sync;

import static java.util.Objects.requireNonNull;

import java.io.Serializable;
import java.util.List;

/**
 * Decodes one Kafka message of a CDC format into the row changes it carries (docs/kafka.md). Pure:
 * no I/O, no clock, the same bytes always decode the same way; implementations are immutable and
 * thread-safe.
 */
interface KafkaMessageDecoder extends Serializable {

  /**
   * @param key the message key, null when the message has none
   * @param value the message value, null for a tombstone
   * @return the changes, a skip (a message that carries no row change, e.g. a DDL message or a
   *     tombstone) or a rejection with the exact reason; never throws for any input
   */
  Decoded decode(byte[] key, byte[] value);

  /** What a message decoded to. */
  sealed interface Decoded permits Changes, Skipped, Rejected {}

  /** The row changes of a message, in the message's order. */
  record Changes(List<DecodedChange> changes) implements Decoded {
    public Changes {
      changes = List.copyOf(requireNonNull(changes, "changes is null"));
    }
  }

  /** A message with no row change (DDL, tombstone, heartbeat): nothing to apply. */
  record Skipped(String why) implements Decoded {
    public Skipped {
      requireNonNull(why, "why is null");
    }
  }

  /** A message that cannot be applied: goes to the dead-letter table with the reason. */
  record Rejected(String reason) implements Decoded {
    public Rejected {
      requireNonNull(reason, "reason is null");
    }
  }
}

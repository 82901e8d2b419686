package dev.floe.sync;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * What a Kafka sync's progress line says, read from its tables and Kafka ({@link
 * KafkaSyncProgress}): the tables it writes, how many messages of the partitions it reads no table
 * has committed yet, the messages it rejected, and the lag of its newest commit's source time.
 * Immutable; {@link #line} is pure.
 *
 * @param tables the tables it writes ({@code namespace.table})
 * @param partitions the partitions the sync reads
 * @param behind messages of those partitions after the newest offset any table committed
 * @param rejected rows of this sync in the dead-letter table
 * @param lag now minus the newest source time committed, if any was
 */
public record KafkaSyncStatus(
    List<String> tables, int partitions, long behind, long rejected, Optional<Duration> lag) {

  public KafkaSyncStatus {
    tables = List.copyOf(requireNonNull(tables, "tables is null"));
    requireNonNull(lag, "lag is null");
  }

  /** {@code progress: 2 tables; 0 messages behind on 3 partitions; 0 rejected; lag 0.8 s}. */
  public String line() {
    return String.format(
        Locale.ROOT,
        "progress: %d table%s; %,d message%s behind on %d partition%s; %,d rejected%s",
        tables.size(),
        tables.size() == 1 ? "" : "s",
        behind,
        behind == 1 ? "" : "s",
        partitions,
        partitions == 1 ? "" : "s",
        rejected,
        lag.map(
                duration ->
                    String.format(Locale.ROOT, "; lag %.1f s", duration.toMillis() / 1000.0))
            .orElse(""));
  }
}

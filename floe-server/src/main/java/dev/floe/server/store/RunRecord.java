package dev.floe.server.store;

import static java.util.Objects.requireNonNull;

import dev.floe.core.state.TableKey;
import java.time.Duration;
import java.time.Instant;

/**
 * One optimize or maintenance run on a table, as the keeper records it.
 *
 * @param kind {@code optimize}, {@code expire_snapshots}, {@code clean_metadata}, {@code
 *     clean_orphans} or {@code remove_dangling_deletes}
 * @param result {@code succeeded}, {@code failed} or {@code partial} (some groups committed)
 * @param detail what it did or why it failed, one line
 */
public record RunRecord(
    TableKey table,
    String kind,
    Instant startedAt,
    Instant finishedAt,
    String result,
    long bytesIn,
    long bytesOut,
    long filesIn,
    long filesOut,
    String detail) {

  public RunRecord {
    requireNonNull(table, "table is null");
    requireNonNull(kind, "kind is null");
    requireNonNull(startedAt, "startedAt is null");
    requireNonNull(finishedAt, "finishedAt is null");
    requireNonNull(result, "result is null");
    requireNonNull(detail, "detail is null");
  }

  public Duration duration() {
    return Duration.between(startedAt, finishedAt);
  }
}

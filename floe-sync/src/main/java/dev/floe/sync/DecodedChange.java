package dev.floe.sync;

import static java.util.Objects.requireNonNull;

import dev.floe.core.sync.SourceTable;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * One row change a Kafka CDC message carries, decoded: the source table as the message describes
 * it, what happened, and the row before and after.
 *
 * @param table the source {@code db.table} with the columns the message names, each with its MySQL
 *     type (as the message states it, or inferred from the values when the format carries none; a
 *     column whose type cannot be known yet, only nulls so far, is left out) and the primary key
 * @param kind insert, update or delete
 * @param before the row before an update or delete (for an update, at least the key)
 * @param after the row after an insert or update
 * @param sourceMillis the source commit time (epoch ms), 0 when the message has none
 */
record DecodedChange(
    SourceTable table,
    Kind kind,
    Optional<Map<String, Object>> before,
    Optional<Map<String, Object>> after,
    long sourceMillis) {

  /** What happened to the row. */
  enum Kind {
    INSERT,
    UPDATE,
    DELETE
  }

  DecodedChange {
    requireNonNull(table, "table is null");
    requireNonNull(kind, "kind is null");
    before = requireNonNull(before, "before is null").map(DecodedChange::copy);
    after = requireNonNull(after, "after is null").map(DecodedChange::copy);
  }

  /** An unmodifiable copy in column order; values may be null (a SQL NULL). */
  private static Map<String, Object> copy(Map<String, Object> row) {
    return Collections.unmodifiableMap(new LinkedHashMap<>(row));
  }
}

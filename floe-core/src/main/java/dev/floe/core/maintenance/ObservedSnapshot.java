package dev.floe.core.maintenance;

import static java.util.Objects.requireNonNull;

import java.time.Instant;

/**
 * One snapshot of an observed history.
 *
 * @param id the snapshot id
 * @param sequenceNumber its sequence number
 * @param committedAt when it was committed
 * @param addedRecords records it added, -1 when unknown
 * @param totalRecords records in the table as of it, -1 when unknown
 */
public record ObservedSnapshot(
    long id, long sequenceNumber, Instant committedAt, long addedRecords, long totalRecords) {

  public ObservedSnapshot {
    requireNonNull(committedAt, "committedAt is null");
  }

  public static ObservedSnapshot of(SnapshotFacts snapshot) {
    return new ObservedSnapshot(
        snapshot.id(),
        snapshot.sequenceNumber(),
        snapshot.committedAt(),
        snapshot.addedRecords(),
        snapshot.totalRecords());
  }
}

package dev.floe.core.optimize;

/** The snapshot a state was read from and a plan was made on: its id and sequence number. */
public record PlannedSnapshot(long snapshotId, long sequenceNumber) {}

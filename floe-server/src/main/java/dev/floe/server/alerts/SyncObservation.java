package dev.floe.server.alerts;

import static java.util.Objects.requireNonNull;

import java.time.Instant;

/**
 * What the keeper last heard from a sync job, for the sync rules.
 *
 * @param state running, stopped or failed
 * @param lagMs the sync's lag; -1 when unknown
 */
public record SyncObservation(String name, String state, Instant reportedAt, long lagMs) {
  public SyncObservation {
    requireNonNull(name, "name is null");
    requireNonNull(state, "state is null");
    requireNonNull(reportedAt, "reportedAt is null");
  }
}

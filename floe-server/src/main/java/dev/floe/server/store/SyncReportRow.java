package dev.floe.server.store;

import static java.util.Objects.requireNonNull;

import java.time.Instant;

/**
 * The latest report of one sync job, as the store keeps it.
 *
 * @param name the sync's name
 * @param reportedAt when the keeper received it
 * @param report the report's JSON document
 */
public record SyncReportRow(String name, Instant reportedAt, String report) {

  public SyncReportRow {
    requireNonNull(name, "name is null");
    requireNonNull(reportedAt, "reportedAt is null");
    requireNonNull(report, "report is null");
  }
}

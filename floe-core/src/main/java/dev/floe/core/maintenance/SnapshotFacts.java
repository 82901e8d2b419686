package dev.floe.core.maintenance;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What the planners need to know of one snapshot.
 *
 * @param id the snapshot id
 * @param parentId its parent, if it has one
 * @param sequenceNumber its sequence number (0 for format v1 tables)
 * @param committedAt when it was committed
 * @param summary the snapshot summary (operation counts, Flink's job id and checkpoint id)
 */
public record SnapshotFacts(
    long id,
    OptionalLong parentId,
    long sequenceNumber,
    Instant committedAt,
    Map<String, String> summary) {

  /** The summary key Flink's Iceberg sink writes its job id under. */
  public static final String FLINK_JOB_ID = "flink.job-id";

  /** The summary key Flink's Iceberg sink writes the checkpoint it committed under. */
  public static final String FLINK_CHECKPOINT_ID = "flink.max-committed-checkpoint-id";

  public SnapshotFacts {
    requireNonNull(parentId, "parentId is null");
    requireNonNull(committedAt, "committedAt is null");
    summary = Map.copyOf(requireNonNull(summary, "summary is null"));
  }

  /** The Flink job that committed this snapshot, when it carries a checkpoint id. */
  public Optional<String> flinkJobId() {
    if (!summary.containsKey(FLINK_CHECKPOINT_ID)) {
      return Optional.empty();
    }
    return Optional.ofNullable(summary.get(FLINK_JOB_ID));
  }

  /** Records this snapshot added, or -1 when the summary does not say. */
  public long addedRecords() {
    return number("added-records");
  }

  /** Records in the table as of this snapshot, or -1 when the summary does not say. */
  public long totalRecords() {
    return number("total-records");
  }

  private long number(String key) {
    String value = summary.get(key);
    if (value == null) {
      return -1;
    }
    try {
      return Long.parseLong(value);
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}

package dev.floe.core.maintenance;

/** Why expiry keeps a snapshot; the first reason that applies is reported. */
public enum RetentionReason {
  CURRENT("the current snapshot"),
  REFERENCED("a branch or tag points to it"),
  MIN_SNAPSHOTS("among the newest snapshots kept by floe.expire.min-snapshots"),
  FLINK_CHECKPOINT(
      "a Flink job's latest checkpointed snapshot, or an ancestor between it and the current"
          + " snapshot"),
  YOUNG("younger than floe.expire.max-snapshot-age"),
  OFF_MAIN("not in the main history; Iceberg's branch retention decides");

  private final String description;

  RetentionReason(String description) {
    this.description = description;
  }

  public String description() {
    return description;
  }
}

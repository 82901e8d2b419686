package dev.floe.core.maintenance;

/** The maintenance actions Floe runs on a table. */
public enum MaintenanceAction {
  EXPIRE_SNAPSHOTS("expire snapshots"),
  CLEAN_ORPHANS("remove orphan files"),
  CLEAN_METADATA("clean metadata files"),
  REMOVE_DANGLING_DELETES("remove dangling delete files");

  private final String description;

  MaintenanceAction(String description) {
    this.description = description;
  }

  public String description() {
    return description;
  }
}

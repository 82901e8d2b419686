package dev.floe.server.store;

import java.util.Locale;

/** The keeper's state of one table (docs/keeper.md, "Table states"). */
public enum TableStatus {
  IDLE,
  PENDING,
  RUNNING,
  BACKOFF,
  QUARANTINED,
  PAUSED,
  DISABLED,
  FAILED;

  /** The name the API, the metrics and the store use: lower case. */
  public String apiName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * @throws IllegalArgumentException naming the text when it is no state
   */
  public static TableStatus fromApiName(String text) {
    for (TableStatus status : values()) {
      if (status.apiName().equals(text)) {
        return status;
      }
    }
    throw new IllegalArgumentException("unknown table state '" + text + "'");
  }
}

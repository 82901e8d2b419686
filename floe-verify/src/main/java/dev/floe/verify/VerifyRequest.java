package dev.floe.verify;

import static java.util.Objects.requireNonNull;

import dev.floe.core.source.MySqlSourceAddress;
import java.util.List;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * One verification: which MySQL table against which lake table, the window and the time column.
 *
 * @param cutoffText {@code today}, a date or an ISO date-time, in the source's time zone
 * @param windowText a length such as {@code 7d}
 * @param keyColumns the columns that identify a row (a unique NOT NULL key), empty for the primary
 *     key
 */
public record VerifyRequest(
    MySqlSourceAddress source,
    String database,
    String table,
    TableIdentifier target,
    String cutoffText,
    String windowText,
    String timeColumn,
    List<String> keyColumns) {
  public VerifyRequest {
    requireNonNull(source, "source is null");
    requireNonNull(database, "database is null");
    requireNonNull(table, "table is null");
    requireNonNull(target, "target is null");
    requireNonNull(cutoffText, "cutoffText is null");
    requireNonNull(windowText, "windowText is null");
    requireNonNull(timeColumn, "timeColumn is null");
    keyColumns = List.copyOf(requireNonNull(keyColumns, "keyColumns is null"));
  }

  /** A request that matches rows by the primary key. */
  public VerifyRequest(
      MySqlSourceAddress source,
      String database,
      String table,
      TableIdentifier target,
      String cutoffText,
      String windowText,
      String timeColumn) {
    this(source, database, table, target, cutoffText, windowText, timeColumn, List.of());
  }
}

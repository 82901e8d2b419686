package dev.floe.mysql;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.DateTimeException;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * The zone a MySQL/MariaDB server reads its local times in: {@code @@global.time_zone}, or the
 * server's system zone when that is {@code SYSTEM}. A system zone given as an abbreviation that is
 * not a zone id ({@code CST}, {@code CEST}) is taken as the server's current offset from UTC.
 */
public final class ServerTimeZone {

  private ServerTimeZone() {}

  /** Reads it on {@code connection} (the caller's; left open). */
  public static ZoneId read(Connection connection) throws SQLException {
    try (Statement statement = connection.createStatement();
        ResultSet row =
            statement.executeQuery(
                "SELECT @@global.time_zone, @@system_time_zone,"
                    + " TIMESTAMPDIFF(SECOND, UTC_TIMESTAMP(), NOW())")) {
      row.next();
      String zone = row.getString(1);
      if ("SYSTEM".equalsIgnoreCase(zone)) {
        zone = row.getString(2);
      }
      try {
        return ZoneId.of(zone).normalized();
      } catch (DateTimeException | NullPointerException notAZoneId) {
        return ZoneOffset.ofTotalSeconds(row.getInt(3));
      }
    }
  }
}

package dev.floe.sync;

import dev.floe.core.error.FloeException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/** Reads the source's binlog head and which binlog files it still has. */
final class SourceBinlog {

  private SourceBinlog() {}

  /** The position the next binlog event will be written at. */
  static BinlogPosition head(Connection connection) throws SQLException {
    try (Statement statement = connection.createStatement()) {
      for (String query : List.of("SHOW MASTER STATUS", "SHOW BINARY LOG STATUS")) {
        try (ResultSet row = statement.executeQuery(query)) {
          if (row.next()) {
            return new BinlogPosition(row.getString(1), row.getLong(2));
          }
        } catch (SQLException unsupported) {
          // MySQL 8.4 renamed SHOW MASTER STATUS; try the next form
        }
      }
    }
    throw new SQLException("the server reports no binlog position; is log_bin on?");
  }

  /** The binlog files the server still has, oldest first. */
  static List<String> files(Connection connection) throws SQLException {
    List<String> files = new ArrayList<>();
    try (Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("SHOW BINARY LOGS")) {
      while (rows.next()) {
        files.add(rows.getString(1));
      }
    }
    return files;
  }

  /**
   * Fails when the binlog file a sync must continue from has been purged: the changes in it are
   * gone, so the affected tables must be copied again.
   */
  static void requireAvailable(
      Connection connection, BinlogPosition position, String server, String syncName)
      throws SQLException {
    List<String> files = files(connection);
    if (!files.contains(position.file())) {
      throw FloeException.badInput(
          "The sync "
              + syncName
              + " must continue from binlog file "
              + position.file()
              + " (position "
              + position.position()
              + "), but "
              + server
              + " no longer has it (oldest: "
              + (files.isEmpty() ? "none" : files.get(0))
              + "): changes made since then are lost to the binlog. Copy the tables again with"
              + " `floe sync ... --resnapshot` (or --resnapshot TABLE... for some of them), and"
              + " raise binlog retention (expire_logs_days / binlog_expire_logs_seconds) above the"
              + " longest time a sync may be stopped.");
    }
  }
}

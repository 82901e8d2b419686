package dev.floe.mysql;

import dev.floe.core.source.GrantSet;
import dev.floe.core.source.ServerVersion;
import dev.floe.core.source.SourceFacts;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Reads {@link SourceFacts} from a connected source; needs no privilege beyond logging in. */
public final class SourceFactsReader {

  private static final List<String> VARIABLES =
      List.of(
          "log_bin",
          "binlog_format",
          "binlog_row_image",
          "binlog_expire_logs_seconds",
          "binlog_expire_logs_auto_purge",
          "expire_logs_days",
          "server_id",
          "log_slave_updates",
          "log_replica_updates",
          "basedir");
  private static final int ACCESS_DENIED_NEED_PRIVILEGE = 1227;

  /** Reads what the checks need. Blocks on the connection; does not close it. */
  public SourceFacts read(Connection connection, Optional<String> database) throws SQLException {
    String versionText;
    String account;
    try (Statement statement = connection.createStatement();
        ResultSet row = statement.executeQuery("SELECT VERSION(), CURRENT_USER()")) {
      row.next();
      versionText = row.getString(1);
      account = quoteAccount(row.getString(2));
    }
    ServerVersion version = ServerVersion.parse(versionText);
    return new SourceFacts(
        account,
        version,
        variables(connection),
        grants(connection),
        isReplica(connection, version),
        database);
  }

  private static Map<String, String> variables(Connection connection) throws SQLException {
    Map<String, String> variables = new HashMap<>();
    String names = String.join("','", VARIABLES);
    try (Statement statement = connection.createStatement();
        ResultSet rows =
            statement.executeQuery(
                "SHOW GLOBAL VARIABLES WHERE Variable_name IN ('" + names + "')")) {
      while (rows.next()) {
        variables.put(rows.getString(1), rows.getString(2));
      }
    }
    return variables;
  }

  private static GrantSet grants(Connection connection) throws SQLException {
    List<String> lines = new ArrayList<>();
    try (Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("SHOW GRANTS")) {
      while (rows.next()) {
        lines.add(rows.getString(1));
      }
    }
    return GrantSet.parse(lines);
  }

  /**
   * A replica has a replication status row. Reading it may need a privilege the account lacks
   * (MariaDB 10.5+ wants SLAVE MONITOR); then the server's status counters tell instead.
   */
  private static boolean isReplica(Connection connection, ServerVersion version)
      throws SQLException {
    // SHOW REPLICA STATUS exists from MariaDB 10.5 and MySQL 8.0.22; MySQL 8.4 dropped the old
    // name.
    boolean replicaSyntax =
        version.isMariaDb()
            ? version.atLeast(10, 5)
            : version.major() > 8
                || version.major() == 8 && (version.minor() > 0 || version.patch() >= 22);
    String query = replicaSyntax ? "SHOW REPLICA STATUS" : "SHOW SLAVE STATUS";
    try (Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery(query)) {
      return rows.next();
    } catch (SQLException e) {
      if (e.getErrorCode() != ACCESS_DENIED_NEED_PRIVILEGE) {
        throw e;
      }
    }
    try (Statement statement = connection.createStatement();
        ResultSet rows =
            statement.executeQuery(
                "SHOW GLOBAL STATUS WHERE Variable_name IN ('Slave_running','Slaves_running')")) {
      while (rows.next()) {
        String value = rows.getString(2);
        if (value != null && !value.equals("0") && !value.equalsIgnoreCase("OFF")) {
          return true;
        }
      }
    }
    return false;
  }

  /** {@code floe@%} becomes {@code 'floe'@'%'}, the form GRANT statements take. */
  private static String quoteAccount(String currentUser) {
    int at = currentUser.lastIndexOf('@');
    if (at < 0) {
      return "'" + currentUser + "'";
    }
    return "'" + currentUser.substring(0, at) + "'@'" + currentUser.substring(at + 1) + "'";
  }
}

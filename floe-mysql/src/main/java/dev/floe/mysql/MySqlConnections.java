package dev.floe.mysql;

import static java.util.Objects.requireNonNull;

import dev.floe.core.Secret;
import dev.floe.core.error.FloeException;
import dev.floe.core.source.MySqlSourceAddress;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Properties;

/** Opens JDBC connections to a MySQL/MariaDB source and explains why one cannot be opened. */
public final class MySqlConnections {

  private static final int ACCESS_DENIED = 1045;
  private static final int DATABASE_ACCESS_DENIED = 1044;
  private static final int UNKNOWN_DATABASE = 1049;

  private final Duration connectTimeout;

  public MySqlConnections(Duration connectTimeout) {
    this.connectTimeout = requireNonNull(connectTimeout, "connectTimeout is null");
  }

  /** Why a connection failed, split into what happened and what to do. */
  public record Failure(String problem, String fix) {
    public Failure {
      requireNonNull(problem, "problem is null");
      requireNonNull(fix, "fix is null");
    }

    public FloeException toException(Throwable cause) {
      return FloeException.sourceUnavailable(problem + ". " + fix, cause);
    }
  }

  /**
   * Opens a connection; the caller closes it.
   *
   * @throws FloeException of category SOURCE_UNAVAILABLE with a message that names the server, the
   *     reason and the fix (never the password)
   */
  public Connection open(MySqlSourceAddress address) {
    try {
      return connect(address);
    } catch (SQLException e) {
      throw explain(address, e).toException(e);
    }
  }

  /** Opens a connection and leaves the driver's error as it is; see {@link #explain}. */
  public Connection connect(MySqlSourceAddress address) throws SQLException {
    return DriverManager.getConnection(jdbcUrl(address), properties(address));
  }

  /** The JDBC URL for an address; it carries no credentials. */
  public static String jdbcUrl(MySqlSourceAddress address) {
    return "jdbc:mysql://" + address.hostAndPort() + "/" + address.database().orElse("");
  }

  private Properties properties(MySqlSourceAddress address) {
    Properties properties = new Properties();
    properties.setProperty("user", address.user());
    properties.setProperty("password", address.password().map(Secret::reveal).orElse(""));
    properties.setProperty("connectTimeout", String.valueOf(connectTimeout.toMillis()));
    properties.setProperty(
        "socketTimeout", String.valueOf(Math.max(60_000, connectTimeout.toMillis())));
    // caching_sha2_password (MySQL 8's default) over a connection without TLS needs the key.
    properties.setProperty("allowPublicKeyRetrieval", "true");
    properties.setProperty("sslMode", "PREFERRED");
    properties.setProperty("useUnicode", "true");
    properties.setProperty("characterEncoding", "UTF-8");
    address.options().forEach(properties::setProperty);
    return properties;
  }

  /** Turns a driver error into a message a user can act on. */
  public static Failure explain(MySqlSourceAddress address, SQLException error) {
    String server = address.hostAndPort();
    String sqlState = error.getSQLState() == null ? "" : error.getSQLState();
    switch (error.getErrorCode()) {
      case ACCESS_DENIED:
        return new Failure(
            "The server at "
                + server
                + " refused user '"
                + address.user()
                + "': "
                + error.getMessage(),
            "Check the password (in the URL or the FLOE_SOURCE_PASSWORD environment variable) and"
                + " that the account may connect from this machine (its host pattern, e.g."
                + " '"
                + address.user()
                + "'@'%').");
      case DATABASE_ACCESS_DENIED:
        return new Failure(
            "User '"
                + address.user()
                + "' may not use database '"
                + address.database().orElse("")
                + "' on "
                + server,
            "Grant it: GRANT SELECT ON `"
                + address.database().orElse("db")
                + "`.* TO '"
                + address.user()
                + "'@'%';");
      case UNKNOWN_DATABASE:
        return new Failure(
            "Database '" + address.database().orElse("") + "' does not exist on " + server,
            "Check the database name at the end of the URL, or leave it out to connect without one.");
      default:
        break;
    }
    if (sqlState.startsWith("08")) {
      return new Failure(
          "Cannot reach a MySQL server at " + server + " (" + rootCause(error) + ")",
          "Check the host and port, that the server is running, and that it accepts TCP"
              + " connections from this machine (bind-address, firewall).");
    }
    return new Failure(
        "The server at "
            + server
            + " refused the connection: "
            + error.getMessage()
            + " (error "
            + error.getErrorCode()
            + ", SQLState "
            + sqlState
            + ")",
        "Check the server's log and the URL's options.");
  }

  private static String rootCause(Throwable error) {
    Throwable cause = error;
    while (cause.getCause() != null && cause.getCause() != cause) {
      cause = cause.getCause();
    }
    String message =
        cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
    return message.lines().findFirst().orElse(message).trim();
  }
}

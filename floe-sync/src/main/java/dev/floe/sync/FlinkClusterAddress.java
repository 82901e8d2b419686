package dev.floe.sync;

import static java.util.Objects.requireNonNull;

import dev.floe.core.error.FloeException;

/**
 * The REST endpoint of a Flink cluster's JobManager that runs the binlog job ({@code --flink
 * HOST:PORT}).
 *
 * @param host the JobManager's host name or address
 * @param port its REST port ({@code rest.port}, 8081 by default)
 */
public record FlinkClusterAddress(String host, int port) {

  public FlinkClusterAddress {
    requireNonNull(host, "host is null");
    if (host.isBlank()) {
      throw new IllegalArgumentException("host is blank");
    }
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException("port must be 1-65535, got " + port);
    }
  }

  /**
   * Parses {@code HOST:PORT} ({@code [IPv6]:PORT} for an IPv6 address).
   *
   * @param option where the value came from ({@code --flink}, {@code sync.flink}), for the message
   * @throws FloeException BAD_INPUT naming the option, the value and the expected form
   */
  public static FlinkClusterAddress parse(String value, String option) {
    requireNonNull(value, "value is null");
    String text = value.trim();
    int colon = text.lastIndexOf(':');
    if (colon > 0 && colon < text.length() - 1) {
      String host = text.substring(0, colon);
      boolean bracketed = host.length() > 2 && host.startsWith("[") && host.endsWith("]");
      if (bracketed) {
        host = host.substring(1, host.length() - 1);
      }
      String port = text.substring(colon + 1);
      boolean plainHost =
          !host.isBlank() && (bracketed || !host.contains(":")) && !host.contains("/");
      if (plainHost && port.matches("\\d{1,5}")) {
        int number = Integer.parseInt(port);
        if (number >= 1 && number <= 65535) {
          return new FlinkClusterAddress(host, number);
        }
      }
    }
    throw FloeException.badInput(
        option
            + " '"
            + value
            + "' is not HOST:PORT. Give the host and REST port of the Flink cluster's JobManager"
            + " (its rest.port, 8081 by default), e.g. "
            + option
            + (option.startsWith("--") ? " " : ": ")
            + "localhost:8081, or leave "
            + option
            + " out to run the sync on a local Flink.");
  }

  /** The REST API's base URL. */
  String url() {
    return "http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
  }

  @Override
  public String toString() {
    return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
  }
}

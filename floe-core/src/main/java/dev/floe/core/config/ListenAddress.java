package dev.floe.core.config;

import static java.util.Objects.requireNonNull;

/** Where a service listens: a host name or address and a port. */
public record ListenAddress(String host, int port) {

  public ListenAddress {
    requireNonNull(host, "host is null");
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port out of range: " + port);
    }
  }

  /** Whether only this machine can connect: 127.0.0.0/8, ::1 or localhost. */
  public boolean isLoopback() {
    String bare =
        host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
    return bare.equals("localhost")
        || bare.startsWith("127.")
        || bare.equals("::1")
        || bare.equals("0:0:0:0:0:0:0:1");
  }

  @Override
  public String toString() {
    return host + ":" + port;
  }
}

package dev.floe.sync;

import dev.floe.core.Secret;
import dev.floe.core.source.MySqlSourceAddress;
import java.io.Serializable;
import java.util.Map;
import java.util.Optional;

/**
 * The source's connection details in a form Flink can ship to its tasks. {@link #toString()} hides
 * the password.
 */
record SourceEndpoint(String host, int port, String user, String password) implements Serializable {

  static SourceEndpoint of(MySqlSourceAddress address) {
    return new SourceEndpoint(
        address.host(),
        address.port(),
        address.user(),
        address.password().map(Secret::reveal).orElse(""));
  }

  MySqlSourceAddress address() {
    return new MySqlSourceAddress(
        user,
        password.isEmpty() ? Optional.empty() : Optional.of(Secret.of(password)),
        host,
        port,
        Optional.empty(),
        Map.of());
  }

  @Override
  public String toString() {
    return address().toString();
  }
}

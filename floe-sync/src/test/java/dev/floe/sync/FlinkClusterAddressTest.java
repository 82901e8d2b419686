package dev.floe.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.floe.core.error.FloeException;
import org.junit.jupiter.api.Test;

class FlinkClusterAddressTest {

  @Test
  void hostAndPort() {
    assertThat(FlinkClusterAddress.parse("flink-jobmanager:8081", "--flink"))
        .isEqualTo(new FlinkClusterAddress("flink-jobmanager", 8081));
    assertThat(FlinkClusterAddress.parse(" 127.0.0.1:18081 ", "--flink").url())
        .isEqualTo("http://127.0.0.1:18081");
  }

  @Test
  void ipv6InBrackets() {
    FlinkClusterAddress address = FlinkClusterAddress.parse("[::1]:8081", "--flink");
    assertThat(address).isEqualTo(new FlinkClusterAddress("::1", 8081));
    assertThat(address.url()).isEqualTo("http://[::1]:8081");
    assertThat(address).hasToString("[::1]:8081");
  }

  @Test
  void everythingElseIsExplained() {
    for (String bad :
        new String[] {
          "localhost",
          "localhost:",
          ":8081",
          "host:80x",
          "host:0",
          "host:65536",
          "http://host:8081",
          "::1:8081"
        }) {
      assertThatThrownBy(() -> FlinkClusterAddress.parse(bad, "--flink"))
          .as(bad)
          .isInstanceOf(FloeException.class)
          .hasMessage(
              "--flink '"
                  + bad
                  + "' is not HOST:PORT. Give the host and REST port of the Flink cluster's"
                  + " JobManager (its rest.port, 8081 by default), e.g. --flink localhost:8081, or"
                  + " leave --flink out to run the sync on a local Flink.");
    }
  }
}

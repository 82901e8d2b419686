package dev.floe.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ListenAddressTest {

  @Test
  void parsesHostNamesIpv4AndBracketedIpv6() {
    assertThat(ListenAddress.parse("127.0.0.1:8420"))
        .contains(new ListenAddress("127.0.0.1", 8420));
    assertThat(ListenAddress.parse(" keeper.internal:80 "))
        .contains(new ListenAddress("keeper.internal", 80));
    assertThat(ListenAddress.parse("[::1]:8420")).contains(new ListenAddress("::1", 8420));
    assertThat(ListenAddress.parse("[2001:db8::7]:65535"))
        .contains(new ListenAddress("2001:db8::7", 65535));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "8420",
        ":8420",
        "127.0.0.1",
        "127.0.0.1:",
        "127.0.0.1:0",
        "127.0.0.1:65536",
        "127.0.0.1:-1",
        "::1:8420",
        "[]:8420",
        "[::1]",
        "[1::2::3]:8420",
        "[12345::1]:8420",
        "[1:2:3:4:5:6:7:8:9]:8420",
        "[::ffff:127.0.0.256]:8420",
        "keeper internal:8420",
        "http://127.0.0.1:8420"
      })
  void refusesWhatIsNotHostColonPort(String text) {
    assertThat(ListenAddress.parse(text)).isEqualTo(Optional.empty());
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "127.0.0.1:1",
        "127.8.9.10:1",
        "localhost:1",
        "LocalHost:1",
        "[::1]:1",
        "[0:0:0:0:0:0:0:1]:1",
        "[::ffff:127.0.0.1]:1"
      })
  void loopback(String text) {
    assertThat(ListenAddress.parse(text).orElseThrow().isLoopback()).isTrue();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "0.0.0.0:1",
        "10.0.0.5:1",
        "128.0.0.1:1",
        "keeper.internal:1",
        "[::]:1",
        "[::2]:1",
        "[1::1]:1",
        "[::ffff:10.0.0.1]:1"
      })
  void notLoopback(String text) {
    assertThat(ListenAddress.parse(text).orElseThrow().isLoopback()).isFalse();
  }

  @Test
  void printsAsWritten() {
    assertThat(new ListenAddress("127.0.0.1", 8420)).hasToString("127.0.0.1:8420");
    assertThat(new ListenAddress("::1", 8420)).hasToString("[::1]:8420");
  }

  @Test
  void constructorRefusesABlankHostAndAPortOutOfRange() {
    assertThatThrownBy(() -> new ListenAddress(" ", 8420))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("host is blank");
    assertThatThrownBy(() -> new ListenAddress("localhost", 65536))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("port 65536 is not between 1 and 65535");
    // Port 0 (a free port, chosen when binding) only from code; the config refuses it.
    assertThat(new ListenAddress("localhost", 0).port()).isZero();
    assertThat(ListenAddress.parse("localhost:0")).isEmpty();
  }
}

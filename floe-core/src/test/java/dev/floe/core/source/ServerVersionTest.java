package dev.floe.core.source;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ServerVersionTest {

  @Test
  void mariaDbWithDebianSuffix() {
    ServerVersion version = ServerVersion.parse("10.11.6-MariaDB-0+deb12u1-log");

    assertThat(version.isMariaDb()).isTrue();
    assertThat(version.displayName()).isEqualTo("MariaDB 10.11.6");
    assertThat(version.isSupported()).isTrue();
    assertThat(version.hasExpireLogsSeconds()).isTrue();
  }

  @Test
  void mariaDbReplicationPrefixIsSkipped() {
    assertThat(ServerVersion.parse("5.5.5-10.5.22-MariaDB").displayName())
        .isEqualTo("MariaDB 10.5.22");
  }

  @Test
  void mysqlVersions() {
    assertThat(ServerVersion.parse("8.0.36").isSupported()).isTrue();
    assertThat(ServerVersion.parse("5.7.44-log").hasExpireLogsSeconds()).isFalse();
    assertThat(ServerVersion.parse("5.6.51").isSupported()).isFalse();
  }
}

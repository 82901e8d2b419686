package dev.floe.core.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.floe.core.Secret;
import dev.floe.core.error.ErrorCategory;
import dev.floe.core.error.FloeException;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class MySqlSourceAddressTest {

  @Test
  void parsesEveryPart() {
    MySqlSourceAddress address =
        MySqlSourceAddress.parse(
            "mysql://floe:s%40cret@db.example:3307/shop?sslMode=DISABLED", "--source");

    assertThat(address.user()).isEqualTo("floe");
    assertThat(address.password()).contains(Secret.of("s@cret"));
    assertThat(address.host()).isEqualTo("db.example");
    assertThat(address.port()).isEqualTo(3307);
    assertThat(address.database()).contains("shop");
    assertThat(address.options()).isEqualTo(Map.of("sslMode", "DISABLED"));
  }

  @Test
  void portAndDatabaseAreOptional() {
    MySqlSourceAddress address = MySqlSourceAddress.parse("mariadb://root@[::1]", "--source");

    assertThat(address.port()).isEqualTo(3306);
    assertThat(address.host()).isEqualTo("::1");
    assertThat(address.password()).isEmpty();
    assertThat(address.database()).isEqualTo(Optional.empty());
    assertThat(address.hostAndPort()).isEqualTo("[::1]:3306");
  }

  @Test
  void toStringNeverShowsThePassword() {
    MySqlSourceAddress address =
        MySqlSourceAddress.parse("mysql://floe:hunter2@h:1/db", "--source");

    assertThat(address.toString())
        .isEqualTo("mysql://floe:******@h:1/db")
        .doesNotContain("hunter2");
  }

  @Test
  void missingSchemeNamesTheInputTheValueAndTheSyntax() {
    assertThatThrownBy(() -> MySqlSourceAddress.parse("floe@localhost:3306", "--source"))
        .isInstanceOf(FloeException.class)
        .hasMessage(
            "Invalid --source 'floe@localhost:3306': it is not a URL of the form"
                + " mysql://USER[:PASSWORD]@HOST[:PORT][/DATABASE]. Write it as"
                + " mysql://USER[:PASSWORD]@HOST[:PORT][/DATABASE], for example"
                + " mysql://floe@127.0.0.1:3306/shop (the password may instead come from the"
                + " FLOE_SOURCE_PASSWORD environment variable).")
        .extracting(error -> ((FloeException) error).category())
        .isEqualTo(ErrorCategory.BAD_INPUT);
  }

  @Test
  void badPortIsNamedAndThePasswordIsMasked() {
    assertThatThrownBy(
            () -> MySqlSourceAddress.parse("mysql://floe:hunter2@h:99999/db", "--source"))
        .hasMessageStartingWith(
            "Invalid --source 'mysql://floe:******@h:99999/db': the port '99999' is not a number"
                + " between 1 and 65535.")
        .message()
        .doesNotContain("hunter2");
  }

  @Test
  void wrongSchemeIsExplained() {
    assertThatThrownBy(() -> MySqlSourceAddress.parse("postgres://u@h/db", "source.url"))
        .hasMessageStartingWith(
            "Invalid source.url 'postgres://u@h/db': the scheme is 'postgres', but Floe reads"
                + " mysql:// (or mariadb://).");
  }

  @Test
  void missingUserIsExplained() {
    assertThatThrownBy(() -> MySqlSourceAddress.parse("mysql://:pw@h/db", "--source"))
        .hasMessageStartingWith(
            "Invalid --source 'mysql://:******@h/db': the user name is missing.");
  }
}

package dev.floe.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.floe.core.Secret;
import dev.floe.core.config.VerificationSettings;
import dev.floe.core.error.ErrorCategory;
import dev.floe.core.error.FloeException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code keeper.verifications} section of floe.yaml, read by {@link ConfigLoader}. */
class ConfigLoaderVerificationsTest {

  private static final String PASSWORD = "verify-8213";

  @TempDir Path directory;

  private final ConfigLoader loader = new ConfigLoader(Map.of("DB_PASSWORD", PASSWORD));

  @Test
  void withoutTheSectionThereIsNoVerification() throws Exception {
    assertThat(load("").keeper().verifications()).isEmpty();
  }

  @Test
  void readsTheIssuesExampleWithThePasswordFromTheEnvironment() throws Exception {
    List<VerificationSettings> verifications =
        load("""
                keeper:
                  verifications:
                    - { name: orders, source: mysql://floe@db:3306, password: "${env:DB_PASSWORD}",
                        table: shop.orders, target: ods.orders, time-column: updated_at,
                        window: 7d, at: "00:30", time-zone: Asia/Shanghai }
                """)
            .keeper()
            .verifications();

    assertThat(verifications).hasSize(1);
    VerificationSettings orders = verifications.get(0);
    assertThat(orders.name()).isEqualTo("orders");
    assertThat(orders.source().host()).isEqualTo("db");
    assertThat(orders.source().password().map(Secret::reveal)).contains(PASSWORD);
    assertThat(orders.table()).isEqualTo("shop.orders");
    assertThat(orders.target()).contains("ods.orders");
    assertThat(orders.timeColumn()).isEqualTo("updated_at");
    assertThat(orders.window()).isEqualTo("7d");
    assertThat(orders.cutoff()).isEqualTo("today");
    assertThat(orders.at()).isEqualTo(LocalTime.of(0, 30));
    assertThat(orders.timeZone()).contains(ZoneId.of("Asia/Shanghai"));
    assertThat(orders.toString()).doesNotContain(PASSWORD);
  }

  @Test
  void theSourceAndItsPasswordDefaultToTheTopLevelSource() throws Exception {
    VerificationSettings orders =
        load("""
                source:
                  url: mysql://floe@primary:3307
                  password: ${env:DB_PASSWORD}
                keeper:
                  verifications:
                    - { name: orders, table: shop.orders, time-column: updated_at }
                """)
            .keeper()
            .verifications()
            .get(0);

    assertThat(orders.source().host()).isEqualTo("primary");
    assertThat(orders.source().port()).isEqualTo(3307);
    assertThat(orders.source().password().map(Secret::reveal)).contains(PASSWORD);
    assertThat(orders.target()).isEmpty();
    assertThat(orders.at()).isEqualTo(VerificationSettings.DEFAULT_AT);
    assertThat(orders.timeZone()).as("asked from the source").isEmpty();
  }

  @Test
  void refusesEachBadValueNamingTheKeyTheValueAndTheFix() throws Exception {
    String valid = "name: orders, source: mysql://floe@db, table: shop.orders, time-column: t";
    assertRefused(
        item("source: mysql://floe@db, table: shop.orders, time-column: t"),
        ", line 3: keeper.verifications[0].name is required: the API and the alerts name it."
            + " Add it, e.g. name: orders.");
    assertRefused(
        item("name: orders, table: shop.orders, time-column: t"),
        ", line 3: keeper.verifications[0].source is required when source.url is not set: the"
            + " MySQL source to verify. Add it, e.g. source: mysql://floe@127.0.0.1:3306/shop.");
    assertRefused(
        item("name: orders, source: mysql://floe@db, table: orders, time-column: t"),
        ", line 3: keeper.verifications[0].table must be DATABASE.TABLE, e.g. table:"
            + " shop.orders, got 'orders'.");
    assertRefused(
        item(valid + ", at: \"25:00\""),
        ", line 3: keeper.verifications[0].at must be a time of day HH:MM from 00:00 to 23:59,"
            + " quoted, e.g. at: \"00:30\", got '25:00'.");
    assertRefused(
        item(valid + ", time-zone: Mars/Olympus"),
        ", line 3: keeper.verifications[0].time-zone must be an IANA time zone such as"
            + " Asia/Shanghai, Europe/Berlin or UTC, got 'Mars/Olympus'.");
    assertRefused(
        item(valid + ", window: 7 days"),
        ", line 3: keeper.verifications[0].window must be a length like 7d, 36h or 90m, got '7"
            + " days'.");
    assertRefused(
        item(valid + ", cutoff: yesterday"),
        ", line 3: keeper.verifications[0].cutoff must be today, a date (2026-11-29) or an ISO"
            + " date-time (2026-11-29T06:00), got 'yesterday'.");
    assertRefused(
        """
        keeper:
          verifications:
            - { %s }
            - { %s }
        """
            .formatted(valid, valid.replace("orders,", "ORDERS,")),
        ", line 4: keeper.verifications[1].name 'ORDERS' is the name of keeper.verifications[0]"
            + " too (names are compared ignoring case). Give each verification a name of its"
            + " own.");
  }

  @Test
  void aBadSourceUrlIsRefusedWithoutItsPassword() throws Exception {
    Path file =
        write(
            item("name: orders, source: 'postgres://floe:hunter2@db', table: a.b, time-column: t"));

    assertThatThrownBy(() -> loader.load(file, Optional.empty(), directory))
        .isInstanceOf(FloeException.class)
        .hasMessageStartingWith(
            "Config file " + file + ", line 3: Invalid keeper.verifications[0].source")
        .hasMessageNotContaining("hunter2");
  }

  private static String item(String keys) {
    return """
        keeper:
          verifications:
            - { %s }
        """
        .formatted(keys);
  }

  private void assertRefused(String yaml, String messageAfterFile) throws Exception {
    Path file = write(yaml);

    assertThatThrownBy(() -> loader.load(file, Optional.empty(), directory))
        .isInstanceOf(FloeException.class)
        .hasMessage("Config file " + file + messageAfterFile)
        .extracting(error -> ((FloeException) error).category())
        .isEqualTo(ErrorCategory.BAD_INPUT);
  }

  private dev.floe.core.config.FloeSettings load(String yaml) throws Exception {
    return loader.load(write(yaml), Optional.empty(), directory);
  }

  private Path write(String yaml) throws Exception {
    Path file = directory.resolve("floe.yaml");
    Files.writeString(file, yaml);
    return file;
  }
}

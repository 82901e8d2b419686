package dev.floe.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.floe.core.Secret;
import dev.floe.core.alert.AlertChannelSettings;
import dev.floe.core.alert.AlertChannelType;
import dev.floe.core.alert.AlertRule;
import dev.floe.core.alert.AlertSettings;
import dev.floe.core.alert.SmtpSettings;
import dev.floe.core.error.ErrorCategory;
import dev.floe.core.error.FloeException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code keeper.alerts} section of floe.yaml, read by {@link ConfigLoader}. */
class ConfigLoaderAlertsTest {

  private static final String HOOK_SECRET = "hook-5772";
  private static final String SMTP_PASSWORD = "smtp-1414";

  @TempDir Path directory;

  private final ConfigLoader loader =
      new ConfigLoader(Map.of("FLOE_HOOK_SECRET", HOOK_SECRET, "SMTP_PW", SMTP_PASSWORD));

  @Test
  void withoutAnAlertsSectionEveryRuleHasItsDefaultsAndNoChannel() throws Exception {
    AlertSettings alerts = load("").keeper().alerts();

    assertThat(alerts).isEqualTo(AlertSettings.defaults());
    assertThat(alerts.reNotify()).isEqualTo(Duration.ZERO);
    assertThat(alerts.channels()).isEmpty();
    assertThat(alerts.rule(AlertRule.TABLE_UNHEALTHY).enabled()).isTrue();
    assertThat(alerts.rule(AlertRule.TABLE_UNHEALTHY).value("health-below")).isEqualTo(60);
    assertThat(alerts.rule(AlertRule.TABLE_UNHEALTHY).duration("for"))
        .isEqualTo(Duration.ofMinutes(30));
    assertThat(alerts.rule(AlertRule.SYNC_LAG).duration("above")).isEqualTo(Duration.ofMinutes(5));
    assertThat(alerts.rule(AlertRule.TASK_AGE).duration("above")).isEqualTo(Duration.ofHours(1));
    assertThat(alerts.rule(AlertRule.TABLE_REWOUND).duration("for"))
        .isEqualTo(Duration.ofHours(24));
  }

  @Test
  void readsTheIssuesExample() throws Exception {
    AlertSettings alerts =
        load("""
                keeper:
                  alerts:
                    re-notify: 4h
                    link-base: https://floe.example.com/
                    rules:
                      table-unhealthy: { health-below: 40, for: 10m }
                      sync-lag: { above: 2m }
                      catalog-unreachable: { enabled: false }
                    channels:
                      - { name: ops, type: webhook, url: https://hooks.example/floe, secret: '${env:FLOE_HOOK_SECRET}' }
                      - { name: team, type: dingtalk, url: 'https://oapi.dingtalk.com/robot/send?access_token=abc', secret: s1 }
                      - { name: mail, type: email, to: [ops@example.com, dba@example.com] }
                    smtp: { host: smtp.example.com, port: 2525, user: floe, password: '${env:SMTP_PW}', from: floe@example.com, starttls: false }
                """)
            .keeper()
            .alerts();

    assertThat(alerts.reNotify()).isEqualTo(Duration.ofHours(4));
    assertThat(alerts.linkBase()).contains("https://floe.example.com");
    assertThat(alerts.rule(AlertRule.TABLE_UNHEALTHY).value("health-below")).isEqualTo(40);
    assertThat(alerts.rule(AlertRule.TABLE_UNHEALTHY).duration("for"))
        .isEqualTo(Duration.ofMinutes(10));
    assertThat(alerts.rule(AlertRule.SYNC_LAG).duration("above")).isEqualTo(Duration.ofMinutes(2));
    assertThat(alerts.rule(AlertRule.CATALOG_UNREACHABLE).enabled()).isFalse();
    assertThat(alerts.rule(AlertRule.SYNC_STALLED).enabled()).isTrue();
    assertThat(alerts.channels())
        .containsExactly(
            new AlertChannelSettings(
                "ops",
                AlertChannelType.WEBHOOK,
                Optional.of(URI.create("https://hooks.example/floe")),
                Optional.of(Secret.of(HOOK_SECRET)),
                List.of()),
            new AlertChannelSettings(
                "team",
                AlertChannelType.DINGTALK,
                Optional.of(URI.create("https://oapi.dingtalk.com/robot/send?access_token=abc")),
                Optional.of(Secret.of("s1")),
                List.of()),
            new AlertChannelSettings(
                "mail",
                AlertChannelType.EMAIL,
                Optional.empty(),
                Optional.empty(),
                List.of("ops@example.com", "dba@example.com")));
    assertThat(alerts.channels().get(1).target()).isEqualTo("oapi.dingtalk.com");
    assertThat(alerts.smtp())
        .contains(
            new SmtpSettings(
                "smtp.example.com",
                2525,
                Optional.of("floe"),
                Optional.of(Secret.of(SMTP_PASSWORD)),
                "floe@example.com",
                false));
  }

  @Test
  void refusesAnUnknownRuleOrKey() throws Exception {
    assertRefused(
        "keeper:\n  alerts:\n    rules:\n      table-slow: { above: 1h }\n",
        ", line 4: unknown key 'keeper.alerts.rules.table-slow'. The keys under"
            + " 'keeper.alerts.rules' are: table-unhealthy, table-quarantined,"
            + " capacity-below-target, task-age, sync-stalled, sync-lag, verification-different,"
            + " table-rewound, catalog-unreachable. Every key is listed in docs/config.md and by"
            + " 'floe config --reference'.");
    assertRefused(
        "keeper:\n  alerts:\n    rules:\n      sync-lag: { below: 1h }\n",
        ", line 4: unknown key 'keeper.alerts.rules.sync-lag.below'. The keys under"
            + " 'keeper.alerts.rules.sync-lag' are: enabled, above. Every key is listed in"
            + " docs/config.md and by 'floe config --reference'.");
  }

  @Test
  void refusesAThresholdOutOfRange() throws Exception {
    assertRefused(
        "keeper:\n  alerts:\n    rules:\n      table-unhealthy: { health-below: 150 }\n",
        ", line 4: keeper.alerts.rules.table-unhealthy.health-below must be a whole number from 1"
            + " to 100, got 150. Write a value in that range, or leave it out for the default"
            + " (60).");
    assertRefused(
        "keeper:\n  alerts:\n    rules:\n      task-age: { above: 10ms }\n",
        ", line 4: keeper.alerts.rules.task-age.above must be a duration of at least 1s such as"
            + " 90s, 30m or 2h, got 10ms. Write a value in that range, or leave it out for the"
            + " default (1h).");
    assertRefused(
        "keeper:\n  alerts:\n    rules:\n      sync-lag: { above: soon }\n",
        ", line 4: keeper.alerts.rules.sync-lag.above must be a duration above zero such as 30s,"
            + " 15m, 12h or 3d, got 'soon'. See docs/config.md for what it takes.");
    assertRefused(
        "keeper:\n  alerts:\n    re-notify: often\n",
        ", line 3: keeper.alerts.re-notify must be a duration such as 30m or 4h, or 0 for never,"
            + " got 'often'. See docs/config.md for what it takes.");
  }

  @Test
  void refusesAChannelUrlThatIsNotHttpWithoutShowingItsQuery() throws Exception {
    assertRefused(
        "keeper:\n  alerts:\n    channels:\n"
            + "      - { name: team, type: dingtalk, url: 'ftp://x/robot?access_token=t0ken' }\n",
        ", line 4: keeper.alerts.channels[0].url must be an http:// or https:// URL with a host,"
            + " got 'ftp://x/robot?...'. Write e.g. https://hooks.example/floe.");
    assertRefused(
        "keeper:\n  alerts:\n    channels:\n      - { name: ops, type: slack }\n",
        ", line 4: keeper.alerts.channels[0].url is required for type slack: the incoming"
            + " webhook's http(s) URL. Add it, e.g. url: https://hooks.example/floe.");
    assertRefused(
        "keeper:\n  alerts:\n    link-base: floe.example.com\n",
        ", line 3: keeper.alerts.link-base must be an http:// or https:// URL with a host, got"
            + " 'floe.example.com'. Write e.g. https://hooks.example/floe.");
  }

  @Test
  void refusesChannelsThatDoNotFitTheirType() throws Exception {
    assertRefused(
        "keeper:\n  alerts:\n    channels:\n"
            + "      - { name: ops, type: slack, url: 'https://h/x', secret: s }\n",
        ", line 4: keeper.alerts.channels[0].secret is only for channels of type webhook,"
            + " dingtalk, feishu, and this one is of type slack. Remove it.");
    assertRefused(
        "keeper:\n  alerts:\n    channels:\n      - { name: mail, type: email, to: [a@b.c] }\n",
        ", line 4: keeper.alerts.channels[0] is of type email, and keeper.alerts.smtp.host is"
            + " not set. Add the mail server under keeper.alerts.smtp (host, port, user,"
            + " password, from, starttls).");
    assertRefused(
        "keeper:\n  alerts:\n    channels:\n"
            + "      - { name: ops, type: webhook, url: 'https://h/x' }\n"
            + "      - { name: OPS, type: webhook, url: 'https://h/y' }\n",
        ", line 5: keeper.alerts.channels[1].name 'OPS' is the name of"
            + " keeper.alerts.channels[0] too (names are compared ignoring case). Give each"
            + " channel a name of its own.");
    assertRefused(
        "keeper:\n  alerts:\n    channels:\n      - { name: ops, type: pager, url: 'https://h' }\n",
        ", line 4: keeper.alerts.channels[0].type must be one of webhook, slack, dingtalk,"
            + " feishu, wecom, email, got 'pager'. See docs/config.md for what it takes.");
  }

  @Test
  void neverShowsASecret() throws Exception {
    Path file =
        write(
            "keeper:\n  alerts:\n    channels:\n"
                + "      - { name: ops, type: webhook, url: 'https://h/x', secret: ["
                + HOOK_SECRET
                + "] }\n");
    assertThatThrownBy(() -> loader.load(file, Optional.empty(), directory))
        .hasMessageContaining("keeper.alerts.channels[0].secret must be")
        .message()
        .doesNotContain(HOOK_SECRET);
    AlertSettings alerts =
        load("keeper:\n  alerts:\n    channels:\n"
                + "      - { name: ops, type: webhook, url: 'https://h/x', secret: "
                + HOOK_SECRET
                + " }\n")
            .keeper()
            .alerts();
    assertThat(alerts.toString()).doesNotContain(HOOK_SECRET);
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

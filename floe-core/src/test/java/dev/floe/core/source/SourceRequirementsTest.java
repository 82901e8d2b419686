package dev.floe.core.source;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.core.source.SourceCheck.Status;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SourceRequirementsTest {

  private static final SourceRequirements REQUIREMENTS =
      new SourceRequirements(Duration.ofHours(24));
  private static final List<String> GOOD_GRANTS =
      List.of("GRANT SELECT, REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO `floe`@`%`");

  @Test
  void goodSourcePasses() {
    SourceReport report = REQUIREMENTS.check("src", facts(goodVariables(), GOOD_GRANTS, false));

    assertThat(report.passed()).isTrue();
    assertThat(report.checks())
        .extracting(SourceCheck::name)
        .containsExactly(
            "server reachable, credentials valid",
            "server version",
            "log_bin",
            "binlog_format",
            "binlog_row_image",
            "binlog retention",
            "server_id",
            "privilege SELECT",
            "privilege REPLICATION SLAVE",
            "privilege REPLICATION CLIENT",
            "replica logs its changes");
  }

  @Test
  void statementFormatFailsWithFix() {
    Map<String, String> variables = goodVariables();
    variables.put("binlog_format", "STATEMENT");

    SourceCheck check = only(REQUIREMENTS.check("src", facts(variables, GOOD_GRANTS, false)));

    assertThat(check.name()).isEqualTo("binlog_format");
    assertThat(check.detail()).isEqualTo("STATEMENT (needs ROW)");
    assertThat(check.fix()).get().asString().startsWith("Run SET GLOBAL binlog_format = 'ROW';");
  }

  @Test
  void binlogOffFails() {
    Map<String, String> variables = goodVariables();
    variables.put("log_bin", "OFF");

    assertThat(only(REQUIREMENTS.check("src", facts(variables, GOOD_GRANTS, false))).name())
        .isEqualTo("log_bin");
  }

  @Test
  void minimalRowImageFails() {
    Map<String, String> variables = goodVariables();
    variables.put("binlog_row_image", "MINIMAL");

    assertThat(only(REQUIREMENTS.check("src", facts(variables, GOOD_GRANTS, false))).detail())
        .isEqualTo("MINIMAL (needs FULL)");
  }

  @Test
  void shortRetentionFailsAndNamesTheSecondsToSet() {
    Map<String, String> variables = goodVariables();
    variables.put("binlog_expire_logs_seconds", "3600");

    SourceCheck check = only(REQUIREMENTS.check("src", facts(variables, GOOD_GRANTS, false)));

    assertThat(check.detail()).startsWith("binlogs are purged after 1 hour (needs at least 1 day");
    assertThat(check.fix())
        .get()
        .asString()
        .startsWith("Run SET GLOBAL binlog_expire_logs_seconds = 86400;");
  }

  @Test
  void retentionFromExpireLogsDaysAndNeverPurged() {
    Map<String, String> variables = goodVariables();
    variables.put("binlog_expire_logs_seconds", "0");
    variables.put("expire_logs_days", "0.5");
    assertThat(SourceRequirements.retentionSeconds(facts(variables, GOOD_GRANTS, false)))
        .contains(43200L);

    variables.put("expire_logs_days", "0");
    assertThat(SourceRequirements.retentionSeconds(facts(variables, GOOD_GRANTS, false))).isEmpty();
    assertThat(REQUIREMENTS.check("src", facts(variables, GOOD_GRANTS, false)).passed()).isTrue();
  }

  @Test
  void missingPrivilegesEachFail() {
    SourceReport report =
        REQUIREMENTS.check(
            "src", facts(goodVariables(), List.of("GRANT USAGE ON *.* TO `floe`@`%`"), false));

    assertThat(report.failures())
        .extracting(SourceCheck::name)
        .containsExactly(
            "privilege SELECT", "privilege REPLICATION SLAVE", "privilege REPLICATION CLIENT");
    assertThat(report.failures().get(1).fix())
        .contains("GRANT REPLICATION SLAVE ON *.* TO 'floe'@'%';");
  }

  @Test
  void selectOnTheNamedDatabaseIsEnough() {
    SourceFacts facts =
        new SourceFacts(
            "'floe'@'%'",
            ServerVersion.parse("8.0.36"),
            goodVariables(),
            GrantSet.parse(
                List.of(
                    "GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO `floe`@`%`",
                    "GRANT SELECT ON `shop`.* TO `floe`@`%`")),
            false,
            Optional.of("shop"));

    assertThat(REQUIREMENTS.check("src", facts).passed()).isTrue();
  }

  @Test
  void replicaWithoutLogSlaveUpdatesFails() {
    Map<String, String> variables = goodVariables();
    variables.put("log_slave_updates", "OFF");

    SourceCheck check = only(REQUIREMENTS.check("src", facts(variables, GOOD_GRANTS, true)));

    assertThat(check.name()).isEqualTo("replica logs its changes");
    assertThat(check.status()).isEqualTo(Status.FAIL);

    variables.put("log_slave_updates", "ON");
    assertThat(REQUIREMENTS.check("src", facts(variables, GOOD_GRANTS, true)).passed()).isTrue();
  }

  @Test
  void unsupportedVersionOnlyWarns() {
    SourceFacts facts =
        new SourceFacts(
            "'floe'@'%'",
            ServerVersion.parse("5.6.51-log"),
            goodVariables(),
            GrantSet.parse(GOOD_GRANTS),
            false,
            Optional.empty());

    SourceReport report = REQUIREMENTS.check("src", facts);

    assertThat(report.passed()).isTrue();
    assertThat(report.checks().get(1).status()).isEqualTo(Status.WARN);
  }

  private static SourceCheck only(SourceReport report) {
    assertThat(report.failures()).hasSize(1);
    return report.failures().get(0);
  }

  private static Map<String, String> goodVariables() {
    Map<String, String> variables = new HashMap<>();
    variables.put("log_bin", "ON");
    variables.put("binlog_format", "ROW");
    variables.put("binlog_row_image", "FULL");
    variables.put("binlog_expire_logs_seconds", "604800");
    variables.put("server_id", "1");
    variables.put("log_slave_updates", "OFF");
    return variables;
  }

  private static SourceFacts facts(
      Map<String, String> variables, List<String> grants, boolean replica) {
    return new SourceFacts(
        "'floe'@'%'",
        ServerVersion.parse("10.11.6-MariaDB-log"),
        variables,
        GrantSet.parse(grants),
        replica,
        Optional.empty());
  }
}

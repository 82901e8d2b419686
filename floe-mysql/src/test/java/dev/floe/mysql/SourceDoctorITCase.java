package dev.floe.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.core.source.MySqlSourceAddress;
import dev.floe.core.source.SourceCheck;
import dev.floe.core.source.SourceCheck.Status;
import dev.floe.core.source.SourceReport;
import dev.floe.core.source.SourceRequirements;
import dev.floe.testing.MariaDbExtension;
import dev.floe.testing.MariaDbServer;
import dev.floe.testing.Poll;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code floe doctor}'s checks against real MariaDB servers, good and misconfigured. */
@ExtendWith(MariaDbExtension.class)
class SourceDoctorITCase {

  private static final String SYNC_PRIVILEGES = "SELECT, REPLICATION SLAVE, REPLICATION CLIENT";

  private final SourceDoctor doctor =
      new SourceDoctor(
          new MySqlConnections(Duration.ofSeconds(5)),
          new SourceFactsReader(),
          new SourceRequirements(Duration.ofHours(24)));

  @Test
  void wellConfiguredSourcePassesEveryCheck(MariaDbServer server) {
    String database = server.createDatabase("doctor");
    server.createUser("floe_good", "pw-good", SYNC_PRIVILEGES);

    SourceReport report = check(server.sourceUrl("floe_good", "pw-good", database));

    assertThat(report.failures()).isEmpty();
    assertThat(report.checks())
        .filteredOn(check -> check.name().equals("server version"))
        .singleElement()
        .satisfies(check -> assertThat(check.detail()).startsWith("MariaDB 10."));
    assertThat(report.checks())
        .filteredOn(check -> check.name().equals("server reachable, credentials valid"))
        .singleElement()
        .satisfies(check -> assertThat(check.detail()).isEqualTo("connected as 'floe_good'@'%'"));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({
    "binlog off, log_bin, OFF (the binary log is off; needs ON)",
    "statement format, binlog_format, STATEMENT (needs ROW)",
    "mixed format, binlog_format, MIXED (needs ROW)",
    "minimal row image, binlog_row_image, MINIMAL (needs FULL)",
    "noblob row image, binlog_row_image, NOBLOB (needs FULL)",
    "one hour retention, binlog retention, 'binlogs are purged after 1 hour (needs at least 1 day, so a sync stopped for that long can resume)'"
  })
  void eachMisconfigurationFailsExactlyItsCheck(
      String configuration, String failingCheck, String detail) {
    try (MariaDbServer server = misconfigured(configuration).start()) {
      server.createUser("floe", "pw", SYNC_PRIVILEGES);

      SourceReport report = check(server.sourceUrl("floe", "pw", ""));

      assertThat(report.passed()).isFalse();
      assertThat(report.failures())
          .singleElement()
          .satisfies(
              check -> {
                assertThat(check.name()).isEqualTo(failingCheck);
                assertThat(check.detail()).isEqualTo(detail);
                assertThat(check.fix()).isPresent();
              });
    }
  }

  @Test
  void missingPrivilegesAreEachReported(MariaDbServer server) {
    String database = server.createDatabase("doctor");
    server.createUser("floe_weak", "pw-weak", "");

    SourceReport report = check(server.sourceUrl("floe_weak", "pw-weak", ""));

    assertThat(report.failures())
        .extracting(SourceCheck::name)
        .containsExactly(
            "privilege SELECT", "privilege REPLICATION SLAVE", "privilege REPLICATION CLIENT");
    assertThat(report.failures().get(1).fix())
        .contains("GRANT REPLICATION SLAVE ON *.* TO 'floe_weak'@'%';");

    server.execute("GRANT SELECT ON `" + database + "`.* TO 'floe_weak'@'%'");
    server.execute("GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO 'floe_weak'@'%'");
    assertThat(check(server.sourceUrl("floe_weak", "pw-weak", database)).failures()).isEmpty();
  }

  @Test
  void replicaThatDoesNotLogReplicatedChangesFails(MariaDbServer primary) throws Exception {
    try (MariaDbServer replica =
        MariaDbServer.builder().argument("--log-slave-updates=OFF").start()) {
      replica.replicateFrom(primary);
      awaitReplicating(replica);
      replica.createUser("floe", "pw", SYNC_PRIVILEGES);

      SourceReport report = check(replica.sourceUrl("floe", "pw", ""));

      assertThat(report.failures())
          .singleElement()
          .satisfies(
              check -> {
                assertThat(check.name()).isEqualTo("replica logs its changes");
                assertThat(check.fix()).get().asString().startsWith("Add log_slave_updates=ON");
              });
    }
  }

  @Test
  void replicaThatLogsReplicatedChangesPasses(MariaDbServer primary) throws Exception {
    try (MariaDbServer replica =
        MariaDbServer.builder().argument("--log-slave-updates=ON").start()) {
      replica.replicateFrom(primary);
      awaitReplicating(replica);
      replica.createUser("floe", "pw", SYNC_PRIVILEGES);

      SourceReport report = check(replica.sourceUrl("floe", "pw", ""));

      assertThat(report.failures()).isEmpty();
      assertThat(report.checks())
          .anySatisfy(
              check -> assertThat(check.detail()).isEqualTo("replica with log_slave_updates=ON"));
    }
  }

  @Test
  void wrongPasswordIsExplainedWithoutThePassword(MariaDbServer server) {
    server.createUser("floe_pw", "right-password", SYNC_PRIVILEGES);

    SourceReport report = check(server.sourceUrl("floe_pw", "wrong-password", ""));

    SourceCheck failure = onlyConnectionFailure(report);
    assertThat(failure.detail())
        .startsWith(
            "The server at 127.0.0.1:" + server.port() + " refused user 'floe_pw': Access denied")
        .doesNotContain("wrong-password");
    assertThat(failure.fix()).get().asString().contains("FLOE_SOURCE_PASSWORD");
  }

  @Test
  void unreachableServerIsExplained() throws Exception {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closedPort = socket.getLocalPort();
    }

    SourceReport report = check("mysql://floe:pw@127.0.0.1:" + closedPort);

    SourceCheck failure = onlyConnectionFailure(report);
    assertThat(failure.detail())
        .isEqualTo(
            "Cannot reach a MySQL server at 127.0.0.1:" + closedPort + " (Connection refused)");
    assertThat(failure.fix()).get().asString().startsWith("Check the host and port");
  }

  @Test
  void unknownDatabaseIsExplained(MariaDbServer server) {
    server.createUser("floe_db", "pw", SYNC_PRIVILEGES);

    SourceReport report = check(server.sourceUrl("floe_db", "pw", "no_such_db"));

    assertThat(onlyConnectionFailure(report).detail())
        .isEqualTo("Database 'no_such_db' does not exist on 127.0.0.1:" + server.port());
  }

  private SourceReport check(String url) {
    return doctor.check(MySqlSourceAddress.parse(url, "--source"));
  }

  private static SourceCheck onlyConnectionFailure(SourceReport report) {
    assertThat(report.checks()).hasSize(1);
    SourceCheck check = report.checks().get(0);
    assertThat(check.name()).isEqualTo("server reachable, credentials valid");
    assertThat(check.status()).isEqualTo(Status.FAIL);
    return check;
  }

  private static MariaDbServer.Builder misconfigured(String configuration) {
    MariaDbServer.Builder builder = MariaDbServer.builder();
    Consumer<MariaDbServer.Builder> setting =
        switch (configuration) {
          case "binlog off" -> b -> b.binlog(false);
          case "statement format" -> b -> b.binlogFormat("STATEMENT");
          case "mixed format" -> b -> b.binlogFormat("MIXED");
          case "minimal row image" -> b -> b.binlogRowImage("MINIMAL");
          case "noblob row image" -> b -> b.binlogRowImage("NOBLOB");
          case "one hour retention" -> b -> b.argument("--binlog-expire-logs-seconds=3600");
          default -> throw new IllegalArgumentException(configuration);
        };
    setting.accept(builder);
    return builder;
  }

  private static void awaitReplicating(MariaDbServer replica) throws Exception {
    try {
      Poll.until(
          "the replica replicates",
          Duration.ofSeconds(30),
          Duration.ofMillis(100),
          () -> {
            try (Connection connection = replica.rootConnection();
                Statement statement = connection.createStatement();
                ResultSet status = statement.executeQuery("SHOW SLAVE STATUS")) {
              return status.next() && "Yes".equals(status.getString("Slave_IO_Running"));
            }
          });
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + ": " + replica.errorLogTail(), e);
    }
  }
}

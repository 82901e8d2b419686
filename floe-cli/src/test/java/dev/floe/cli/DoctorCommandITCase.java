package dev.floe.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.testing.MariaDbExtension;
import dev.floe.testing.MariaDbServer;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

@ExtendWith(MariaDbExtension.class)
class DoctorCommandITCase {

  private static final String PRIVILEGES = "SELECT, REPLICATION SLAVE, REPLICATION CLIENT";

  @TempDir Path directory;

  @Test
  void goodSourceExitsZeroWithTheChecklist(MariaDbServer server) {
    server.createUser("cli_good", "pw-cli-good", PRIVILEGES);

    CliRun run =
        CliRun.run(
            directory,
            Map.of("FLOE_SOURCE_PASSWORD", "pw-cli-good"),
            "doctor",
            "--source",
            server.sourceUrl("cli_good", "", ""));

    assertThat(run.exitCode()).as(run.out() + run.err()).isZero();
    assertThat(run.out())
        .contains("  ok    log_bin ")
        .contains("  ok    binlog_format ")
        .contains("Every required check passed")
        .doesNotContain("pw-cli-good");
  }

  @Test
  void failedCheckExitsOneWithTheFix(MariaDbServer server) {
    server.createUser("cli_weak", "pw-weak", "SELECT");

    CliRun run =
        CliRun.run(directory, "doctor", "--source", server.sourceUrl("cli_weak", "pw-weak", ""));

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.out())
        .contains("Checking mysql://cli_weak:******@127.0.0.1:" + server.port())
        .contains("FAIL  privilege REPLICATION SLAVE")
        .contains("fix: GRANT REPLICATION SLAVE ON *.* TO 'cli_weak'@'%';")
        .contains("2 required checks failed")
        .doesNotContain("pw-weak");
  }

  @Test
  void retentionThresholdComesFromTheFlagOrTheConfig(MariaDbServer server) throws Exception {
    server.createUser("cli_ret", "pw", PRIVILEGES);
    try (MariaDbServer shortRetention =
        MariaDbServer.builder().argument("--binlog-expire-logs-seconds=7200").start()) {
      shortRetention.createUser("cli_ret", "pw", PRIVILEGES);
      String url = shortRetention.sourceUrl("cli_ret", "pw", "");

      assertThat(CliRun.run(directory, "doctor", "--source", url).exitCode()).isEqualTo(1);
      assertThat(
              CliRun.run(directory, "doctor", "--source", url, "--min-binlog-retention", "2")
                  .exitCode())
          .isZero();

      Files.writeString(
          directory.resolve("floe.yaml"),
          "source:\n  url: " + url + "\ndoctor:\n  min-binlog-retention-hours: 1\n");
      assertThat(CliRun.run(directory, "--config", "floe.yaml", "doctor").exitCode()).isZero();
    }
  }

  @Test
  void passwordFromConfigEnvironmentReference(MariaDbServer server) throws Exception {
    server.createUser("cli_env", "pw-from-env", PRIVILEGES);
    Files.writeString(
        directory.resolve("floe.yaml"),
        "source:\n  url: "
            + server.sourceUrl("cli_env", "", "")
            + "\n  password: ${env:SHOP_PW}\n");

    CliRun run =
        CliRun.run(directory, Map.of("SHOP_PW", "pw-from-env"), "--config", "floe.yaml", "doctor");

    assertThat(run.exitCode()).as(run.out()).isZero();
  }

  @Test
  void unreachableSourceExitsOneAndSaysWhatToCheck() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = socket.getLocalPort();
    }

    CliRun run =
        CliRun.run(directory, "doctor", "--source", "mysql://floe:secret@127.0.0.1:" + port);

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.out())
        .contains(
            "FAIL  server reachable, credentials valid  Cannot reach a MySQL server at 127.0.0.1:"
                + port)
        .doesNotContain("secret");
  }

  @Test
  void missingSourceIsExplained() {
    CliRun run = CliRun.run(directory, "doctor");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .isEqualTo(
            "Error: No source given. Pass --source mysql://USER[:PASSWORD]@HOST[:PORT][/DATABASE]"
                + " (for example --source mysql://floe@127.0.0.1:3306/shop) or set source.url in"
                + " floe.yaml.\n");
  }

  @Test
  void negativeRetentionIsRefused() {
    CliRun run =
        CliRun.run(directory, "doctor", "--source", "mysql://u@h", "--min-binlog-retention", "-3");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .isEqualTo("Error: --min-binlog-retention must be 0 or more hours, got -3.\n");
  }
}

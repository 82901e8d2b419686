package dev.floe.cli;

import dev.floe.core.config.FloeSettings;
import dev.floe.core.error.FloeException;
import dev.floe.core.source.MySqlSourceAddress;
import dev.floe.core.source.SourceReport;
import dev.floe.core.source.SourceRequirements;
import dev.floe.mysql.MySqlConnections;
import dev.floe.mysql.SourceDoctor;
import dev.floe.mysql.SourceFactsReader;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/** {@code floe doctor}: is this MySQL/MariaDB source ready for real-time sync? */
@Command(
    name = "doctor",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Check a MySQL/MariaDB source for what real-time sync needs: reachable with valid"
          + " credentials, log_bin ON, binlog_format ROW, binlog_row_image FULL, enough binlog"
          + " retention, a server id, the SELECT / REPLICATION SLAVE / REPLICATION CLIENT"
          + " privileges, and on a replica log_slave_updates. Prints a checklist with a fix for"
          + " each failure.",
      "The password comes from the URL, else FLOE_SOURCE_PASSWORD, else source.password.",
      "Exit code: 0 every required check passed, 1 a check failed, 2 bad input."
    })
final class DoctorCommand implements Callable<Integer> {

  @ParentCommand FloeCommand floe;

  @Option(
      names = "--source",
      paramLabel = "URL",
      description = "mysql://USER[:PASSWORD]@HOST[:PORT][/DATABASE] (default: source.url).")
  String source;

  @Option(
      names = "--min-binlog-retention",
      paramLabel = "HOURS",
      description = "Binlog retention to require (default: doctor.min-binlog-retention-hours, 24).")
  Long minimumRetentionHours;

  @Option(
      names = "--connect-timeout",
      paramLabel = "SECONDS",
      defaultValue = "10",
      description = "How long to wait for the server (default: ${DEFAULT-VALUE}).")
  int connectTimeoutSeconds;

  @Override
  public Integer call() {
    FloeSettings settings = floe.settings();
    MySqlSourceAddress address =
        SourceAddresses.resolve(Optional.ofNullable(source), settings, floe.environment());
    Duration retention = settings.minimumBinlogRetention();
    if (minimumRetentionHours != null) {
      if (minimumRetentionHours < 0) {
        throw FloeException.badInput(
            "--min-binlog-retention must be 0 or more hours, got " + minimumRetentionHours + ".");
      }
      retention = Duration.ofHours(minimumRetentionHours);
    }
    if (connectTimeoutSeconds <= 0) {
      throw FloeException.badInput(
          "--connect-timeout must be at least 1 second, got " + connectTimeoutSeconds + ".");
    }
    SourceDoctor doctor =
        new SourceDoctor(
            new MySqlConnections(Duration.ofSeconds(connectTimeoutSeconds)),
            new SourceFactsReader(),
            new SourceRequirements(retention));
    SourceReport report = doctor.check(address);
    SourceReportPrinter.print(report, floe.spec.commandLine().getOut());
    return report.passed() ? ExitCodes.OK : ExitCodes.PROBLEM_FOUND;
  }
}

package dev.floe.core.source;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * What real-time sync needs from a MySQL/MariaDB source, decided from {@link SourceFacts} alone (no
 * I/O): binlog on, ROW format, FULL row image, enough retention, a server id, the privileges, and
 * on a replica, that it logs the changes it replicates.
 */
public final class SourceRequirements {

  /** The name of the first check, which the reader reports when it cannot connect. */
  public static final String CONNECTION = "server reachable, credentials valid";

  private final Duration minimumBinlogRetention;

  /**
   * @param minimumBinlogRetention how long binlogs must be kept so a stopped sync can resume
   */
  public SourceRequirements(Duration minimumBinlogRetention) {
    this.minimumBinlogRetention =
        requireNonNull(minimumBinlogRetention, "minimumBinlogRetention is null");
  }

  /** The full checklist for a source Floe could connect to. */
  public SourceReport check(String source, SourceFacts facts) {
    List<SourceCheck> checks = new ArrayList<>();
    checks.add(SourceCheck.pass(CONNECTION, "connected as " + facts.account()));
    checks.add(version(facts.version()));
    checks.add(logBin(facts));
    checks.add(variableEquals(facts, "binlog_format", "ROW", binlogFormatFix()));
    checks.add(variableEquals(facts, "binlog_row_image", "FULL", binlogRowImageFix()));
    checks.add(retention(facts));
    checks.add(serverId(facts));
    checks.addAll(privileges(facts));
    checks.add(replica(facts));
    return new SourceReport(source, checks);
  }

  /** The checklist for a source Floe could not connect to: one failure, the rest not run. */
  public SourceReport unreachable(String source, String problem, String fix) {
    return new SourceReport(source, List.of(SourceCheck.fail(CONNECTION, problem, fix)));
  }

  private static SourceCheck version(ServerVersion version) {
    if (version.isSupported()) {
      return SourceCheck.info("server version", version.displayName() + " (" + version.raw() + ")");
    }
    return SourceCheck.warn(
        "server version",
        version.displayName() + " (" + version.raw() + ") is not a version Floe is tested with",
        "Floe supports MySQL 5.7 and 8.x and MariaDB 10.x and 11.x; other versions may work but"
            + " are untested.");
  }

  private static SourceCheck logBin(SourceFacts facts) {
    if (facts.isOn("log_bin")) {
      return SourceCheck.pass("log_bin", "ON");
    }
    return SourceCheck.fail(
        "log_bin",
        facts.variable("log_bin").orElse("missing") + " (the binary log is off; needs ON)",
        "log_bin cannot be changed at runtime: add log_bin=mysql-bin and server_id=1 under"
            + " [mysqld] in my.cnf and restart the server (on Amazon RDS/Aurora, enable automated"
            + " backups; on Cloud SQL, enable point-in-time recovery).");
  }

  private static SourceCheck variableEquals(
      SourceFacts facts, String name, String wanted, String fix) {
    Optional<String> value = facts.variable(name);
    if (value.isPresent() && value.get().trim().equalsIgnoreCase(wanted)) {
      return SourceCheck.pass(name, wanted);
    }
    return SourceCheck.fail(name, value.orElse("missing") + " (needs " + wanted + ")", fix);
  }

  private static String binlogFormatFix() {
    return "Run SET GLOBAL binlog_format = 'ROW'; and add binlog_format=ROW under [mysqld] in"
        + " my.cnf so it survives a restart (sessions that are already open keep the old format"
        + " until they reconnect).";
  }

  private static String binlogRowImageFix() {
    return "Run SET GLOBAL binlog_row_image = 'FULL'; and add binlog_row_image=FULL under [mysqld]"
        + " in my.cnf so it survives a restart.";
  }

  private SourceCheck retention(SourceFacts facts) {
    String name = "binlog retention";
    long wantedSeconds = minimumBinlogRetention.toSeconds();
    String wanted = "needs at least " + describe(wantedSeconds);
    Optional<Long> seconds = retentionSeconds(facts);
    if (seconds.isEmpty()) {
      return SourceCheck.pass(name, "binlogs are never purged automatically (" + wanted + ")");
    }
    if (seconds.get() >= wantedSeconds) {
      return SourceCheck.pass(name, describe(seconds.get()) + " (" + wanted + ")");
    }
    String fix;
    if (facts.variable("basedir").map(dir -> dir.startsWith("/rdsdbbin")).orElse(false)) {
      fix =
          "On Amazon RDS run CALL mysql.rds_set_configuration('binlog retention hours', "
              + Math.max(1, wantedSeconds / 3600)
              + ");";
    } else if (facts.version().hasExpireLogsSeconds()) {
      fix =
          "Run SET GLOBAL binlog_expire_logs_seconds = "
              + wantedSeconds
              + "; and set it under [mysqld] in my.cnf.";
    } else {
      fix =
          "Run SET GLOBAL expire_logs_days = "
              + Math.max(1, (wantedSeconds + 86399) / 86400)
              + "; and set it under [mysqld] in my.cnf.";
    }
    return SourceCheck.fail(
        name,
        "binlogs are purged after "
            + describe(seconds.get())
            + " ("
            + wanted
            + ", so a sync stopped for that long can resume)",
        fix
            + " The minimum is set with --min-binlog-retention or doctor.min-binlog-retention-hours.");
  }

  /** Seconds after which binlogs are purged, or empty when they are never purged. */
  static Optional<Long> retentionSeconds(SourceFacts facts) {
    if (facts
        .variable("binlog_expire_logs_auto_purge")
        .map(v -> v.equalsIgnoreCase("OFF"))
        .orElse(false)) {
      return Optional.empty();
    }
    long seconds =
        facts.variable("binlog_expire_logs_seconds").map(SourceRequirements::parseLong).orElse(0L);
    if (seconds > 0) {
      return Optional.of(seconds);
    }
    double days =
        facts.variable("expire_logs_days").map(SourceRequirements::parseDouble).orElse(0.0);
    if (days > 0) {
      return Optional.of(Math.round(days * 86400));
    }
    return Optional.empty();
  }

  private static SourceCheck serverId(SourceFacts facts) {
    long serverId = facts.variable("server_id").map(SourceRequirements::parseLong).orElse(0L);
    if (serverId > 0) {
      return SourceCheck.pass("server_id", String.valueOf(serverId));
    }
    return SourceCheck.fail(
        "server_id",
        "0 (the server refuses binlog clients without a server id)",
        "Set server_id to a unique non-zero number under [mysqld] in my.cnf (SET GLOBAL server_id"
            + " = 1; works until the next restart).");
  }

  private static List<SourceCheck> privileges(SourceFacts facts) {
    GrantSet grants = facts.grants();
    String account = facts.account();
    List<SourceCheck> checks = new ArrayList<>();
    String roleNote =
        grants.roles().isEmpty()
            ? ""
            : " (privileges that come only through roles "
                + grants.roles()
                + " are not counted; grant them directly)";
    if (facts.database().isPresent()) {
      String database = facts.database().get();
      checks.add(
          grants.canSelectDatabase(database)
              ? SourceCheck.pass("privilege SELECT", "on " + database)
              : SourceCheck.fail(
                  "privilege SELECT",
                  "missing on " + database + roleNote,
                  "GRANT SELECT ON `" + database + "`.* TO " + account + ";"));
    } else if (grants.hasGlobal("SELECT")) {
      checks.add(SourceCheck.pass("privilege SELECT", "on *.*"));
    } else if (!grants.selectDatabases().isEmpty()) {
      checks.add(
          SourceCheck.warn(
              "privilege SELECT",
              "only on " + String.join(", ", grants.selectDatabases()),
              "Only those databases can be synced; name one in the URL to check it, or GRANT"
                  + " SELECT ON *.* TO "
                  + account
                  + ";"));
    } else {
      checks.add(
          SourceCheck.fail(
              "privilege SELECT",
              "missing" + roleNote,
              "GRANT SELECT ON *.* TO " + account + "; (or on each database to sync)"));
    }
    checks.add(
        grants.hasGlobal("REPLICATION SLAVE")
            ? SourceCheck.pass("privilege REPLICATION SLAVE", "on *.*")
            : SourceCheck.fail(
                "privilege REPLICATION SLAVE",
                "missing (needed to read the binlog)" + roleNote,
                "GRANT REPLICATION SLAVE ON *.* TO " + account + ";"));
    checks.add(
        grants.hasGlobal("REPLICATION CLIENT", "BINLOG MONITOR", "SUPER")
            ? SourceCheck.pass("privilege REPLICATION CLIENT", "on *.*")
            : SourceCheck.fail(
                "privilege REPLICATION CLIENT",
                "missing (needed to find the current binlog position)" + roleNote,
                "GRANT REPLICATION CLIENT ON *.* TO "
                    + account
                    + "; (on MariaDB 10.5+ it is also called BINLOG MONITOR)"));
    return checks;
  }

  private static SourceCheck replica(SourceFacts facts) {
    String name = "replica logs its changes";
    if (!facts.replica()) {
      return SourceCheck.pass(name, "not a replica");
    }
    if (facts.isOn("log_slave_updates") || facts.isOn("log_replica_updates")) {
      return SourceCheck.pass(name, "replica with log_slave_updates=ON");
    }
    return SourceCheck.fail(
        name,
        "this server is a replica with log_slave_updates=OFF: changes it replicates never reach"
            + " its binlog, so sync would silently miss them",
        "Add log_slave_updates=ON (MySQL 8.0.26+: log_replica_updates=ON) under [mysqld] and"
            + " restart the replica, or sync from the primary instead.");
  }

  private static String describe(long seconds) {
    if (seconds % 86400 == 0) {
      long days = seconds / 86400;
      return days + (days == 1 ? " day" : " days");
    }
    if (seconds % 3600 == 0) {
      long hours = seconds / 3600;
      return hours + (hours == 1 ? " hour" : " hours");
    }
    return String.format(Locale.ROOT, "%.1f hours", seconds / 3600.0);
  }

  private static long parseLong(String text) {
    try {
      return Long.parseLong(text.trim());
    } catch (NumberFormatException notANumber) {
      return (long) parseDouble(text);
    }
  }

  private static double parseDouble(String text) {
    try {
      return Double.parseDouble(text.trim());
    } catch (NumberFormatException notANumber) {
      return 0;
    }
  }
}

package dev.floe.core.source;

import static java.util.Objects.requireNonNull;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A MySQL-family server version as reported by {@code SELECT VERSION()}. */
public record ServerVersion(Flavor flavor, int major, int minor, int patch, String raw) {

  /** Which server family. */
  public enum Flavor {
    MYSQL("MySQL"),
    MARIADB("MariaDB");

    private final String displayName;

    Flavor(String displayName) {
      this.displayName = displayName;
    }

    public String displayName() {
      return displayName;
    }
  }

  private static final Pattern NUMBERS = Pattern.compile("(\\d+)\\.(\\d+)(?:\\.(\\d+))?.*");

  public ServerVersion {
    requireNonNull(flavor, "flavor is null");
    requireNonNull(raw, "raw is null");
  }

  /**
   * Parses {@code VERSION()} output such as {@code 8.0.36}, {@code 5.7.44-log} or {@code
   * 10.11.6-MariaDB-0+deb12u1-log}. MariaDB's old replication prefix {@code 5.5.5-} is skipped.
   */
  public static ServerVersion parse(String versionText) {
    requireNonNull(versionText, "versionText is null");
    String text = versionText.trim();
    boolean mariaDb = text.toLowerCase(Locale.ROOT).contains("mariadb");
    if (mariaDb && text.startsWith("5.5.5-")) {
      text = text.substring("5.5.5-".length());
    }
    Matcher matcher = NUMBERS.matcher(text);
    if (!matcher.matches()) {
      return new ServerVersion(mariaDb ? Flavor.MARIADB : Flavor.MYSQL, 0, 0, 0, versionText);
    }
    return new ServerVersion(
        mariaDb ? Flavor.MARIADB : Flavor.MYSQL,
        Integer.parseInt(matcher.group(1)),
        Integer.parseInt(matcher.group(2)),
        matcher.group(3) == null ? 0 : Integer.parseInt(matcher.group(3)),
        versionText);
  }

  public boolean isMariaDb() {
    return flavor == Flavor.MARIADB;
  }

  public boolean atLeast(int wantedMajor, int wantedMinor) {
    return major > wantedMajor || (major == wantedMajor && minor >= wantedMinor);
  }

  /** MySQL 5.7 and 8.x, MariaDB 10.x and 11.x: the versions Floe's sync is built and tested for. */
  public boolean isSupported() {
    return switch (flavor) {
      case MYSQL -> (major == 5 && minor == 7) || major == 8 || major == 9;
      case MARIADB -> major == 10 || major == 11;
    };
  }

  /** Where retention is configured in seconds ({@code binlog_expire_logs_seconds}). */
  public boolean hasExpireLogsSeconds() {
    return isMariaDb() ? atLeast(10, 6) : major >= 8;
  }

  public String displayName() {
    return flavor.displayName() + " " + major + "." + minor + "." + patch;
  }
}

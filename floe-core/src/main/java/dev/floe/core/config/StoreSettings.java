package dev.floe.core.config;

import static java.util.Objects.requireNonNull;

import dev.floe.core.Secret;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The {@code keeper.store} section: the database where the keeper keeps its tables, runs and
 * events.
 *
 * @param url a {@code jdbc:sqlite:} or {@code jdbc:postgresql:} URL; empty = the SQLite file {@code
 *     <data-dir>/keeper.db}
 * @param user the database user, if the URL does not name one
 * @param password the database password, if the URL does not hold one
 */
public record StoreSettings(
    Optional<String> url, Optional<String> user, Optional<Secret> password) {

  /** The URL forms the keeper's store takes. */
  public static final List<String> URL_PREFIXES = List.of("jdbc:sqlite:", "jdbc:postgresql:");

  /** The file of the default store, in the data directory. */
  public static final String DEFAULT_FILE_NAME = "keeper.db";

  private static final Pattern PASSWORD_PARAMETER = Pattern.compile("(?i)(password=)[^&;]*");
  private static final Pattern USER_INFO_PASSWORD = Pattern.compile("(//[^/@:]*:)[^/@]*@");

  public StoreSettings {
    requireNonNull(url, "url is null");
    requireNonNull(user, "user is null");
    requireNonNull(password, "password is null");
  }

  /** The default: SQLite in the data directory, no user or password. */
  public static StoreSettings defaults() {
    return new StoreSettings(Optional.empty(), Optional.empty(), Optional.empty());
  }

  /** The URL to connect to: {@link #url()}, or the SQLite file in {@code dataDirectory}. */
  public String jdbcUrl(Path dataDirectory) {
    return url.orElseGet(() -> "jdbc:sqlite:" + dataDirectory.resolve(DEFAULT_FILE_NAME));
  }

  /**
   * A JDBC URL fit to print: the value of a {@code password=} parameter, and a password before the
   * {@code @} of {@code //user:password@host}, replaced by {@link Secret#MASK}.
   */
  public static String maskPassword(String url) {
    String masked = PASSWORD_PARAMETER.matcher(url).replaceAll("$1" + Secret.MASK);
    return USER_INFO_PASSWORD.matcher(masked).replaceAll("$1" + Secret.MASK + "@");
  }
}

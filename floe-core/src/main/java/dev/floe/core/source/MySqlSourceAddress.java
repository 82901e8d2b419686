package dev.floe.core.source;

import static java.util.Objects.requireNonNull;

import dev.floe.core.Secret;
import dev.floe.core.error.FloeException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where a MySQL or MariaDB source lives: {@code mysql://USER[:PASSWORD]@HOST[:PORT][/DATABASE]},
 * optionally followed by {@code ?name=value&...} driver options. {@code mariadb://} is accepted as
 * a synonym. User and password may be percent-encoded. {@link #toString()} hides the password.
 */
public record MySqlSourceAddress(
    String user,
    Optional<Secret> password,
    String host,
    int port,
    Optional<String> database,
    Map<String, String> options) {

  public static final int DEFAULT_PORT = 3306;
  public static final String SYNTAX = "mysql://USER[:PASSWORD]@HOST[:PORT][/DATABASE]";
  public static final String EXAMPLE = "mysql://floe@127.0.0.1:3306/shop";

  private static final Pattern URL =
      Pattern.compile(
          "(?<scheme>[A-Za-z][A-Za-z0-9+.-]*)://(?<userinfo>[^@/?]*)@(?<host>\\[[^\\]]*\\]|[^:/?\\[\\]]*)"
              + "(?::(?<port>[^/?]*))?(?:/(?<database>[^?]*))?(?:\\?(?<query>.*))?");

  public MySqlSourceAddress {
    requireNonNull(user, "user is null");
    requireNonNull(password, "password is null");
    requireNonNull(host, "host is null");
    requireNonNull(database, "database is null");
    options = Map.copyOf(requireNonNull(options, "options is null"));
  }

  /**
   * Parses a source URL.
   *
   * @param text the URL as the user wrote it
   * @param inputName where it came from, for the error message (e.g. {@code --source})
   * @throws FloeException of category BAD_INPUT naming the input, the (password-masked) value and
   *     the expected syntax
   */
  public static MySqlSourceAddress parse(String text, String inputName) {
    requireNonNull(text, "text is null");
    requireNonNull(inputName, "inputName is null");
    Matcher matcher = URL.matcher(text.trim());
    if (!matcher.matches()) {
      throw invalid(text, inputName, "it is not a URL of the form " + SYNTAX);
    }
    String scheme = matcher.group("scheme").toLowerCase(java.util.Locale.ROOT);
    if (!scheme.equals("mysql") && !scheme.equals("mariadb")) {
      throw invalid(
          text,
          inputName,
          "the scheme is '" + scheme + "', but Floe reads mysql:// (or mariadb://)");
    }
    String userInfo = matcher.group("userinfo");
    int colon = userInfo.indexOf(':');
    String user = decode(colon < 0 ? userInfo : userInfo.substring(0, colon));
    Optional<Secret> password =
        colon < 0
            ? Optional.empty()
            : Optional.of(Secret.of(decode(userInfo.substring(colon + 1))));
    if (user.isEmpty()) {
      throw invalid(text, inputName, "the user name is missing");
    }
    String host = matcher.group("host");
    if (host.startsWith("[")) {
      host = host.substring(1, host.length() - 1);
    }
    if (host.isEmpty()) {
      throw invalid(text, inputName, "the host is missing");
    }
    int port = DEFAULT_PORT;
    String portText = matcher.group("port");
    if (portText != null) {
      port = parsePort(text, inputName, portText);
    }
    String databaseText = matcher.group("database");
    Optional<String> database =
        databaseText == null || databaseText.isEmpty()
            ? Optional.empty()
            : Optional.of(decode(databaseText));
    if (database.isPresent() && database.get().contains("/")) {
      throw invalid(text, inputName, "the database name '" + database.get() + "' contains '/'");
    }
    return new MySqlSourceAddress(
        user,
        password,
        host,
        port,
        database,
        parseOptions(text, inputName, matcher.group("query")));
  }

  /** The same address with the given password (used when the password comes from elsewhere). */
  public MySqlSourceAddress withPassword(Secret newPassword) {
    return new MySqlSourceAddress(user, Optional.of(newPassword), host, port, database, options);
  }

  /** The same address without a database. */
  public MySqlSourceAddress withoutDatabase() {
    return new MySqlSourceAddress(user, password, host, port, Optional.empty(), options);
  }

  /** {@code host:port}, with IPv6 hosts in brackets. */
  public String hostAndPort() {
    return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
  }

  /** The URL with the password replaced by {@value Secret#MASK}; safe to print. */
  @Override
  public String toString() {
    StringBuilder text = new StringBuilder("mysql://").append(user);
    password.ifPresent(secret -> text.append(':').append(Secret.MASK));
    text.append('@').append(hostAndPort());
    database.ifPresent(name -> text.append('/').append(name));
    if (!options.isEmpty()) {
      text.append('?');
      options.forEach((key, value) -> text.append(key).append('=').append(value).append('&'));
      text.setLength(text.length() - 1);
    }
    return text.toString();
  }

  /** Hides whatever stands between {@code user:} and {@code @} in a URL the user typed. */
  public static String maskPassword(String text) {
    int start = text.indexOf("://");
    int at = text.lastIndexOf('@');
    if (start < 0 || at < 0 || at < start) {
      return text;
    }
    int colon = text.indexOf(':', start + 3);
    if (colon < 0 || colon > at) {
      return text;
    }
    return text.substring(0, colon + 1) + Secret.MASK + text.substring(at);
  }

  private static int parsePort(String text, String inputName, String portText) {
    try {
      int port = Integer.parseInt(portText);
      if (port >= 1 && port <= 65535) {
        return port;
      }
    } catch (NumberFormatException notANumber) {
      // fall through to the error below
    }
    throw invalid(
        text, inputName, "the port '" + portText + "' is not a number between 1 and 65535");
  }

  private static Map<String, String> parseOptions(String text, String inputName, String query) {
    Map<String, String> options = new LinkedHashMap<>();
    if (query == null || query.isEmpty()) {
      return options;
    }
    for (String pair : query.split("&")) {
      int equals = pair.indexOf('=');
      if (equals <= 0) {
        throw invalid(text, inputName, "the option '" + pair + "' is not of the form name=value");
      }
      options.put(decode(pair.substring(0, equals)), decode(pair.substring(equals + 1)));
    }
    return options;
  }

  private static String decode(String text) {
    return URLDecoder.decode(text.replace("+", "%2B"), StandardCharsets.UTF_8);
  }

  private static FloeException invalid(String text, String inputName, String problem) {
    return FloeException.badInput(
        "Invalid "
            + inputName
            + " '"
            + maskPassword(text)
            + "': "
            + problem
            + ". Write it as "
            + SYNTAX
            + ", for example "
            + EXAMPLE
            + " (the password may instead come from the FLOE_SOURCE_PASSWORD environment variable).");
  }
}

package dev.floe.core.maintenance;

import static java.util.Objects.requireNonNull;

import java.util.Locale;
import java.util.Optional;

/**
 * A file location split into scheme, authority and path, normalized so that spellings of the same
 * file compare equal: the scheme is lower-case, {@code s3a}/{@code s3n} count as {@code s3}, a
 * missing scheme is {@code file}; repeated slashes in the path collapse and a trailing slash is
 * dropped. {@code file:/w/a}, {@code file:///w/a} and {@code /w/a} are one location.
 *
 * @param scheme the normalized scheme
 * @param authority the authority (host[:port], bucket), empty when the location has none
 * @param path the normalized path, starting with a slash
 */
public record FileLocation(String scheme, Optional<String> authority, String path) {

  public FileLocation {
    requireNonNull(scheme, "scheme is null");
    requireNonNull(authority, "authority is null");
    requireNonNull(path, "path is null");
  }

  /** Parses a location as Iceberg metadata or a file listing spells it. */
  public static FileLocation parse(String location) {
    requireNonNull(location, "location is null");
    String rest = location.trim();
    String scheme = "file";
    Optional<String> authority = Optional.empty();
    int colon = rest.indexOf(':');
    int slash = rest.indexOf('/');
    if (colon > 0 && (slash < 0 || colon < slash)) {
      scheme = normalizeScheme(rest.substring(0, colon));
      rest = rest.substring(colon + 1);
      if (rest.startsWith("//")) {
        int end = rest.indexOf('/', 2);
        String named = end < 0 ? rest.substring(2) : rest.substring(2, end);
        authority = named.isEmpty() ? Optional.empty() : Optional.of(named);
        rest = end < 0 ? "/" : rest.substring(end);
      }
    }
    return new FileLocation(scheme, authority, normalizePath(rest));
  }

  /**
   * Whether this and another location with the same path name the same file: equal schemes, and
   * equal authorities or an authority missing on either side.
   */
  public boolean compatibleWith(FileLocation other) {
    if (!path.equals(other.path) || !scheme.equals(other.scheme)) {
      return false;
    }
    return authority.isEmpty() || other.authority.isEmpty() || authority.equals(other.authority);
  }

  @Override
  public String toString() {
    return scheme + "://" + authority.orElse("") + path;
  }

  private static String normalizeScheme(String scheme) {
    String lower = scheme.toLowerCase(Locale.ROOT);
    return switch (lower) {
      case "s3a", "s3n" -> "s3";
      default -> lower;
    };
  }

  private static String normalizePath(String path) {
    // A hand-written loop: this runs once per listed and per reachable file (millions).
    StringBuilder normalized = new StringBuilder(path.length() + 1);
    normalized.append('/');
    for (int i = 0; i < path.length(); i++) {
      char c = path.charAt(i);
      if (c != '/' || normalized.charAt(normalized.length() - 1) != '/') {
        normalized.append(c);
      }
    }
    int length = normalized.length();
    while (length > 1 && normalized.charAt(length - 1) == '/') {
      length--;
    }
    normalized.setLength(length);
    return normalized.toString();
  }
}

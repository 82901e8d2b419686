package dev.floe.core.source;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The privileges a MySQL/MariaDB account holds, parsed from {@code SHOW GRANTS} lines. Only what
 * Floe needs is modelled: global privileges and database-level privileges.
 */
public record GrantSet(List<Grant> grants, List<String> roles) {

  /** One {@code GRANT privileges ON scope} line; {@code database} is empty for {@code *.*}. */
  public record Grant(Set<String> privileges, String databasePattern, boolean tableLevel) {
    public Grant {
      privileges = Set.copyOf(requireNonNull(privileges, "privileges is null"));
      requireNonNull(databasePattern, "databasePattern is null");
    }

    boolean isGlobal() {
      return databasePattern.equals("*");
    }

    boolean has(String privilege) {
      return privileges.contains(privilege) || privileges.contains("ALL PRIVILEGES");
    }

    boolean coversDatabase(String database) {
      return !tableLevel && (isGlobal() || matches(databasePattern, database));
    }
  }

  private static final Pattern GRANT_LINE =
      Pattern.compile(
          "GRANT\\s+(?<privileges>.+?)\\s+ON\\s+(?:(?:TABLE|FUNCTION|PROCEDURE|PACKAGE(?: BODY)?)\\s+)?"
              + "(?<scope>\\S+)\\s+TO\\s+.*",
          Pattern.CASE_INSENSITIVE | Pattern.DOTALL);
  private static final Pattern ROLE_LINE =
      Pattern.compile("GRANT\\s+(?<roles>.+?)\\s+TO\\s+.*", Pattern.CASE_INSENSITIVE);

  public GrantSet {
    grants = List.copyOf(requireNonNull(grants, "grants is null"));
    roles = List.copyOf(requireNonNull(roles, "roles is null"));
  }

  /** Parses the lines {@code SHOW GRANTS FOR CURRENT_USER()} returned. */
  public static GrantSet parse(List<String> showGrantsLines) {
    List<Grant> grants = new ArrayList<>();
    List<String> roles = new ArrayList<>();
    for (String line : showGrantsLines) {
      Matcher grant = GRANT_LINE.matcher(line.trim());
      if (grant.matches()) {
        String scope = grant.group("scope");
        int dot = scopeDot(scope);
        String database = dot < 0 ? scope : scope.substring(0, dot);
        String table = dot < 0 ? "*" : scope.substring(dot + 1);
        grants.add(
            new Grant(
                privileges(grant.group("privileges")),
                unquote(database),
                !unquote(table).equals("*")));
        continue;
      }
      Matcher role = ROLE_LINE.matcher(line.trim());
      if (role.matches() && !line.toUpperCase(Locale.ROOT).contains(" PROXY ")) {
        for (String name : role.group("roles").split(",")) {
          // MySQL 8 names a role with its host (`role`@`%`); the host is not part of the name.
          roles.add(unquote(name.trim().split("@", 2)[0]));
        }
      }
    }
    return new GrantSet(grants, roles);
  }

  /** Whether a global ({@code *.*}) grant holds any of the given privileges. */
  public boolean hasGlobal(String... anyOf) {
    for (Grant grant : grants) {
      if (grant.isGlobal()) {
        for (String privilege : anyOf) {
          if (grant.has(privilege)) {
            return true;
          }
        }
      }
    }
    return false;
  }

  /** Whether the account may read every table of the database (globally or on {@code db.*}). */
  public boolean canSelectDatabase(String database) {
    return grants.stream().anyMatch(grant -> grant.has("SELECT") && grant.coversDatabase(database));
  }

  /** Databases (patterns) on which SELECT is granted at database level, for messages. */
  public List<String> selectDatabases() {
    return grants.stream()
        .filter(grant -> grant.has("SELECT") && !grant.isGlobal() && !grant.tableLevel())
        .map(Grant::databasePattern)
        .toList();
  }

  private static Set<String> privileges(String list) {
    Set<String> privileges = new java.util.HashSet<>();
    // Column lists such as SELECT (a, b) belong to table-level grants; drop them.
    for (String part : list.replaceAll("\\([^)]*\\)", "").split(",")) {
      String name = part.trim().replaceAll("\\s+", " ").toUpperCase(Locale.ROOT);
      privileges.add(name.equals("ALL") ? "ALL PRIVILEGES" : name);
    }
    return privileges;
  }

  private static int scopeDot(String scope) {
    boolean quoted = false;
    for (int i = 0; i < scope.length(); i++) {
      char c = scope.charAt(i);
      if (c == '`') {
        quoted = !quoted;
      } else if (c == '.' && !quoted) {
        return i;
      }
    }
    return -1;
  }

  private static String unquote(String name) {
    String trimmed = name.trim();
    if (trimmed.length() >= 2
        && (trimmed.startsWith("`") && trimmed.endsWith("`")
            || trimmed.startsWith("'") && trimmed.endsWith("'"))) {
      return trimmed.substring(1, trimmed.length() - 1).replace("``", "`");
    }
    return trimmed;
  }

  /** Database-level grants use LIKE wildcards: {@code %}, {@code _}, with {@code \} escaping. */
  private static boolean matches(String pattern, String database) {
    StringBuilder regex = new StringBuilder();
    for (int i = 0; i < pattern.length(); i++) {
      char c = pattern.charAt(i);
      if (c == '\\' && i + 1 < pattern.length()) {
        regex.append(Pattern.quote(String.valueOf(pattern.charAt(++i))));
      } else if (c == '%') {
        regex.append(".*");
      } else if (c == '_') {
        regex.append('.');
      } else {
        regex.append(Pattern.quote(String.valueOf(c)));
      }
    }
    return database.matches(regex.toString());
  }
}

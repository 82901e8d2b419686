package dev.floe.core.source;

import static java.util.Objects.requireNonNull;

import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What Floe read from a reachable source: enough to decide whether real-time sync can work.
 *
 * @param account the account as the server sees it ({@code CURRENT_USER()})
 * @param version the server version
 * @param variables global variables, names in lower case
 * @param grants the account's privileges
 * @param replica whether the server replicates from another one
 * @param database the database the user named, if any
 */
public record SourceFacts(
    String account,
    ServerVersion version,
    Map<String, String> variables,
    GrantSet grants,
    boolean replica,
    Optional<String> database) {

  public SourceFacts {
    requireNonNull(account, "account is null");
    requireNonNull(version, "version is null");
    TreeMap<String, String> lowerCased = new TreeMap<>();
    requireNonNull(variables, "variables is null")
        .forEach((name, value) -> lowerCased.put(name.toLowerCase(Locale.ROOT), value));
    variables = Map.copyOf(lowerCased);
    requireNonNull(grants, "grants is null");
    requireNonNull(database, "database is null");
  }

  /** A global variable, if the server has it. */
  public Optional<String> variable(String name) {
    return Optional.ofNullable(variables.get(name.toLowerCase(Locale.ROOT)));
  }

  /** True when the variable is ON / 1 / TRUE (case-insensitive). */
  public boolean isOn(String name) {
    return variable(name)
        .map(value -> value.trim().toUpperCase(Locale.ROOT))
        .map(value -> value.equals("ON") || value.equals("1") || value.equals("TRUE"))
        .orElse(false);
  }
}

package dev.floe.cli;

import dev.floe.core.Secret;
import dev.floe.core.config.FloeSettings;
import dev.floe.core.error.FloeException;
import dev.floe.core.source.MySqlSourceAddress;
import java.util.Map;
import java.util.Optional;

/**
 * Finds the source a command should read: {@code --source} or {@code source.url}; the password from
 * the URL, else {@code FLOE_SOURCE_PASSWORD}, else {@code source.password}.
 */
final class SourceAddresses {

  static final String PASSWORD_VARIABLE = "FLOE_SOURCE_PASSWORD";

  private SourceAddresses() {}

  static MySqlSourceAddress resolve(
      Optional<String> flag, FloeSettings settings, Map<String, String> environment) {
    String inputName = flag.isPresent() ? "--source" : "source.url";
    String url =
        flag.or(settings::sourceUrl)
            .orElseThrow(
                () ->
                    FloeException.badInput(
                        "No source given. Pass --source "
                            + MySqlSourceAddress.SYNTAX
                            + " (for example --source "
                            + MySqlSourceAddress.EXAMPLE
                            + ") or set source.url in floe.yaml."));
    MySqlSourceAddress address = MySqlSourceAddress.parse(url, inputName);
    if (address.password().isPresent()) {
      return address;
    }
    Optional<Secret> password =
        Optional.ofNullable(environment.get(PASSWORD_VARIABLE))
            .map(Secret::of)
            .or(settings::sourcePassword);
    return password.map(address::withPassword).orElse(address);
  }
}

package dev.floe.core.alert;

import static java.util.Objects.requireNonNull;

import dev.floe.core.Secret;
import java.net.URI;
import java.util.List;
import java.util.Optional;

/**
 * One item of {@code keeper.alerts.channels}.
 *
 * @param url where webhooks are posted (every type but email)
 * @param secret what signs the messages (webhook, dingtalk, feishu)
 * @param to the e-mail recipients (email)
 */
public record AlertChannelSettings(
    String name,
    AlertChannelType type,
    Optional<URI> url,
    Optional<Secret> secret,
    List<String> to) {

  public AlertChannelSettings {
    requireNonNull(name, "name is null");
    requireNonNull(type, "type is null");
    requireNonNull(url, "url is null");
    requireNonNull(secret, "secret is null");
    to = List.copyOf(requireNonNull(to, "to is null"));
  }

  /** Where messages go, for the API and messages: the URL's host, never a path or a secret. */
  public String target() {
    return url.map(URI::getHost).orElseGet(() -> String.join(", ", to));
  }
}

package dev.floe.core.alert;

import static java.util.Objects.requireNonNull;

import dev.floe.core.Secret;
import java.util.Optional;

/** {@code keeper.alerts.smtp}: the mail server e-mail channels send through. */
public record SmtpSettings(
    String host,
    int port,
    Optional<String> user,
    Optional<Secret> password,
    String from,
    boolean starttls) {

  public static final int DEFAULT_PORT = 587;

  public SmtpSettings {
    requireNonNull(host, "host is null");
    requireNonNull(user, "user is null");
    requireNonNull(password, "password is null");
    requireNonNull(from, "from is null");
  }
}

package dev.floe.core.config;

import static java.util.Objects.requireNonNull;

import dev.floe.core.Secret;
import java.util.Optional;

/** The keeper store: an empty url means SQLite in {@code <data-dir>/keeper.db}. */
public record StoreSettings(
    Optional<String> url, Optional<String> user, Optional<Secret> password) {
  public StoreSettings {
    requireNonNull(url, "url is null");
    requireNonNull(user, "user is null");
    requireNonNull(password, "password is null");
  }
}

package dev.floe.core;

import static java.util.Objects.requireNonNull;

/**
 * A password or token. Its {@link #toString()} never shows the value, so a secret that ends up in a
 * log line, an error message or a printed config stays hidden; only {@link #reveal()} gives it.
 */
public final class Secret {
  public static final String MASK = "******";

  private final String value;

  private Secret(String value) {
    this.value = requireNonNull(value, "value is null");
  }

  /**
   * Whether a setting of this name holds a secret (its name contains password, secret, token,
   * credential or access-key, as in s3.access-key-id), so that its value must be masked wherever
   * settings are shown.
   */
  public static boolean isSecretName(String name) {
    String lower = name.toLowerCase(java.util.Locale.ROOT);
    return lower.contains("password")
        || lower.contains("secret")
        || lower.contains("token")
        || lower.contains("credential")
        || lower.contains("access-key");
  }

  public static Secret of(String value) {
    return new Secret(value);
  }

  /** The secret itself, for handing to a driver; never print it. */
  public String reveal() {
    return value;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof Secret secret && secret.value.equals(value);
  }

  @Override
  public int hashCode() {
    return value.hashCode();
  }

  @Override
  public String toString() {
    return MASK;
  }
}

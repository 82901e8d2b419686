package dev.floe.server.http;

import static java.util.Objects.requireNonNull;

import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The dashboard's browser sessions, server side: a session id is 32 random bytes, valid for {@link
 * #LIFETIME} from its login, and forgotten at logout or when the keeper stops. Thread-safe.
 */
final class DashboardSessions {

  /** How long a login lasts. */
  static final Duration LIFETIME = Duration.ofHours(12);

  /** The cookie that carries the session id. */
  static final String COOKIE = "floe_session";

  private final Clock clock;
  private final SecureRandom random = new SecureRandom();
  private final Map<String, Instant> expiries = new ConcurrentHashMap<>();

  DashboardSessions(Clock clock) {
    this.clock = requireNonNull(clock, "clock is null");
  }

  /** A new session; drops the expired ones. */
  String create() {
    Instant now = clock.instant();
    expiries.values().removeIf(expiry -> !expiry.isAfter(now));
    byte[] bytes = new byte[32];
    random.nextBytes(bytes);
    String id = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    expiries.put(id, now.plus(LIFETIME));
    return id;
  }

  /** Whether the id is a session that has not expired. */
  boolean valid(String id) {
    Instant expiry = expiries.get(id);
    return expiry != null && expiry.isAfter(clock.instant());
  }

  void remove(String id) {
    expiries.remove(id);
  }

  /** The {@code Set-Cookie} value that gives the browser the session. */
  static String cookie(String id) {
    return COOKIE
        + "="
        + id
        + "; Path=/; HttpOnly; SameSite=Strict; Max-Age="
        + LIFETIME.toSeconds();
  }

  /** The {@code Set-Cookie} value that makes the browser forget it. */
  static String expiredCookie() {
    return COOKIE + "=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0";
  }
}

package dev.floe.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.server.MutableClock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class DashboardSessionsTest {

  private final MutableClock clock = new MutableClock(Instant.parse("2026-12-01T08:00:00Z"));
  private final DashboardSessions sessions = new DashboardSessions(clock);

  @Test
  void aSessionLastsTwelveHoursFromItsLogin() {
    String id = sessions.create();

    clock.advance(Duration.ofHours(12).minusSeconds(1));
    assertThat(sessions.valid(id)).isTrue();
    clock.advance(Duration.ofSeconds(1));
    assertThat(sessions.valid(id)).isFalse();
  }

  @Test
  void idsAreRandomAndOnlyTheKeepersOwnAreValid() {
    String first = sessions.create();
    String second = sessions.create();

    assertThat(first).isNotEqualTo(second).hasSize(43).matches("[A-Za-z0-9_-]+");
    assertThat(sessions.valid("forged")).isFalse();
    sessions.remove(first);
    assertThat(sessions.valid(first)).isFalse();
    assertThat(sessions.valid(second)).isTrue();
  }

  @Test
  void theCookieIsHttpOnlyAndSameSiteStrict() {
    assertThat(DashboardSessions.cookie("abc"))
        .isEqualTo("floe_session=abc; Path=/; HttpOnly; SameSite=Strict; Max-Age=43200");
    assertThat(DashboardSessions.expiredCookie())
        .isEqualTo("floe_session=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0");
  }
}

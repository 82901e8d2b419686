package dev.floe.verify;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.junit.jupiter.api.Test;

class SourceLoadGuardTest {

  @Test
  void pausesWhileTheSourceIsBusyAndDoesNotCountItsOwnQueries() throws Exception {
    Deque<Long> running = new ArrayDeque<>(List.of(50L, 40L, 5L, 11L));
    List<String> pauses = new ArrayList<>();
    // A clock that moves one check interval per reading, so every reading sees a stale cache.
    long[] nanos = {0};
    SourceLoadGuard guard =
        new SourceLoadGuard(
            running::poll,
            10,
            Duration.ofMillis(1),
            pauses::add,
            () -> nanos[0] += Duration.ofMillis(1).toNanos());

    guard.beforeQuery(); // waits through 50 and 40, runs at 5
    assertThat(pauses)
        .containsExactly(
            "source busy: Threads_running 50 (without verify's queries) > 10, pausing");
    assertThat(guard.pauses()).isEqualTo(1);

    guard.beforeQuery(); // 11 running, one of them verify's own query: 10 is not above 10
    assertThat(guard.pauses()).isEqualTo(1);
    assertThat(running).isEmpty();
    guard.afterQuery();
    guard.afterQuery();
  }
}

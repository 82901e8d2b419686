package dev.floe.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.core.state.TableKey;
import dev.floe.server.store.HealthSample;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class HealthHistoryTest {

  @Test
  void thinningKeepsTheFirstAndTheNewestEvenlySpaced() {
    List<HealthSample> samples = new ArrayList<>();
    for (int i = 0; i < 1_000; i++) {
      samples.add(
          new HealthSample(
              new TableKey("floe", "db.t"),
              Instant.ofEpochSecond(i),
              i % 101,
              0,
              0,
              0,
              0,
              Optional.empty()));
    }

    List<HealthSample> thinned = HealthHistory.thin(samples, 100);

    assertThat(thinned).hasSize(100);
    assertThat(thinned.get(0)).isEqualTo(samples.get(0));
    assertThat(thinned.get(99)).isEqualTo(samples.get(999));
    assertThat(thinned).isSortedAccordingTo((a, b) -> a.at().compareTo(b.at()));
    assertThat(HealthHistory.thin(samples.subList(0, 100), 100)).hasSize(100);
  }
}

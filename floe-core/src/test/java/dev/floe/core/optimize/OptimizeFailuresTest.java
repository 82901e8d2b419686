package dev.floe.core.optimize;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class OptimizeFailuresTest {

  private final PartitionKey partition = new PartitionKey(0, "d=1");
  private final OptimizePolicy policy = States.policy();
  private final Instant t0 = Instant.parse("2026-11-29T10:00:00Z");

  @Test
  void backsOffExponentiallyUpToTheMaximum() {
    OptimizeFailures failures = OptimizeFailures.none();
    assertThat(failures.retryAt(partition, policy)).isEmpty();

    failures = failures.recordFailure(partition, t0);
    assertThat(failures.retryAt(partition, policy)).contains(t0.plusSeconds(180));
    failures = failures.recordFailure(partition, t0);
    assertThat(failures.retryAt(partition, policy)).contains(t0.plusSeconds(360));
    for (int i = 0; i < 10; i++) {
      failures = failures.recordFailure(partition, t0);
    }
    assertThat(failures.retryAt(partition, policy)).contains(t0.plusSeconds(3600));

    assertThat(failures.recordSuccess(partition).retryAt(partition, policy)).isEmpty();
  }
}

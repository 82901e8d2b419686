package dev.floe.sync;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class KafkaSyncStatusTest {

  @Test
  void theLineCountsTablesMessagesBehindAndRejects() {
    assertThat(
            new KafkaSyncStatus(
                    List.of("shop.orders", "shop.customers"),
                    3,
                    12_345,
                    2,
                    Optional.of(Duration.ofMillis(800)))
                .line())
        .isEqualTo(
            "progress: 2 tables; 12,345 messages behind on 3 partitions; 2 rejected; lag 0.8 s");
    assertThat(new KafkaSyncStatus(List.of("a.b"), 1, 1, 0, Optional.empty()).line())
        .isEqualTo("progress: 1 table; 1 message behind on 1 partition; 0 rejected");
  }
}

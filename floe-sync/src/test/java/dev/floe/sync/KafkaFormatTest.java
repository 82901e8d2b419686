package dev.floe.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.floe.core.error.FloeException;
import org.junit.jupiter.api.Test;

class KafkaFormatTest {

  @Test
  void theFormatsAreNamedAsTheOptionTakesThem() {
    assertThat(KafkaFormat.parse("canal-json")).isEqualTo(KafkaFormat.CANAL_JSON);
    assertThat(KafkaFormat.parse("Debezium-JSON")).isEqualTo(KafkaFormat.DEBEZIUM_JSON);
    assertThat(KafkaFormat.parse("maxwell-json")).isEqualTo(KafkaFormat.MAXWELL_JSON);
  }

  @Test
  void anUnknownFormatIsRefusedListingTheKnownOnes() {
    assertThatThrownBy(() -> KafkaFormat.parse("avro"))
        .isInstanceOf(FloeException.class)
        .hasMessage(
            "--format avro is not a format Floe reads from Kafka. Use one of: canal-json,"
                + " debezium-json, maxwell-json, json.");
  }
}

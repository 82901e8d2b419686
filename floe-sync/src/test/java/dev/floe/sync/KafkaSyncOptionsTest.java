package dev.floe.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.floe.core.error.FloeException;
import java.util.Map;
import org.junit.jupiter.api.Test;

class KafkaSyncOptionsTest {

  @Test
  void readsTheBrokersOfAKafkaSource() {
    assertThat(KafkaSyncOptions.bootstrapServers("kafka://a:9092, b.example:19092/", "--source"))
        .isEqualTo("a:9092,b.example:19092");
    assertThatThrownBy(() -> KafkaSyncOptions.bootstrapServers("kafka://a:9092,b", "--source"))
        .isInstanceOf(FloeException.class)
        .hasMessage(
            "--source kafka://a:9092,b: 'b' is not HOST:PORT. Write"
                + " kafka://HOST:PORT[,HOST:PORT...], e.g. kafka://127.0.0.1:9092.");
    assertThatThrownBy(() -> KafkaSyncOptions.bootstrapServers("mysql://a:3306", "source.url"))
        .hasMessage(
            "source.url mysql://a:3306 is not a Kafka source: write"
                + " kafka://HOST:PORT[,HOST:PORT...].");
  }

  @Test
  void readsStartingOffsets() {
    assertThat(KafkaSyncOptions.StartingOffsets.parse("earliest", "--starting-offsets"))
        .isEqualTo(KafkaSyncOptions.StartingOffsets.EARLIEST);
    assertThat(KafkaSyncOptions.StartingOffsets.parse("LATEST", "--starting-offsets").kind())
        .isEqualTo(KafkaSyncOptions.StartingOffsets.Kind.LATEST);
    KafkaSyncOptions.StartingOffsets at =
        KafkaSyncOptions.StartingOffsets.parse("timestamp:1700000000000", "--starting-offsets");
    assertThat(at.timestampMillis()).isEqualTo(1_700_000_000_000L);
    assertThat(at).hasToString("timestamp:1700000000000");
    assertThatThrownBy(
            () -> KafkaSyncOptions.StartingOffsets.parse("timestamp:soon", "--starting-offsets"))
        .hasMessage(
            "--starting-offsets timestamp:soon is not a starting offset: use earliest, latest or"
                + " timestamp:EPOCH_MS (e.g. timestamp:1700000000000).");
  }

  @Test
  void masksTheValuesOfSecretNamedProperties() {
    assertThat(
            KafkaSyncOptions.masked(
                Map.of(
                    "security.protocol", "SASL_SSL",
                    "sasl.jaas.config", "org.apache...PlainLoginModule password=\"x\";",
                    "ssl.truststore.password", "hunter2",
                    "ssl.key.password", "k",
                    "sasl.oauthbearer.token.endpoint.url", "https://idp",
                    "basic.auth.user.info", "u:p")))
        .containsEntry("security.protocol", "SASL_SSL")
        .containsEntry("sasl.jaas.config", "****")
        .containsEntry("ssl.truststore.password", "****")
        .containsEntry("ssl.key.password", "****")
        .containsEntry("sasl.oauthbearer.token.endpoint.url", "****")
        .containsEntry("basic.auth.user.info", "****");
  }

  @Test
  void aPatternThatIsNoRegularExpressionIsNamed() {
    assertThatThrownBy(() -> KafkaSyncOptions.topicPattern("shop.(", "--topics"))
        .isInstanceOf(FloeException.class)
        .hasMessageStartingWith("--topics 'shop.(' is not a regular expression (");
  }
}

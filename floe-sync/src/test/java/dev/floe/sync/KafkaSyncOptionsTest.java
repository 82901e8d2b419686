package dev.floe.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.floe.core.error.FloeException;
import dev.floe.core.sync.DeclaredSchema;
import dev.floe.core.sync.TableSelection;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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

  private static KafkaSyncOptions declared(
      KafkaFormat format, String schema, Map<String, String> partitions) {
    List<String> key = format == KafkaFormat.JSON ? List.of("id") : List.of();
    return new KafkaSyncOptions(
        "s",
        "k:9092",
        "t",
        format,
        TableSelection.of(List.of(".*"), List.of(), Optional.empty()),
        Duration.ofSeconds(1),
        1,
        StateDirectory.local(Path.of("/tmp/unused")),
        KafkaSyncOptions.StartingOffsets.EARLIEST,
        Map.of(),
        partitions,
        ZoneOffset.UTC,
        KafkaSyncOptions.DEFAULT_DEAD_LETTER,
        KafkaSyncOptions.OnBadMessage.DEAD_LETTER,
        format == KafkaFormat.JSON ? Optional.of("ods.events") : Optional.empty(),
        key,
        Optional.of(DeclaredSchema.parse("--schema", schema, key)));
  }

  @Test
  void aPartitioningThatDoesNotFitTheDeclaredSchemaIsRefusedBeforeAnythingIsCreated() {
    String schema = "id BIGINT NOT NULL, ts TIMESTAMP, name STRING";
    assertThat(
            declared(KafkaFormat.JSON, schema, Map.of("ods.events", "day(ts)"))
                .targetPartitioning())
        .isEqualTo(
            org.apache.iceberg.PartitionSpec.builderFor(
                    DeclaredSchema.parse("--schema", schema, List.of("id")))
                .day("ts")
                .build());
    assertThat(declared(KafkaFormat.JSON, schema, Map.of()).targetPartitioning().isUnpartitioned())
        .isTrue();
    assertThatThrownBy(() -> declared(KafkaFormat.JSON, schema, Map.of("ods.events", "day(at)")))
        .isInstanceOf(FloeException.class)
        .hasMessage(
            "sync.partitions for ods.events is 'day(at)': the table has no column at. Write a"
                + " comma-separated list such as 'day(created_at), bucket(16, id)'.");
    assertThatThrownBy(() -> declared(KafkaFormat.JSON, schema, Map.of("ods.events", "day(name)")))
        .isInstanceOf(FloeException.class)
        .hasMessage(
            "sync.partitions for ods.events is 'day(name)': day(name) needs a date or timestamp"
                + " column, but name is string (identity, bucket or truncate partition any"
                + " column). Write a comma-separated list such as 'day(created_at), bucket(16,"
                + " id)'.");
    assertThatThrownBy(() -> declared(KafkaFormat.CANAL_JSON, schema, Map.of()))
        .isInstanceOf(FloeException.class)
        .hasMessage(
            "--schema is for --format json; a canal-json message brings its own columns. Leave"
                + " --schema (sync.kafka.schema) out.");
  }
}

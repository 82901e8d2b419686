package dev.floe.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.floe.core.Secret;
import dev.floe.core.config.CatalogType;
import dev.floe.core.config.FloeSettings;
import dev.floe.core.error.ErrorCategory;
import dev.floe.core.error.FloeException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigLoaderTest {

  @TempDir Path directory;

  private final ConfigLoader loader = new ConfigLoader(Map.of("SHOP_PW", "from-env"));

  @Test
  void emptyFileGivesEmbeddedDefaults() throws Exception {
    FloeSettings settings = load("");

    assertThat(settings.dataDirectory()).isEqualTo(directory.resolve("floe-data"));
    assertThat(settings.catalog().type()).isEqualTo(CatalogType.EMBEDDED);
    assertThat(settings.catalog().name()).isEqualTo("floe");
    assertThat(settings.minimumBinlogRetention()).isEqualTo(Duration.ofHours(24));
    assertThat(settings.sourceUrl()).isEmpty();
  }

  @Test
  void everyKeyIsRead() throws Exception {
    FloeSettings settings =
        load(
            """
            data-dir: /var/lib/floe
            catalog:
              type: JDBC
              name: lake
              uri: jdbc:postgresql://db:5432/iceberg
              warehouse: s3://lake/warehouse
              properties:
                jdbc.user: iceberg
                jdbc.password: ${env:SHOP_PW}
            source:
              url: mysql://floe@db:3306/shop
              password: ${env:SHOP_PW}
            doctor:
              min-binlog-retention-hours: 72
            """);

    assertThat(settings.dataDirectory()).isEqualTo(Path.of("/var/lib/floe"));
    assertThat(settings.catalog().type()).isEqualTo(CatalogType.JDBC);
    assertThat(settings.catalog().name()).isEqualTo("lake");
    assertThat(settings.catalog().uri()).contains("jdbc:postgresql://db:5432/iceberg");
    assertThat(settings.catalog().warehouse()).contains("s3://lake/warehouse");
    assertThat(settings.catalog().properties())
        .containsEntry("jdbc.user", "iceberg")
        .containsEntry("jdbc.password", "from-env");
    assertThat(settings.sourceUrl()).contains("mysql://floe@db:3306/shop");
    assertThat(settings.sourcePassword()).contains(Secret.of("from-env"));
    assertThat(settings.minimumBinlogRetention()).isEqualTo(Duration.ofHours(72));
  }

  @Test
  void syncSectionWithListsAndDefaults() throws Exception {
    FloeSettings settings =
        load(
            """
            sync:
              tables:
                - shop\\..*
                - crm\\.customers
              exclude: shop\\.tmp_.*
              checkpoint-interval-seconds: 30
            """);

    assertThat(settings.sync().tables()).containsExactly("shop\\..*", "crm\\.customers");
    assertThat(settings.sync().exclude()).containsExactly("shop\\.tmp_.*");
    assertThat(settings.sync().checkpointInterval()).isEqualTo(Duration.ofSeconds(30));
    assertThat(settings.sync().parallelism()).isEqualTo(2);
    assertThat(settings.sync().chunkRows()).isEqualTo(100_000);
    assertThat(settings.sync().targetNamespace()).isEmpty();
    assertThat(settings.sync().snapshotRowsPerSecond()).isZero();
    assertThat(settings.sync().partitions()).isEmpty();
  }

  @Test
  void syncKafkaKeys() throws Exception {
    FloeSettings settings =
        load(
            """
            source:
              url: kafka://k1:9092,k2:9092
            sync:
              topics: shop\\..*
              format: Debezium-JSON
              starting-offsets: timestamp:1700000000000
              kafka:
                properties:
                  security.protocol: SASL_SSL
                  sasl.jaas.config: secret
                schema: 'id BIGINT NOT NULL, ts TIMESTAMP'
              dead-letter: ops.rejected
              on-bad-message: fail
              target: ods.events
              key: [id, region]
            """);

    dev.floe.core.config.KafkaSyncSettings kafka = settings.sync().kafka();
    assertThat(settings.sourceUrl()).contains("kafka://k1:9092,k2:9092");
    assertThat(kafka.topics()).contains("shop\\..*");
    assertThat(kafka.format()).contains("debezium-json");
    assertThat(kafka.startingOffsets()).contains("timestamp:1700000000000");
    assertThat(kafka.properties())
        .containsEntry("security.protocol", "SASL_SSL")
        .containsEntry("sasl.jaas.config", "secret");
    assertThat(kafka.deadLetter()).contains("ops.rejected");
    assertThat(kafka.onBadMessage()).contains("fail");
    assertThat(kafka.target()).contains("ods.events");
    assertThat(kafka.key()).containsExactly("id", "region");
    assertThat(kafka.schema()).contains("id BIGINT NOT NULL, ts TIMESTAMP");
    assertThat(load("").sync().kafka())
        .isEqualTo(dev.floe.core.config.KafkaSyncSettings.defaults());

    Path file = directory.resolve("bad.yaml");
    Files.writeString(file, "sync:\n  format: avro\n");
    assertThatThrownBy(() -> loader.load(file, Optional.empty(), directory))
        .hasMessageContaining("sync.format must be")
        .hasMessageContaining("canal-json")
        .hasMessageContaining("'avro'");
  }

  @Test
  void syncThrottleAndPartitions() throws Exception {
    FloeSettings settings =
        load(
            """
            sync:
              snapshot-rows-per-second: 50000
              partitions:
                shop.orders: day(created_at), bucket(16, id)
            """);

    assertThat(settings.sync().snapshotRowsPerSecond()).isEqualTo(50_000);
    assertThat(settings.sync().partitions())
        .containsExactly(java.util.Map.entry("shop.orders", "day(created_at), bucket(16, id)"));
  }

  @Test
  void syncValuesBelowTheirMinimumAreRefused() throws Exception {
    Path file = write("sync:\n  parallelism: 0\n");

    assertThatThrownBy(() -> loader.load(file, Optional.empty(), directory))
        .hasMessage(
            "Config file "
                + file
                + ", line 2: sync.parallelism must be an integer >= 1, got '0'. See"
                + " docs/config.md for what it takes.");
  }

  @Test
  void listOfSectionsIsRefused() throws Exception {
    Path file = write("sync:\n  tables:\n    - a: b\n");

    assertThatThrownBy(() -> loader.load(file, Optional.empty(), directory))
        .hasMessage(
            "Config file "
                + file
                + ", line 3: sync.tables must be a list of strings; this item is a section of keys.");
  }

  @Test
  void dataDirOverrideWins() throws Exception {
    Path file = write("data-dir: /somewhere\n");

    FloeSettings settings = loader.load(file, Optional.of(Path.of("elsewhere")), directory);

    assertThat(settings.dataDirectory()).isEqualTo(directory.resolve("elsewhere"));
  }

  @Test
  void unknownKeyNamesFileLineAndSuggestion() throws Exception {
    Path file = write("catalog:\n  name: lake\n  tpye: jdbc\n");

    assertThatThrownBy(() -> loader.load(file, Optional.empty(), directory))
        .isInstanceOf(FloeException.class)
        .hasMessage(
            "Config file "
                + file
                + ", line 3: unknown key 'catalog.tpye'. Did you mean 'catalog.type'? The keys"
                + " under 'catalog' are: type, name, uri, warehouse, properties, hadoop, s3-endpoint, s3-region, s3-path-style-access, s3-access-key-id, s3-secret-access-key. Every key is"
                + " listed in docs/config.md and by 'floe config --reference'.")
        .extracting(error -> ((FloeException) error).category())
        .isEqualTo(ErrorCategory.BAD_INPUT);
  }

  @Test
  void unknownTopLevelSection() throws Exception {
    Path file = write("\n\ndashboard:\n  enabled: true\n");

    assertThatThrownBy(() -> loader.load(file, Optional.empty(), directory))
        .hasMessage(
            "Config file "
                + file
                + ", line 3: unknown key 'dashboard'. The top-level keys are: data-dir, catalog,"
                + " source, doctor, sync, keeper. Every key is listed in docs/config.md and by"
                + " 'floe config --reference'.");
  }

  @Test
  void wrongTypeNamesKeyValueAndLine() throws Exception {
    Path file = write("doctor:\n  min-binlog-retention-hours: lots\n");

    assertThatThrownBy(() -> loader.load(file, Optional.empty(), directory))
        .hasMessage(
            "Config file "
                + file
                + ", line 2: doctor.min-binlog-retention-hours must be an integer >= 0, got"
                + " 'lots'. See docs/config.md for what it takes.");
  }

  @Test
  void wrongChoice() throws Exception {
    Path file = write("catalog:\n  type: sqlite\n");

    assertThatThrownBy(() -> loader.load(file, Optional.empty(), directory))
        .hasMessage(
            "Config file "
                + file
                + ", line 2: catalog.type must be one of embedded, jdbc, rest, hadoop, got"
                + " 'sqlite'. See docs/config.md for what it takes.");
  }

  @Test
  void listWhereAValueBelongs() throws Exception {
    Path file = write("catalog:\n  name:\n    - a\n    - b\n");

    assertThatThrownBy(() -> loader.load(file, Optional.empty(), directory))
        .hasMessageContaining(
            ", line 3: catalog.name must be a single value (string), got a list.");
  }

  @Test
  void missingRequiredValue() throws Exception {
    Path file = write("catalog:\n  type: rest\n");

    assertThatThrownBy(() -> loader.load(file, Optional.empty(), directory))
        .hasMessage(
            "Config file "
                + file
                + ", line 2: catalog.uri is required when catalog.type is rest. Add it under"
                + " catalog, e.g. uri: http://host:8181.");
  }

  @Test
  void aRestCatalogWithAJdbcUrlIsRefusedWithTheTypeThatFits() throws Exception {
    Path file =
        write("catalog:\n  type: rest\n  uri: jdbc:postgresql://db:5432/iceberg?password=s3cret\n");

    assertThatThrownBy(() -> loader.load(file, Optional.empty(), directory))
        .hasMessage(
            "Config file "
                + file
                + ", line 3: catalog.uri 'jdbc:postgresql://db:5432/iceberg' is not an http(s) URL,"
                + " which a rest catalog needs. Write it as e.g. http://host:8181, or set"
                + " catalog.type to jdbc.");
  }

  @Test
  void aJdbcCatalogWithoutAJdbcUrlIsRefused() throws Exception {
    Path file =
        write("catalog:\n  type: jdbc\n  uri: postgresql://db:5432/iceberg\n  warehouse: /w\n");

    assertThatThrownBy(() -> loader.load(file, Optional.empty(), directory))
        .hasMessage(
            "Config file "
                + file
                + ", line 3: catalog.uri 'postgresql://db:5432/iceberg' is not a JDBC URL, which a"
                + " jdbc catalog needs. Write it as e.g. jdbc:postgresql://host:5432/iceberg.");
  }

  @Test
  void theS3KeysBecomeS3FileIoProperties() throws Exception {
    Path file =
        write(
            "catalog:\n  type: jdbc\n  uri: jdbc:postgresql://db/iceberg\n"
                + "  warehouse: s3://lake/warehouse\n  s3-endpoint: http://minio:9000\n"
                + "  s3-region: eu-west-1\n  s3-path-style-access: true\n"
                + "  s3-access-key-id: AKID\n  s3-secret-access-key: SECRET\n");

    assertThat(loader.load(file, Optional.empty(), directory).catalog().properties())
        .containsOnly(
            Map.entry("s3.endpoint", "http://minio:9000"),
            Map.entry("client.region", "eu-west-1"),
            Map.entry("s3.path-style-access", "true"),
            Map.entry("s3.access-key-id", "AKID"),
            Map.entry("s3.secret-access-key", "SECRET"));
  }

  @Test
  void theHadoopSettingsBecomeHadoopPrefixedCatalogPropertiesAndTheStateDirIsKept()
      throws Exception {
    Path file =
        write(
            "catalog:\n  type: jdbc\n  uri: jdbc:postgresql://db/iceberg\n"
                + "  warehouse: hdfs://namenode:8020/warehouse\n"
                + "  hadoop:\n    dfs.replication: 2\n    dfs.client.use.datanode.hostname: 'true'\n"
                + "sync:\n  state-dir: hdfs://namenode:8020/floe/sync\n");

    FloeSettings settings = loader.load(file, Optional.empty(), directory);

    assertThat(settings.catalog().properties())
        .containsOnly(
            Map.entry("hadoop.dfs.replication", "2"),
            Map.entry("hadoop.dfs.client.use.datanode.hostname", "true"));
    assertThat(settings.sync().stateDirectory()).contains("hdfs://namenode:8020/floe/sync");
    assertThat(loader.load(write("sync:\n  parallelism: 1\n"), Optional.empty(), directory))
        .extracting(loaded -> loaded.sync().stateDirectory())
        .isEqualTo(Optional.empty());
  }

  @Test
  void aHadoopSettingAlsoGivenAsAPropertyIsRefused() throws Exception {
    Path file =
        write(
            "catalog:\n  type: hadoop\n  warehouse: hdfs://nn:8020/w\n"
                + "  hadoop:\n    dfs.replication: 1\n"
                + "  properties:\n    hadoop.dfs.replication: 3\n");

    assertThatThrownBy(() -> loader.load(file, Optional.empty(), directory))
        .hasMessage(
            "Config file "
                + file
                + ", line 5: catalog.hadoop dfs.replication and catalog.properties"
                + " hadoop.dfs.replication set the same thing. Keep it under catalog.hadoop and"
                + " remove the property.");
  }

  @Test
  void anS3KeyAlsoGivenAsAPropertyIsRefused() throws Exception {
    Path file =
        write(
            "catalog:\n  type: hadoop\n  warehouse: s3://lake/w\n  s3-endpoint: http://a:9000\n"
                + "  properties:\n    s3.endpoint: http://b:9000\n");

    assertThatThrownBy(() -> loader.load(file, Optional.empty(), directory))
        .hasMessage(
            "Config file "
                + file
                + ", line 4: catalog.s3-endpoint and catalog.properties s3.endpoint set the same"
                + " thing. Keep catalog.s3-endpoint and remove the property.");
  }

  @Test
  void anS3SecretWithoutItsAccessKeyIdIsRefusedWithoutShowingIt() throws Exception {
    Path file =
        write(
            "catalog:\n  type: hadoop\n  warehouse: s3://lake/w\n"
                + "  s3-secret-access-key: do-not-show-this\n");

    assertThatThrownBy(() -> loader.load(file, Optional.empty(), directory))
        .hasMessage(
            "Config file "
                + file
                + ", line 4: catalog.s3-access-key-id is missing: S3 credentials are an access key"
                + " id and a secret access key together. Add it (e.g. s3-access-key-id:"
                + " ${env:S3_ACCESS_KEY_ID}), or remove both to use the AWS SDK's own"
                + " credentials.");
  }

  @Test
  void unsetEnvironmentVariable() throws Exception {
    Path file =
        write("source:\n  url: mysql://floe@db/shop\n  password: ${env:NOT_SET_ANYWHERE}\n");

    assertThatThrownBy(() -> loader.load(file, Optional.empty(), directory))
        .hasMessage(
            "Config file "
                + file
                + ", line 3: source.password refers to the environment variable NOT_SET_ANYWHERE,"
                + " which is not set. Set it (export NOT_SET_ANYWHERE=...) before running floe, or"
                + " write the value in the file.");
  }

  @Test
  void secretOfWrongShapeIsNotEchoed() throws Exception {
    Path file = write("source:\n  password:\n    nested: hunter2\n");

    assertThatThrownBy(() -> loader.load(file, Optional.empty(), directory))
        .hasMessageContaining(
            "source.password must be a single value (string), got a section of keys.")
        .message()
        .doesNotContain("hunter2");
  }

  @Test
  void duplicateKey() throws Exception {
    Path file = write("catalog:\n  name: a\n  name: b\n");

    assertThatThrownBy(() -> loader.load(file, Optional.empty(), directory))
        .hasMessageContaining("line 3: key 'catalog.name' appears twice. Keep one of them.");
  }

  @Test
  void invalidYaml() throws Exception {
    Path file = write("catalog:\n  name: [unclosed\n");

    assertThatThrownBy(() -> loader.load(file, Optional.empty(), directory))
        .hasMessageStartingWith("Config file " + file + ", line 3: this is not valid YAML (");
  }

  @Test
  void missingFile() {
    Path file = directory.resolve("nope.yaml");

    assertThatThrownBy(() -> loader.load(file, Optional.empty(), directory))
        .hasMessage(
            "Config file "
                + file
                + " does not exist. Check the --config path, or leave --config out to run on"
                + " embedded defaults.");
  }

  private FloeSettings load(String yaml) throws Exception {
    return loader.load(write(yaml), Optional.empty(), directory);
  }

  private Path write(String yaml) throws Exception {
    Path file = directory.resolve("floe.yaml");
    Files.writeString(file, yaml);
    return file;
  }
}

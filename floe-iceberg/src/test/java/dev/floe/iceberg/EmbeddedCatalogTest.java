package dev.floe.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.floe.core.config.CatalogSettings;
import dev.floe.core.config.CatalogType;
import dev.floe.core.error.FloeException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EmbeddedCatalogTest {

  static final Schema SCHEMA =
      new Schema(
          List.of(
              Types.NestedField.required(1, "id", Types.LongType.get()),
              Types.NestedField.optional(2, "name", Types.StringType.get())),
          Set.of(1));

  @TempDir Path dataDirectory;

  @Test
  void tablesFloeWritesAreReadByAPlainIcebergJdbcCatalog() throws Exception {
    TableIdentifier identifier = TableIdentifier.of("shop", "customers");
    try (FloeCatalog floe = new CatalogFactory().open(CatalogSettings.embedded(), dataDirectory)) {
      ((org.apache.iceberg.catalog.SupportsNamespaces) floe.catalog())
          .createNamespace(Namespace.of("shop"));
      Table table =
          floe.catalog()
              .createTable(
                  identifier,
                  SCHEMA,
                  PartitionSpec.unpartitioned(),
                  Map.of(TableProperties.FORMAT_VERSION, "2"));
      TestTables.append(table, List.of(TestTables.row(1L, "ada"), TestTables.row(2L, "grace")));
    }

    assertThat(dataDirectory.resolve("catalog.db")).isRegularFile();
    assertThat(dataDirectory.resolve("warehouse")).isDirectory();

    // A standard client, configured only with the settings the README documents.
    Map<String, String> documented = new HashMap<>();
    documented.put("uri", "jdbc:sqlite:" + dataDirectory.resolve("catalog.db"));
    documented.put("warehouse", dataDirectory.resolve("warehouse").toUri().toString());
    try (JdbcCatalog plain = new JdbcCatalog()) {
      plain.setConf(new org.apache.hadoop.conf.Configuration());
      plain.initialize("floe", documented);
      Table table = plain.loadTable(identifier);
      assertThat(table.schema().identifierFieldNames()).containsExactly("id");
      assertThat(table.spec().isUnpartitioned()).isTrue();
      assertThat(TestTables.rows(table)).containsExactlyInAnyOrder("1:ada", "2:grace");
      assertThat(table.location())
          .startsWith(dataDirectory.resolve("warehouse").toUri().toString().replaceAll("/$", ""));
    }
  }

  @Test
  void hadoopCatalogFromSettings() throws Exception {
    Path warehouse = dataDirectory.resolve("hadoop-warehouse");
    CatalogSettings settings =
        new CatalogSettings(
            CatalogType.HADOOP,
            "lake",
            Optional.empty(),
            Optional.of(warehouse.toUri().toString()),
            Map.of());
    try (FloeCatalog floe = new CatalogFactory().open(settings, dataDirectory)) {
      Table table = floe.catalog().createTable(TableIdentifier.of("ns", "t"), SCHEMA);
      TestTables.append(table, List.of(TestTables.row(7L, "x")));
      assertThat(TestTables.rows(floe.catalog().loadTable(TableIdentifier.of("ns", "t"))))
          .containsExactly("7:x");
    }
    assertThat(Files.isDirectory(warehouse.resolve("ns/t/metadata"))).isTrue();
    assertThat(Files.exists(dataDirectory.resolve("catalog.db"))).isFalse();
  }

  @Test
  void unreachableJdbcCatalogIsExplained() {
    CatalogSettings settings =
        new CatalogSettings(
            CatalogType.JDBC,
            "lake",
            Optional.of("jdbc:mysql://127.0.0.1:1/iceberg?password=hunter2"),
            Optional.of("file:///tmp/w"),
            Map.of("jdbc.connectTimeout", "2000"));

    assertThatThrownBy(() -> new CatalogFactory().open(settings, dataDirectory))
        .isInstanceOf(FloeException.class)
        .hasMessageStartingWith("Cannot open catalog 'lake' at jdbc:mysql://127.0.0.1:1/iceberg: ")
        .message()
        .doesNotContain("hunter2");
  }
}

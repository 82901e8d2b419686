package dev.floe.sync;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SnapshotCopierTest {

  private static final Schema SCHEMA =
      new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));

  @TempDir Path directory;

  @Test
  void copyWritesZstdLevelOneAndASmallDictionaryWhenTheTableSetsNeither() {
    Map<String, String> properties = SnapshotCopier.writeProperties(table("plain", Map.of()));
    assertThat(properties)
        .containsEntry(TableProperties.PARQUET_COMPRESSION_LEVEL, "1")
        .containsEntry(TableProperties.PARQUET_DICT_SIZE_BYTES, "65536");
  }

  @Test
  void copyKeepsTheTablesOwnLevelAndDictionaryLimit() {
    Map<String, String> properties =
        SnapshotCopier.writeProperties(
            table(
                "tuned",
                Map.of(
                    TableProperties.PARQUET_COMPRESSION_LEVEL, "9",
                    TableProperties.PARQUET_DICT_SIZE_BYTES, "1048576")));
    assertThat(properties)
        .containsEntry(TableProperties.PARQUET_COMPRESSION_LEVEL, "9")
        .containsEntry(TableProperties.PARQUET_DICT_SIZE_BYTES, "1048576");
  }

  private Table table(String name, Map<String, String> properties) {
    HadoopCatalog catalog = new HadoopCatalog(new Configuration(), directory.toUri().toString());
    return catalog.createTable(
        TableIdentifier.of("db", name), SCHEMA, PartitionSpec.unpartitioned(), properties);
  }
}

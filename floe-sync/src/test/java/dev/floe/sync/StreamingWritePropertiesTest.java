package dev.floe.sync;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.apache.iceberg.TableProperties;
import org.junit.jupiter.api.Test;

class StreamingWritePropertiesTest {

  @Test
  void syncFilesUseSmallPagesUnlessTheTableSetsItsOwn() {
    Map<String, String> defaults =
        DeltaTaskWriter.streamingWriteProperties(Map.of(TableProperties.FORMAT_VERSION, "2"));
    assertThat(defaults)
        .containsEntry(TableProperties.PARQUET_PAGE_SIZE_BYTES, "65536")
        .containsEntry(TableProperties.DELETE_PARQUET_PAGE_SIZE_BYTES, "65536")
        .containsEntry(TableProperties.FORMAT_VERSION, "2");

    Map<String, String> own =
        DeltaTaskWriter.streamingWriteProperties(
            Map.of(
                TableProperties.PARQUET_PAGE_SIZE_BYTES, "2097152",
                TableProperties.DELETE_PARQUET_PAGE_SIZE_BYTES, "8192"));
    assertThat(own)
        .containsEntry(TableProperties.PARQUET_PAGE_SIZE_BYTES, "2097152")
        .containsEntry(TableProperties.DELETE_PARQUET_PAGE_SIZE_BYTES, "8192");
  }
}

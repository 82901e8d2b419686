package dev.floe.iceberg.sync;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.core.config.CatalogSettings;
import dev.floe.core.sync.SyncSummary;
import dev.floe.iceberg.CatalogFactory;
import dev.floe.iceberg.FloeCatalog;
import java.nio.file.Path;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SyncHistoryTest {

  @TempDir Path directory;

  @Test
  void theSyncsMarksAreFoundPastTheKeepersCommits() {
    try (FloeCatalog catalog = new CatalogFactory().open(CatalogSettings.embedded(), directory)) {
      ((SupportsNamespaces) catalog.catalog()).createNamespace(Namespace.of("db"));
      Table table =
          catalog
              .catalog()
              .createTable(
                  TableIdentifier.of("db", "t"),
                  new Schema(Types.NestedField.required(1, "id", Types.LongType.get())),
                  PartitionSpec.unpartitioned());
      assertThat(SyncHistory.copied(table)).isFalse();
      assertThat(SyncHistory.sourceWatermarkMillis(table)).isEmpty();

      commit(table, "a", Map.of(SyncSummary.SNAPSHOT_COMPLETE + ".shop.t", "true"));
      assertThat(SyncHistory.copied(table)).as("a route's copy mark").isTrue();
      assertThat(SyncHistory.sourceWatermarkMillis(table)).isEmpty();

      commit(table, "b", Map.of(SyncSummary.SOURCE_WATERMARK_MS, "1700000000000"));
      commit(table, "c", Map.of("floe.operation", "optimize")); // a keeper commit: no sync marks
      commit(table, "d", Map.of());

      assertThat(SyncHistory.sourceWatermarkMillis(table)).hasValue(1700000000000L);
      assertThat(SyncHistory.copied(table)).isTrue();

      commit(table, "e", Map.of(SyncSummary.SOURCE_WATERMARK_MS, "not a number"));
      assertThat(SyncHistory.sourceWatermarkMillis(table)).as("not written by Floe").isEmpty();
    }
  }

  @Test
  void marksBeyondTheDepthAreNotLookedFor() {
    try (FloeCatalog catalog = new CatalogFactory().open(CatalogSettings.embedded(), directory)) {
      ((SupportsNamespaces) catalog.catalog()).createNamespace(Namespace.of("db"));
      Table table =
          catalog
              .catalog()
              .createTable(
                  TableIdentifier.of("db", "deep"),
                  new Schema(Types.NestedField.required(1, "id", Types.LongType.get())),
                  PartitionSpec.unpartitioned());
      commit(table, "first", Map.of(SyncSummary.SOURCE_WATERMARK_MS, "5"));
      for (int i = 0; i < SyncHistory.DEPTH - 1; i++) {
        commit(table, "other-" + i, Map.of());
      }
      assertThat(SyncHistory.sourceWatermarkMillis(table)).hasValue(5L);
      commit(table, "one-more", Map.of());
      assertThat(SyncHistory.sourceWatermarkMillis(table)).isEmpty();
    }
  }

  private static void commit(Table table, String name, Map<String, String> summary) {
    DataFile file =
        DataFiles.builder(PartitionSpec.unpartitioned())
            .withPath(table.location() + "/data/" + name + ".parquet")
            .withFileSizeInBytes(10)
            .withRecordCount(1)
            .build();
    var append = table.newFastAppend().appendFile(file);
    summary.forEach(append::set);
    append.commit();
  }
}

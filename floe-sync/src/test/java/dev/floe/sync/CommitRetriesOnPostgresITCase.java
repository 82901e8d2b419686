package dev.floe.sync;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.core.sync.SyncProperties;
import dev.floe.testing.PostgresExtension;
import dev.floe.testing.PostgresServer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The commit retries the sync gives its tables ({@link SyncProperties#COMMIT_RETRY_DEFAULTS}) let
 * every commit of several concurrent writers land on one table of a JdbcCatalog on PostgreSQL, each
 * writer with its own catalog connection pool, as the sync and the keeper's workers have.
 */
@ExtendWith(PostgresExtension.class)
class CommitRetriesOnPostgresITCase {

  private static final int WRITERS = 4;
  private static final int COMMITS = 25;
  private static final Schema SCHEMA =
      new Schema(List.of(Types.NestedField.required(1, "id", Types.LongType.get())), Set.of(1));

  @TempDir Path directory;

  @Test
  void fourWritersCommittingTwentyFiveTimesEachToOneTableAllLand(PostgresServer postgres)
      throws Exception {
    Map<String, String> properties = catalogProperties(postgres);
    TableIdentifier identifier = TableIdentifier.of("shop", "orders");
    try (JdbcCatalog creator = open(properties)) {
      TableProvisioner.create(
          creator, identifier, "shop.orders", SCHEMA, PartitionSpec.unpartitioned(), Map.of());
      assertThat(creator.loadTable(identifier).properties())
          .containsAllEntriesOf(SyncProperties.COMMIT_RETRY_DEFAULTS);
    }

    AtomicInteger failed = new AtomicInteger();
    ExecutorService writers = Executors.newFixedThreadPool(WRITERS);
    List<Future<?>> done = new ArrayList<>();
    for (int writer = 0; writer < WRITERS; writer++) {
      int id = writer;
      done.add(
          writers.submit(
              () -> {
                try (JdbcCatalog catalog = open(properties)) {
                  Table table = catalog.loadTable(identifier);
                  for (int commit = 0; commit < COMMITS; commit++) {
                    try {
                      table.newFastAppend().appendFile(file(table, id, commit)).commit();
                    } catch (CommitFailedException e) {
                      failed.incrementAndGet();
                    }
                  }
                }
                return null;
              }));
    }
    for (Future<?> future : done) {
      future.get(5, TimeUnit.MINUTES);
    }
    writers.shutdown();

    assertThat(failed).hasValue(0);
    try (JdbcCatalog reader = open(properties)) {
      Table table = reader.loadTable(identifier);
      int snapshots = 0;
      for (var ignored : table.snapshots()) {
        snapshots++;
      }
      assertThat(snapshots).isEqualTo(WRITERS * COMMITS);
      assertThat(table.currentSnapshot().summary()).containsEntry("total-data-files", "100");
    }
  }

  private Map<String, String> catalogProperties(PostgresServer postgres) {
    return Map.of(
        "type", "jdbc",
        "uri", postgres.jdbcUrl(postgres.createDatabase("retries")),
        "warehouse", directory.resolve("warehouse").toUri().toString(),
        "jdbc.user", postgres.user(),
        "jdbc.password", postgres.password());
  }

  private static JdbcCatalog open(Map<String, String> properties) {
    return (JdbcCatalog) CatalogUtil.buildIcebergCatalog("lake", properties, new Configuration());
  }

  private static DataFile file(Table table, int writer, int commit) {
    return DataFiles.builder(table.spec())
        .withPath(table.location() + "/data/w" + writer + "-c" + commit + ".parquet")
        .withFormat(FileFormat.PARQUET)
        .withFileSizeInBytes(100)
        .withRecordCount(1)
        .build();
  }
}

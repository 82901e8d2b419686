package dev.floe.iceberg;

import dev.floe.core.config.CatalogSettings;
import java.nio.file.Path;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;

/**
 * Run in a child JVM by {@link ConcurrentCatalogProcessesTest}: opens the embedded catalog, creates
 * its own tables and a shared one, and commits to both as fast as it can. Prints "done WORKER
 * COMMITS" and exits 0 when every commit landed; any exception exits non-zero.
 *
 * <p>Arguments: data directory, worker name, tables to create, commits per table.
 */
public final class CatalogWorkload {

  public static void main(String[] args) throws Exception {
    Path dataDirectory = Path.of(args[0]);
    String worker = args[1];
    int tables = Integer.parseInt(args[2]);
    int commitsPerTable = Integer.parseInt(args[3]);
    int commits = 0;
    try (FloeCatalog floe = new CatalogFactory().open(CatalogSettings.embedded(), dataDirectory)) {
      Catalog catalog = floe.catalog();
      Namespace namespace = Namespace.of("stress");
      try {
        ((SupportsNamespaces) catalog).createNamespace(namespace);
      } catch (AlreadyExistsException createdByTheOtherWorker) {
        // expected: both workers create it
      }
      Table shared = createOrLoad(catalog, TableIdentifier.of(namespace, "shared"));
      for (int round = 0; round < commitsPerTable; round++) {
        for (int t = 0; t < tables; t++) {
          TableIdentifier own = TableIdentifier.of(namespace, worker + "_t" + t);
          Table table = round == 0 ? createOrLoad(catalog, own) : catalog.loadTable(own);
          table.newFastAppend().appendFile(file(table, worker, round)).commit();
          commits++;
        }
        shared.refresh();
        shared.newFastAppend().appendFile(file(shared, worker, round)).commit();
        commits++;
      }
    }
    System.out.println("done " + worker + " " + commits);
  }

  private static Table createOrLoad(Catalog catalog, TableIdentifier identifier) {
    try {
      return catalog.createTable(
          identifier,
          EmbeddedCatalogTest.SCHEMA,
          PartitionSpec.unpartitioned(),
          Map.of(
              TableProperties.FORMAT_VERSION, "2",
              // Two writers race on the shared table: Iceberg retries a lost compare-and-swap.
              TableProperties.COMMIT_NUM_RETRIES, "50",
              TableProperties.COMMIT_MIN_RETRY_WAIT_MS, "10",
              TableProperties.COMMIT_MAX_RETRY_WAIT_MS, "200"));
    } catch (AlreadyExistsException createdByTheOtherWorker) {
      return catalog.loadTable(identifier);
    }
  }

  private static DataFile file(Table table, String worker, int round) {
    return DataFiles.builder(table.spec())
        .withPath(table.location() + "/data/" + worker + "-" + round + ".parquet")
        .withFormat(FileFormat.PARQUET)
        .withFileSizeInBytes(1024)
        .withRecordCount(1)
        .build();
  }
}

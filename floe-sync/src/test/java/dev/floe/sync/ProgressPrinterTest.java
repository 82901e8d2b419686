package dev.floe.sync;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.core.config.CatalogSettings;
import dev.floe.core.source.MySqlSourceAddress;
import dev.floe.iceberg.CatalogFactory;
import dev.floe.iceberg.FloeCatalog;
import dev.floe.mysql.MySqlConnections;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The printer on a real (embedded) catalog: a live block replaces the one before it, a log prints
 * only what changed, and a status that cannot be read starts a new block below the warning.
 */
class ProgressPrinterTest {

  private static final TableIdentifier ORDERS = TableIdentifier.of("shop", "orders");
  private static final Schema SCHEMA =
      new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));

  @TempDir Path directory;

  @Test
  void aLiveBlockReplacesThePreviousOneAndAFailedReadStartsANewOne() throws Exception {
    try (FloeCatalog catalog = catalog()) {
      StringWriter out = new StringWriter();
      ProgressPrinter printer = printer(catalog, ProgressView.Mode.LIVE, out);

      printer.print();
      String first = out.toString();
      printer.print();
      String second = out.toString().substring(first.length());

      assertThat(first)
          .isEqualTo(
              "progress: 1 table: 1 copying (0 / ~0 rows)\n"
                  + "  copying  shop.orders                              0 / ~0 rows\n");
      assertThat(second)
          .isEqualTo(
              "\033[2A\r\033[J"
                  + "progress: 1 table: 1 copying (0 / ~0 rows); 0 rows/s\n"
                  + "  copying  shop.orders                              0 / ~0 rows                                 0 rows/s\n");

      // its metadata file unreadable for a moment: the status cannot be read
      java.nio.file.Path metadata =
          java.nio.file.Path.of(
              java.net.URI.create(
                  ((org.apache.iceberg.HasTableOperations) catalog.catalog().loadTable(ORDERS))
                      .operations()
                      .current()
                      .metadataFileLocation()));
      java.nio.file.Path aside = metadata.resolveSibling("aside.json");
      java.nio.file.Files.move(metadata, aside);
      printer.print(); // cannot load the table: a warning, nothing printed
      assertThat(out.toString()).hasSize(first.length() + second.length());
      java.nio.file.Files.move(aside, metadata);
      printer.print();
      assertThat(out.toString().substring(first.length() + second.length()))
          .as("a new block below the warning, not over it")
          .startsWith("progress: 1 table: ");
    }
  }

  @Test
  void aLogPrintsATableOnceThenTheTotals() throws Exception {
    try (FloeCatalog catalog = catalog()) {
      StringWriter out = new StringWriter();
      ProgressPrinter printer = printer(catalog, ProgressView.Mode.LOG, out);

      printer.print();
      printer.print();

      assertThat(out.toString().lines())
          .containsExactly(
              "  copying  shop.orders                              0 / ~0 rows",
              "progress: 1 table: 1 copying (0 / ~0 rows)",
              "progress: 1 table: 1 copying (0 / ~0 rows); 0 rows/s");
    }
  }

  private FloeCatalog catalog() {
    FloeCatalog catalog =
        new CatalogFactory().open(CatalogSettings.embedded(), directory.resolve("data"));
    if (catalog.catalog() instanceof SupportsNamespaces namespaces) {
      namespaces.createNamespace(Namespace.of("shop"));
    }
    catalog.catalog().createTable(ORDERS, SCHEMA, PartitionSpec.unpartitioned());
    return catalog;
  }

  private static ProgressPrinter printer(
      FloeCatalog catalog, ProgressView.Mode mode, StringWriter out) {
    // no MySQL behind the address: no row estimate, and no binlog head is asked while copying
    SyncProgress progress =
        new SyncProgress(
            catalog,
            Map.of("shop.orders", ORDERS),
            new MySqlConnections(Duration.ofSeconds(1)),
            MySqlSourceAddress.parse("mysql://floe@127.0.0.1:1", "--source"));
    return new ProgressPrinter(
        progress, new ProgressView(mode, Duration.ofSeconds(10), 120), new PrintWriter(out));
  }
}

package dev.floe.cli;

import dev.floe.core.config.CatalogSettings;
import dev.floe.iceberg.CatalogFactory;
import dev.floe.iceberg.FloeCatalog;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.List;
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericAppenderFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.types.Types;

/**
 * A real embedded catalog (SQLite JdbcCatalog under a data directory) with a small table {@code
 * shop.orders}, written with Iceberg's generic writers.
 */
final class SqlShopTables {

  static final Schema ORDERS =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.required(2, "customer", Types.StringType.get()),
          Types.NestedField.optional(3, "status", Types.StringType.get()),
          Types.NestedField.required(4, "total", Types.DecimalType.of(10, 2)),
          Types.NestedField.required(5, "ordered_on", Types.DateType.get()),
          Types.NestedField.optional(6, "paid_at", Types.TimestampType.withoutZone()));

  private SqlShopTables() {}

  /** Opens the embedded catalog under {@code dataDirectory} and writes {@code shop.orders}. */
  static FloeCatalog createShop(Path dataDirectory) throws IOException {
    FloeCatalog catalog = new CatalogFactory().open(CatalogSettings.embedded(), dataDirectory);
    ((SupportsNamespaces) catalog.catalog()).createNamespace(Namespace.of("shop"));
    Table orders =
        catalog
            .catalog()
            .createTable(
                TableIdentifier.of("shop", "orders"), ORDERS, PartitionSpec.unpartitioned());
    append(
        orders,
        List.of(
            order(1, "ada", "paid", "12.50", "2026-11-01", "2026-11-01T10:15:00"),
            order(2, "bob", "new", "7.00", "2026-11-02", null),
            order(3, "ada", null, "100.25", "2026-11-02", "2026-11-03T08:00:00.5"),
            order(4, "cy, \"the\" one", "paid", "3.10", "2026-11-03", "2026-11-03T09:30:00")));
    return catalog;
  }

  private static Record order(
      long id, String customer, String status, String total, String orderedOn, String paidAt) {
    Record record = GenericRecord.create(ORDERS);
    record.setField("id", id);
    record.setField("customer", customer);
    record.setField("status", status);
    record.setField("total", new BigDecimal(total));
    record.setField("ordered_on", LocalDate.parse(orderedOn));
    record.setField("paid_at", paidAt == null ? null : LocalDateTime.parse(paidAt));
    return record;
  }

  /** Writes the rows to one Parquet file and appends it in one commit. */
  static void append(Table table, List<Record> rows) throws IOException {
    String path = table.locationProvider().newDataLocation(UUID.randomUUID() + ".parquet");
    EncryptedOutputFile output = table.encryption().encrypt(table.io().newOutputFile(path));
    DataWriter<Record> writer =
        new GenericAppenderFactory(table.schema(), table.spec())
            .newDataWriter(output, FileFormat.PARQUET, null);
    try (writer) {
      for (Record row : rows) {
        writer.write(row);
      }
    }
    DataFile file = writer.toDataFile();
    table.newAppend().appendFile(file).commit();
  }
}

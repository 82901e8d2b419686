package dev.floe.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The session takes any catalog Floe can open, by its properties: here a Hadoop (file-system)
 * catalog, as {@code catalog.type: hadoop} gives.
 */
class SqlSessionHadoopCatalogITCase {

  @TempDir Path warehouse;

  @Test
  void queriesATableOfAHadoopCatalog() throws Exception {
    Map<String, String> properties =
        Map.of(
            CatalogUtil.ICEBERG_CATALOG_TYPE,
            CatalogUtil.ICEBERG_CATALOG_TYPE_HADOOP,
            CatalogProperties.WAREHOUSE_LOCATION,
            warehouse.toUri().toString());
    Catalog catalog = CatalogUtil.buildIcebergCatalog("lake", properties, new Configuration());
    Table orders =
        catalog.createTable(
            TableIdentifier.of("ods", "orders"), SqlTables.ORDERS, PartitionSpec.unpartitioned());
    Record order = GenericRecord.create(SqlTables.ORDERS);
    order.setField("id", 7L);
    order.setField("customer", "eve");
    order.setField("total", new BigDecimal("9.99"));
    order.setField("ordered_on", LocalDate.parse("2026-11-05"));
    SqlTables.append(orders, List.of(order));

    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    try (SqlSession session = SqlSession.open("lake", properties)) {
      boolean succeeded =
          new SqlConsole(
                  session, SqlOutputFormat.CSV, 10, new PrintWriter(out), new PrintWriter(err))
              .runScript("SHOW DATABASES; SELECT id, customer, total FROM ods.orders");
      assertThat(succeeded).as(err.toString()).isTrue();
    }

    assertThat(out.toString()).isEqualTo("database name\nods\n\nid,customer,total\n7,eve,9.99\n");
  }
}

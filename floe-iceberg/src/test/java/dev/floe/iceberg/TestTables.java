package dev.floe.iceberg;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericAppenderFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;

/** Writes and reads small (id, name) tables with Iceberg's generic data API. */
final class TestTables {

  private TestTables() {}

  static Record row(long id, String name) {
    Record record = GenericRecord.create(EmbeddedCatalogTest.SCHEMA);
    record.setField("id", id);
    record.setField("name", name);
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

  /** Every row as "id:name". */
  static List<String> rows(Table table) throws IOException {
    List<String> rows = new ArrayList<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      for (Record record : records) {
        rows.add(record.getField("id") + ":" + record.getField("name"));
      }
    }
    return rows;
  }
}

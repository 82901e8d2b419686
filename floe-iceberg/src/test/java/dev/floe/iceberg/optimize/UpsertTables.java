package dev.floe.iceberg.optimize;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;

/** Upsert tables for optimize tests: {@code (id, part, payload)}, key {@code id}. */
public final class UpsertTables {

  public static final Schema SCHEMA =
      new Schema(
          java.util.List.of(
              Types.NestedField.required(1, "id", Types.LongType.get()),
              Types.NestedField.required(2, "part", Types.StringType.get()),
              Types.NestedField.optional(3, "payload", Types.StringType.get())),
          Set.of(1));

  public static final PartitionSpec PARTITIONED =
      PartitionSpec.builderFor(SCHEMA).identity("part").build();

  private UpsertTables() {}

  public static Table create(
      Catalog catalog, String name, PartitionSpec spec, Map<String, String> props) {
    Namespace namespace = Namespace.of("db");
    if (catalog instanceof SupportsNamespaces namespaces
        && !namespaces.namespaceExists(namespace)) {
      namespaces.createNamespace(namespace);
    }
    Map<String, String> properties = new HashMap<>(props);
    properties.put(TableProperties.FORMAT_VERSION, "2");
    return catalog.createTable(TableIdentifier.of(namespace, name), SCHEMA, spec, properties);
  }

  /** The row for a key: its partition is {@code p<id % 4>}. */
  public static Record row(long id, String payload) {
    Record record = GenericRecord.create(SCHEMA);
    record.setField("id", id);
    record.setField("part", "p" + Math.floorMod(id, 4));
    record.setField("payload", payload);
    return record;
  }

  /** The table's rows as id -> payload, as Iceberg's own reader sees them; fails on duplicates. */
  public static Map<Long, String> read(Table table) {
    table.refresh();
    Map<Long, String> rows = new HashMap<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      for (Record record : records) {
        Long id = (Long) record.getField("id");
        if (rows.containsKey(id)) {
          throw new AssertionError("duplicate key " + id + " in " + table.name());
        }
        rows.put(id, (String) record.getField("payload"));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return rows;
  }

  /** Writes a position delete file that deletes {@code position} of {@code file}. */
  public static org.apache.iceberg.DeleteFile positionDelete(
      Table table, org.apache.iceberg.DataFile file, long position) {
    org.apache.iceberg.PartitionSpec spec = table.specs().get(file.specId());
    String location =
        table
            .locationProvider()
            .newDataLocation(
                spec, file.partition(), "pos-" + java.util.UUID.randomUUID() + ".parquet");
    org.apache.iceberg.deletes.PositionDeleteWriter<Record> writer =
        new org.apache.iceberg.data.GenericAppenderFactory(table.schema(), spec)
            .newPosDeleteWriter(
                table.encryption().encrypt(table.io().newOutputFile(location)),
                org.apache.iceberg.FileFormat.PARQUET,
                file.partition());
    try (writer) {
      writer.write(
          org.apache.iceberg.deletes.PositionDelete.<Record>create()
              .set(file.location(), position));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return writer.toDeleteFile();
  }
}

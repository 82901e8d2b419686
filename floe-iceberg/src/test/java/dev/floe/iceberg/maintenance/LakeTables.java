package dev.floe.iceberg.maintenance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.core.config.CatalogSettings;
import dev.floe.iceberg.CatalogFactory;
import dev.floe.iceberg.FloeCatalog;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericAppenderFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.types.Types;

/** Real Iceberg tables on local disk for maintenance tests: (id, name, day), format v2. */
final class LakeTables {

  static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "name", Types.StringType.get()),
          Types.NestedField.required(3, "day", Types.IntegerType.get()));

  private LakeTables() {}

  static FloeCatalog open(Path dataDirectory) {
    return new CatalogFactory().open(CatalogSettings.embedded(), dataDirectory);
  }

  static Table create(FloeCatalog catalog, String name, boolean partitioned) {
    TableIdentifier identifier = TableIdentifier.parse(name);
    SupportsNamespaces namespaces = (SupportsNamespaces) catalog.catalog();
    if (!namespaces.namespaceExists(identifier.namespace())) {
      namespaces.createNamespace(identifier.namespace());
    }
    PartitionSpec spec =
        partitioned
            ? PartitionSpec.builderFor(SCHEMA).identity("day").build()
            : PartitionSpec.unpartitioned();
    return catalog
        .catalog()
        .createTable(
            identifier,
            SCHEMA,
            spec,
            Map.of(
                TableProperties.FORMAT_VERSION,
                "2",
                // Small manifests merge often, so tests see manifests rewritten and dropped.
                TableProperties.MANIFEST_MIN_MERGE_COUNT,
                "3"));
  }

  static Record row(long id, String name, int day) {
    Record record = GenericRecord.create(SCHEMA);
    record.setField("id", id);
    record.setField("name", name);
    record.setField("day", day);
    return record;
  }

  /** Writes the rows (one partition) to a new data file without committing it. */
  static DataFile write(Table table, List<Record> rows) {
    PartitionKey key = new PartitionKey(table.spec(), table.schema());
    key.partition(rows.get(0));
    String file = UUID.randomUUID() + ".parquet";
    String location =
        table.spec().isUnpartitioned()
            ? table.locationProvider().newDataLocation(file)
            : table.locationProvider().newDataLocation(table.spec(), key, file);
    DataWriter<Record> writer =
        new GenericAppenderFactory(table.schema(), table.spec())
            .newDataWriter(
                table.encryption().encrypt(table.io().newOutputFile(location)),
                FileFormat.PARQUET,
                table.spec().isUnpartitioned() ? null : key);
    try (writer) {
      rows.forEach(writer::write);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return writer.toDataFile();
  }

  /** Appends the rows, one data file per partition, in one commit. */
  static void append(Table table, List<Record> rows) {
    Map<Integer, List<Record>> byDay = new HashMap<>();
    for (Record row : rows) {
      int day = table.spec().isUnpartitioned() ? 0 : (Integer) row.getField("day");
      byDay.computeIfAbsent(day, d -> new ArrayList<>()).add(row);
    }
    var append = table.newAppend();
    byDay.values().forEach(partition -> append.appendFile(write(table, partition)));
    append.commit();
  }

  /** Writes a position delete file deleting the given positions of one data file. */
  static DeleteFile positionDeletes(Table table, DataFile data, long... positions) {
    String location =
        table.locationProvider().newDataLocation("deletes-" + UUID.randomUUID() + ".parquet");
    PositionDeleteWriter<Record> writer =
        new GenericAppenderFactory(table.schema(), table.spec())
            .newPosDeleteWriter(
                table.encryption().encrypt(table.io().newOutputFile(location)),
                FileFormat.PARQUET,
                data.partition());
    try (writer) {
      for (long position : positions) {
        writer.write(PositionDelete.<Record>create().set(data.location(), position, null));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return writer.toDeleteFile();
  }

  /** Every row as "id:name:day", sorted. */
  static List<String> rows(Table table) {
    List<String> rows = new ArrayList<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      for (Record record : records) {
        rows.add(
            record.getField("id") + ":" + record.getField("name") + ":" + record.getField("day"));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    rows.sort(null);
    return rows;
  }

  /** Rows as of a snapshot. */
  static List<String> rowsAt(Table table, long snapshotId) {
    List<String> rows = new ArrayList<>();
    try (CloseableIterable<Record> records =
        IcebergGenerics.read(table).useSnapshot(snapshotId).build()) {
      for (Record record : records) {
        rows.add(
            record.getField("id") + ":" + record.getField("name") + ":" + record.getField("day"));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    rows.sort(null);
    return rows;
  }

  /**
   * Asserts that the current metadata file and every file any snapshot or statistics entry names
   * exists. (Metadata log entries beyond the retained versions are deleted on purpose.)
   */
  static void assertEveryReferencedFileExists(Table table) {
    table.refresh();
    Set<String> missing = new TreeSet<>();
    Set<String> referenced =
        FileReachability.scan(TableSnapshot.metadataOf(table), table.io())
            .snapshotAndStatisticsFiles();
    referenced.add(TableSnapshot.metadataOf(table).metadataFileLocation());
    for (String location : referenced) {
      if (!table.io().newInputFile(location).exists()) {
        missing.add(location);
      }
    }
    assertThat(missing).as("files referenced by the table but missing").isEmpty();
  }

  /** Sets a file's modification time, to make it look as old as a test needs. */
  static void age(String location, Instant modifiedAt) {
    try {
      Files.setLastModifiedTime(localPath(location), FileTime.from(modifiedAt));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Ages every file under a directory. */
  static void ageAll(Path directory, Instant modifiedAt) {
    try (var files = Files.walk(directory)) {
      files.filter(Files::isRegularFile).forEach(file -> age(file.toUri().toString(), modifiedAt));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static Path localPath(String location) {
    return Path.of(
        java.net.URI.create(
            location.startsWith("/")
                ? "file://" + location
                : location.replaceFirst("^file:/+", "file:///")));
  }

  static Path tableDirectory(Table table) {
    return localPath(table.location());
  }
}

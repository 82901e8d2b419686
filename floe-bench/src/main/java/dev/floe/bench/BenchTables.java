package dev.floe.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericAppenderFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;

/**
 * Tables the benchmarks fill the way writers do: rows of (id, day, payload) keyed by id, bulk loads
 * and streaming upsert commits (equality deletes and new rows), written with the table's own write
 * properties.
 */
final class BenchTables {

  static final Schema SCHEMA =
      new Schema(
          List.of(
              Types.NestedField.required(1, "id", Types.LongType.get()),
              Types.NestedField.required(2, "day", Types.StringType.get()),
              Types.NestedField.optional(3, "payload", Types.StringType.get())),
          Set.of(1));

  static final Schema KEY = TypeUtil.select(SCHEMA, Set.of(1));

  private BenchTables() {}

  /**
   * Every partition: {@code files} bulk-loaded files of {@code rows} rows each (about the target
   * size: healthy). Hot partitions (the last {@code hot}) then get {@code commits} streaming upsert
   * commits (equality deletes for 200 updated or deleted keys, the new rows), each a small data
   * file and a small delete file per hot partition.
   */
  static void fillStreamingTable(
      Table table, int partitions, int hot, int files, int rows, int commits) {
    Random random = new Random(1);
    for (int day = 0; day < partitions; day++) {
      AppendFiles append = table.newAppend();
      for (int file = 0; file < files; file++) {
        List<Record> records = new ArrayList<>();
        for (int i = 0; i < rows; i++) {
          records.add(row(key(day, file * rows + i), day, random));
        }
        append.appendFile(writeData(table, records, day));
      }
      append.commit();
    }
    GenericAppenderFactory deletes =
        new GenericAppenderFactory(
            table, SCHEMA, table.spec(), table.properties(), new int[] {1}, KEY, null);
    for (int commit = 0; commit < commits; commit++) {
      RowDelta delta = table.newRowDelta();
      for (int day = partitions - hot; day < partitions; day++) {
        List<Record> upserts = new ArrayList<>();
        List<Long> deletedKeys = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
          long key = key(day, random.nextInt(files * rows));
          deletedKeys.add(key);
          if (random.nextInt(5) > 0) {
            upserts.add(row(key, day, random));
          }
        }
        delta.addDeletes(writeEqualityDeletes(table, deletes, deletedKeys, day));
        delta.addRows(writeData(table, upserts, day));
      }
      delta.commit();
    }
  }

  /**
   * One partition: {@code deletedKeys + liveRows} rows in files of about 500,000, then equality
   * deletes of the keys below {@code deletedKeys} in files of about 500,000. As with streaming
   * upserts of random keys, every file spans the whole key range (file {@code f} holds the keys
   * {@code = f mod files}), so column statistics cannot narrow which deletes apply to which file.
   */
  static void fillDeleteHeavyTable(Table table, int deletedKeys, int liveRows) {
    Random random = new Random(2);
    int perFile = 500_000;
    long total = (long) deletedKeys + liveRows;
    int dataFiles = (int) ((total + perFile - 1) / perFile);
    for (int file = 0; file < dataFiles; file++) {
      List<Record> records = new ArrayList<>();
      for (long id = file; id < total; id += dataFiles) {
        records.add(row(id, 0, random));
      }
      table.newAppend().appendFile(writeData(table, records, -1)).commit();
    }
    GenericAppenderFactory deletes =
        new GenericAppenderFactory(
            table, SCHEMA, table.spec(), table.properties(), new int[] {1}, KEY, null);
    int deleteFiles = (deletedKeys + perFile - 1) / perFile;
    for (int file = 0; file < deleteFiles; file++) {
      List<Long> keys = new ArrayList<>();
      for (long id = file; id < deletedKeys; id += deleteFiles) {
        keys.add(id);
      }
      table.newRowDelta().addDeletes(writeEqualityDeletes(table, deletes, keys, -1)).commit();
    }
  }

  static long key(int day, int i) {
    return (long) day * 100_000_000L + i;
  }

  static Record row(long id, int day, Random random) {
    Record record = GenericRecord.create(SCHEMA);
    record.setField("id", id);
    record.setField("day", dayValue(day));
    record.setField("payload", Long.toHexString(random.nextLong()));
    return record;
  }

  static String dayValue(int day) {
    return String.format(Locale.ROOT, "2026-%02d-%02d", 1 + day / 28 % 12, 1 + day % 28);
  }

  static StructLike partitionOf(Table table, int day) {
    if (day < 0 || table.spec().isUnpartitioned()) {
      return null;
    }
    PartitionKey partition = new PartitionKey(table.spec(), SCHEMA);
    partition.partition(row(0, day, new Random(0)));
    return partition;
  }

  static EncryptedOutputFile newFile(Table table, StructLike partition) {
    String name = UUID.randomUUID() + ".parquet";
    String location =
        partition == null
            ? table.locationProvider().newDataLocation(name)
            : table.locationProvider().newDataLocation(table.spec(), partition, name);
    return table.encryption().encrypt(table.io().newOutputFile(location));
  }

  /**
   * Writes with the table's write properties, as a real writer does (without them Iceberg's Parquet
   * writer falls back to gzip instead of the table's zstd, and every file a rewrite touches would
   * read faster afterwards for that reason alone).
   */
  static DataFile writeData(Table table, List<Record> records, int day) {
    StructLike partition = partitionOf(table, day);
    DataWriter<Record> writer =
        new GenericAppenderFactory(
                table, table.schema(), table.spec(), table.properties(), null, null, null)
            .newDataWriter(newFile(table, partition), FileFormat.PARQUET, partition);
    try (writer) {
      records.forEach(writer::write);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return writer.toDataFile();
  }

  static DeleteFile writeEqualityDeletes(
      Table table, GenericAppenderFactory factory, List<Long> keys, int day) {
    StructLike partition = partitionOf(table, day);
    EqualityDeleteWriter<Record> writer =
        factory.newEqDeleteWriter(newFile(table, partition), FileFormat.PARQUET, partition);
    try (writer) {
      for (long id : keys) {
        Record key = GenericRecord.create(KEY);
        key.setField("id", id);
        writer.write(key);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return writer.toDeleteFile();
  }
}

package dev.floe.iceberg.optimize;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericAppenderFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.types.TypeUtil;

/**
 * Writes upserts and deletes the way Flink's upsert writer does, one commit per {@link #commit}
 * (one checkpoint): per partition one data file, one equality delete file (key columns only) for
 * keys written before this commit, and one position delete file for keys inserted earlier in the
 * same commit. Keeps the expected table contents.
 */
public final class UpsertWriter {

  private final Table table;
  private final Map<Long, String> expected = new HashMap<>();

  /** Commits so far. */
  private int commits;

  public UpsertWriter(Table table) {
    this.table = table;
  }

  /**
   * One change: an upsert of {@code (id, payload)}, or a delete of {@code id} when payload is null.
   */
  public record Change(long id, String payload) {
    public static Change upsert(long id, String payload) {
      return new Change(id, payload);
    }

    public static Change delete(long id) {
      return new Change(id, null);
    }
  }

  public int commits() {
    return commits;
  }

  public Map<Long, String> expected() {
    return Map.copyOf(expected);
  }

  /** Writes the changes as upserts and commits them in one snapshot. */
  public void commit(List<Change> changes) {
    commit(changes, true);
  }

  /** Appends the rows without any delete (new keys only), in one snapshot. */
  public void append(List<Change> changes) {
    commit(changes, false);
  }

  private void commit(List<Change> changes, boolean upsert) {
    table.refresh();
    Schema schema = table.schema();
    PartitionSpec spec = table.spec();
    Schema keySchema = TypeUtil.select(schema, schema.identifierFieldIds());
    int[] keyIds = schema.identifierFieldIds().stream().mapToInt(Integer::intValue).toArray();
    // Built from the table, as Flink's writer factory is: position deletes then carry full
    // file_path bounds (MetricsConfig.forPositionDelete), which makes them file-scoped.
    GenericAppenderFactory appenders =
        new GenericAppenderFactory(
            table, schema, spec, table.properties(), keyIds, keySchema, null);
    Map<String, PartitionWriters> writers = new LinkedHashMap<>();
    Map<Long, String> next = new HashMap<>(expected);
    try {
      for (Change change : changes) {
        Record row = UpsertTables.row(change.id(), change.payload());
        PartitionKey partition = new PartitionKey(spec, schema);
        partition.partition(row);
        PartitionWriters partitionWriters =
            writers.computeIfAbsent(
                spec.partitionToPath(partition),
                path -> new PartitionWriters(appenders, spec, partition.copy()));
        if (upsert) {
          partitionWriters.deleteKey(change.id(), keySchema);
        }
        if (change.payload() != null) {
          partitionWriters.insert(change.id(), row);
          next.put(change.id(), change.payload());
        } else {
          next.remove(change.id());
        }
      }
      RowDelta delta = table.newRowDelta();
      for (PartitionWriters partitionWriters : writers.values()) {
        partitionWriters.close();
        partitionWriters.dataFile().ifPresent(delta::addRows);
        partitionWriters.deleteFiles().forEach(delta::addDeletes);
      }
      delta.commit();
      expected.clear();
      expected.putAll(next);
      commits++;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private final class PartitionWriters {
    private final GenericAppenderFactory appenders;
    private final PartitionSpec spec;
    private final StructLike partition;
    private DataWriter<Record> data;
    private EqualityDeleteWriter<Record> equalityDeletes;
    private PositionDeleteWriter<Record> positionDeletes;
    private final Map<Long, Long> insertedPositions = new HashMap<>();
    private long position;

    PartitionWriters(GenericAppenderFactory appenders, PartitionSpec spec, StructLike partition) {
      this.appenders = appenders;
      this.spec = spec;
      this.partition = partition;
    }

    private EncryptedOutputFile newFile() {
      String location =
          table
              .locationProvider()
              .newDataLocation(spec, partition, "upsert-" + UUID.randomUUID() + ".parquet");
      return table.encryption().encrypt(table.io().newOutputFile(location));
    }

    void deleteKey(long id, Schema keySchema) {
      Long inserted = insertedPositions.remove(id);
      if (inserted != null) {
        if (positionDeletes == null) {
          positionDeletes = appenders.newPosDeleteWriter(newFile(), FileFormat.PARQUET, partition);
        }
        positionDeletes.write(PositionDelete.<Record>create().set(dataLocation, inserted));
        return;
      }
      if (equalityDeletes == null) {
        equalityDeletes = appenders.newEqDeleteWriter(newFile(), FileFormat.PARQUET, partition);
      }
      Record key = GenericRecord.create(keySchema);
      key.setField("id", id);
      equalityDeletes.write(key);
    }

    void insert(long id, Record row) {
      if (data == null) {
        EncryptedOutputFile file = newFile();
        dataLocation = file.encryptingOutputFile().location();
        data = appenders.newDataWriter(file, FileFormat.PARQUET, partition);
      }
      data.write(row);
      insertedPositions.put(id, position++);
    }

    private String dataLocation;

    void close() throws IOException {
      if (data != null) {
        data.close();
      }
      if (equalityDeletes != null) {
        equalityDeletes.close();
      }
      if (positionDeletes != null) {
        positionDeletes.close();
      }
    }

    java.util.Optional<DataFile> dataFile() {
      return data == null ? java.util.Optional.empty() : java.util.Optional.of(data.toDataFile());
    }

    List<DeleteFile> deleteFiles() {
      List<DeleteFile> files = new ArrayList<>();
      if (equalityDeletes != null) {
        files.add(equalityDeletes.toDeleteFile());
      }
      if (positionDeletes != null) {
        files.add(positionDeletes.toDeleteFile());
      }
      return files;
    }
  }
}

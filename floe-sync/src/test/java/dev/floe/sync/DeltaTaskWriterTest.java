package dev.floe.sync;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.io.WriteResult;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.ContentFileUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DeltaTaskWriterTest {

  private static final Schema SCHEMA =
      new Schema(
          List.of(
              Types.NestedField.required(1, "id", Types.LongType.get()),
              Types.NestedField.optional(2, "value", Types.StringType.get())),
          Set.of(1));

  @TempDir Path directory;

  @Test
  void positionDeletesNameOnlyTheirOwnCommitsFileSoACompactionOfOlderFilesStillCommits()
      throws Exception {
    HadoopCatalog catalog = new HadoopCatalog(new Configuration(), directory.toUri().toString());
    Table table =
        catalog.createTable(
            TableIdentifier.of("shop", "orders"),
            SCHEMA,
            PartitionSpec.unpartitioned(),
            Map.of("format-version", "2"));
    WriteResult copied =
        write(
            table,
            1,
            writer -> {
              writer.write(row(1, "a"));
              writer.write(row(2, "b"));
            });
    commit(table, copied);
    Snapshot planned = table.currentSnapshot();

    // One checkpoint inserts id 3 and updates it again: a position delete of its own new row.
    WriteResult checkpoint =
        write(
            table,
            2,
            writer -> {
              writer.write(row(3, "c"));
              writer.upsert(row(3, "c2"));
              writer.upsert(row(1, "a2"));
            });
    List<DeleteFile> positionDeletes =
        Arrays.stream(checkpoint.deleteFiles())
            .filter(file -> file.content() == FileContent.POSITION_DELETES)
            .toList();
    assertThat(positionDeletes).hasSize(1);
    assertThat(ContentFileUtil.referencedDataFile(positionDeletes.get(0)))
        .as("the file its deletes name, from full file_path bounds")
        .hasToString(checkpoint.dataFiles()[0].location());
    commit(table, checkpoint);

    // A compaction of the older file, planned before that checkpoint, commits after it.
    WriteResult rewritten =
        write(
            table,
            3,
            writer -> {
              writer.write(row(1, "a"));
              writer.write(row(2, "b"));
            });
    table
        .newRewrite()
        .validateFromSnapshot(planned.snapshotId())
        .dataSequenceNumber(planned.sequenceNumber())
        .deleteFile(copied.dataFiles()[0])
        .addFile(rewritten.dataFiles()[0])
        .commit();
    assertThat(table.currentSnapshot().operation()).isEqualTo("replace");
  }

  private interface Writes {
    void to(DeltaTaskWriter writer) throws Exception;
  }

  /** Writes without folding: every change as it comes. */
  private static WriteResult write(Table table, long taskId, Writes writes) throws Exception {
    return write(table, taskId, new FoldBudget(0), writes);
  }

  private static WriteResult write(Table table, long taskId, FoldBudget budget, Writes writes)
      throws Exception {
    table.refresh();
    DeltaTaskWriter writer = DeltaTaskWriter.create(table, table.schema(), 0, taskId, budget);
    writes.to(writer);
    WriteResult result = writer.complete();
    assertThat(budget.held()).as("keys held after the checkpoint closed").isZero();
    return result;
  }

  @Test
  void aCheckpointFoldsEachKeysChangesIntoAtMostOneDeleteAndOneRow() throws Exception {
    Table table = table(PartitionSpec.unpartitioned());
    commit(
        table,
        write(
            table,
            1,
            writer -> {
              writer.write(row(1, "a"));
              writer.write(row(2, "b"));
            }));

    WriteResult checkpoint =
        write(
            table,
            2,
            new FoldBudget(100),
            writer -> {
              for (int i = 0; i < 5; i++) {
                writer.upsert(row(1, "a" + i));
              }
              writer.delete(row(2, "b"));
              writer.write(row(3, "c"));
              writer.upsert(row(3, "c2"));
              writer.write(row(4, "d"));
              writer.delete(row(4, "d"));
              writer.delete(row(5, null));
              writer.upsert(row(5, "e"));
            });

    assertThat(checkpoint.deleteFiles())
        .as("no position delete: no row written in the checkpoint is deleted in it")
        .allMatch(file -> file.content() == FileContent.EQUALITY_DELETES);
    assertThat(Arrays.stream(checkpoint.deleteFiles()).mapToLong(DeleteFile::recordCount).sum())
        .as("equality deletes of keys 1, 2 and 5, whose older rows may exist")
        .isEqualTo(3);
    assertThat(Arrays.stream(checkpoint.dataFiles()).mapToLong(DataFile::recordCount).sum())
        .as("the last rows of keys 1, 3 and 5")
        .isEqualTo(3);
    commit(table, checkpoint);
    assertThat(rows(table)).isEqualTo(Map.of(1L, "a4", 3L, "c2", 5L, "e"));
  }

  @Test
  void everyBudgetLandsTheLastChangeOfEachKey() throws Exception {
    for (int limit : new int[] {0, 1, 3, 1_000}) {
      Table table =
          table(PartitionSpec.builderFor(SCHEMA).bucket("id", 2).build(), "budget" + limit);
      java.util.Random random = new java.util.Random(limit);
      Map<Long, String> expected = new java.util.HashMap<>();
      FoldBudget budget = new FoldBudget(limit);
      for (int checkpoint = 0; checkpoint < 4; checkpoint++) {
        int number = checkpoint;
        commit(
            table,
            write(
                table,
                10 + checkpoint,
                budget,
                writer -> {
                  for (int change = 0; change < 200; change++) {
                    long id = random.nextInt(20);
                    String value = number + "-" + change;
                    switch (random.nextInt(3)) {
                      case 0 -> {
                        if (expected.containsKey(id)) {
                          writer.upsert(row(id, value));
                        } else {
                          writer.write(row(id, value));
                        }
                        expected.put(id, value);
                      }
                      case 1 -> {
                        writer.upsert(row(id, value));
                        expected.put(id, value);
                      }
                      default -> {
                        writer.delete(row(id, null));
                        expected.remove(id);
                      }
                    }
                  }
                }));
        assertThat(rows(table))
            .as("budget %d after checkpoint %d", limit, checkpoint)
            .isEqualTo(expected);
      }
    }
  }

  @Test
  void writersOfOneSubtaskShareTheBudgetAndAnAbortGivesItBack() throws Exception {
    Table orders = table(PartitionSpec.unpartitioned(), "orders_shared");
    Table users = table(PartitionSpec.unpartitioned(), "users_shared");
    FoldBudget budget = new FoldBudget(3);
    DeltaTaskWriter first = DeltaTaskWriter.create(orders, orders.schema(), 0, 1, budget);
    DeltaTaskWriter second = DeltaTaskWriter.create(users, users.schema(), 0, 2, budget);
    first.upsert(row(1, "a"));
    first.upsert(row(2, "b"));
    second.upsert(row(1, "x"));
    assertThat(budget.held()).isEqualTo(3);
    // The budget is spent: the second writer writes what it holds, then holds the new key.
    second.upsert(row(2, "y"));
    assertThat(budget.held()).isEqualTo(3);
    // Spent again and the first writer's keys are not the second's to write: written straight.
    second.upsert(row(3, "z"));
    assertThat(budget.held()).isEqualTo(3);
    first.abort();
    assertThat(budget.held()).isEqualTo(1);
    commit(users, second.complete());
    assertThat(budget.held()).isZero();
    assertThat(rows(users)).isEqualTo(Map.of(1L, "x", 2L, "y", 3L, "z"));
  }

  private Table table(PartitionSpec spec) {
    return table(spec, "orders");
  }

  private Table table(PartitionSpec spec, String name) {
    HadoopCatalog catalog = new HadoopCatalog(new Configuration(), directory.toUri().toString());
    return catalog.createTable(
        TableIdentifier.of("shop", name), SCHEMA, spec, Map.of("format-version", "2"));
  }

  private static Map<Long, String> rows(Table table) throws Exception {
    table.refresh();
    Map<Long, String> rows = new java.util.HashMap<>();
    try (org.apache.iceberg.io.CloseableIterable<Record> records =
        org.apache.iceberg.data.IcebergGenerics.read(table).build()) {
      for (Record record : records) {
        String previous = rows.put((Long) record.getField("id"), (String) record.getField("value"));
        assertThat(previous).as("a duplicate of key %s", record.getField("id")).isNull();
      }
    }
    return rows;
  }

  private static void commit(Table table, WriteResult result) {
    RowDelta delta = table.newRowDelta();
    for (DataFile file : result.dataFiles()) {
      delta.addRows(file);
    }
    for (DeleteFile file : result.deleteFiles()) {
      delta.addDeletes(file);
    }
    delta.commit();
  }

  private static Record row(long id, String value) {
    Record row = GenericRecord.create(SCHEMA);
    row.setField("id", id);
    row.setField("value", value);
    return row;
  }
}

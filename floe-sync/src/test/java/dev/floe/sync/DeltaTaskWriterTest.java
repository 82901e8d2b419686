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

  private static WriteResult write(Table table, long taskId, Writes writes) throws Exception {
    table.refresh();
    DeltaTaskWriter writer = DeltaTaskWriter.create(table, table.schema(), 0, taskId);
    writes.to(writer);
    return writer.complete();
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

package dev.floe.iceberg.optimize;

import static dev.floe.iceberg.optimize.JsonDocuments.array;
import static dev.floe.iceberg.optimize.JsonDocuments.intValue;
import static dev.floe.iceberg.optimize.JsonDocuments.longValue;
import static dev.floe.iceberg.optimize.JsonDocuments.text;
import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import dev.floe.core.optimize.PartitionKey;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.ContentFileParser;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.util.JsonUtil;

/**
 * A {@link GroupResult} as JSON, versioned by {@code "format": 1} (docs/optimize.md, "Portable
 * tasks"): the files the group rewrote and converted by path, the files it wrote in Iceberg's own
 * content-file JSON ({@link ContentFileParser}, with their column metrics), and its counters. A
 * worker encodes ({@link #toJson}); the keeper decodes against its run ({@link
 * OptimizeJob.Run#decode}), which turns the paths back into its own data files. Stateless and
 * thread-safe.
 *
 * <pre>{@code
 * {"format": 1, "task_id": 0, "operation_id": "floe-optimize-…", "table": "floe.db.orders",
 *  "rewritten": ["file:/…/data/part=p1/a.parquet", …], "converted": [],
 *  "added_data_files": [{"spec-id": 0, "content": "data", "file-path": "…", "file-format":
 *      "parquet", "partition": ["p1"], "file-size-in-bytes": 2048, "record-count": 120,
 *      "column-sizes": {…}, "lower-bounds": {…}, "upper-bounds": {…}, …}],
 *  "added_delete_files": [],
 *  "bytes_read": 40960, "rows_written": 120, "rows_deleted": 30, "equality_delete_keys": 30,
 *  "spilled_runs": 0}
 * }</pre>
 */
public final class GroupResultCodec {

  /** The format this Floe writes and the newest it reads. */
  public static final int FORMAT = 1;

  static final String DOCUMENT = "optimize task result";

  private GroupResultCodec() {}

  /**
   * The result of {@code task} as JSON.
   *
   * @param specs the table's partition specs by id (those of the table the worker {@linkplain
   *     PortableRewriter#open opened}), for the written files' partitions
   */
  public static String toJson(
      PortableTask task, GroupResult result, Map<Integer, PartitionSpec> specs) {
    requireNonNull(task, "task is null");
    requireNonNull(result, "result is null");
    requireNonNull(specs, "specs is null");
    return JsonUtil.generate(generator -> write(task, result, specs, generator), false);
  }

  private static void write(
      PortableTask task,
      GroupResult result,
      Map<Integer, PartitionSpec> specs,
      JsonGenerator generator)
      throws IOException {
    generator.writeStartObject();
    generator.writeNumberField(JsonDocuments.FORMAT, FORMAT);
    generator.writeNumberField("task_id", task.taskId());
    generator.writeStringField("operation_id", task.operationId());
    generator.writeStringField("table", task.table());
    writePaths("rewritten", result.replaced(), generator);
    writePaths("converted", result.converted(), generator);
    writeFiles("added_data_files", result.added(), specs, generator);
    writeFiles("added_delete_files", result.addedDeletes(), specs, generator);
    generator.writeNumberField("bytes_read", result.bytesRead());
    generator.writeNumberField("rows_written", result.rowsWritten());
    generator.writeNumberField("rows_deleted", result.rowsDeleted());
    generator.writeNumberField("equality_delete_keys", result.equalityDeleteKeys());
    generator.writeNumberField("spilled_runs", result.spilledRuns());
    generator.writeEndObject();
  }

  private static void writePaths(String name, List<DataFile> files, JsonGenerator generator)
      throws IOException {
    generator.writeArrayFieldStart(name);
    for (DataFile file : files) {
      generator.writeString(file.location());
    }
    generator.writeEndArray();
  }

  private static void writeFiles(
      String name,
      List<? extends ContentFile<?>> files,
      Map<Integer, PartitionSpec> specs,
      JsonGenerator generator)
      throws IOException {
    generator.writeArrayFieldStart(name);
    for (ContentFile<?> file : files) {
      PartitionSpec spec = specs.get(file.specId());
      if (spec == null) {
        throw new IllegalArgumentException(
            "written file " + file.location() + " has spec id " + file.specId() + ", unknown");
      }
      ContentFileParser.toJson(file, spec, generator);
    }
    generator.writeEndArray();
  }

  /**
   * What a run knows about the task a result claims to be for: the result is decoded against it,
   * and refused when it does not match.
   *
   * @param groupFiles the group's data files (to rewrite or convert) by path, the run's own objects
   * @param partitionFiles the paths of every data file of the partition at the planned snapshot
   */
  record Expected(
      String table,
      String operationId,
      int taskId,
      PartitionKey partition,
      Map<String, DataFile> groupFiles,
      Set<String> partitionFiles,
      Map<Integer, PartitionSpec> specs) {}

  /**
   * @throws IllegalArgumentException naming the field, path or file when the document is not a
   *     result of the expected task: another task or operation, a path not in the task's group or
   *     named twice, a written file of the wrong kind, outside the task's partition or already in
   *     the table, or a format newer than {@link #FORMAT}
   */
  static GroupResult fromJson(JsonNode node, Expected expected) {
    JsonDocuments.checkFormat(node, DOCUMENT, FORMAT);
    String operationId = text(node, "operation_id", DOCUMENT);
    int taskId = intValue(node, "task_id", DOCUMENT);
    String table = text(node, "table", DOCUMENT);
    if (!operationId.equals(expected.operationId())
        || taskId != expected.taskId()
        || !table.equals(expected.table())) {
      throw new IllegalArgumentException(
          DOCUMENT
              + " is for task "
              + taskId
              + " of "
              + table
              + " ("
              + operationId
              + "), not task "
              + expected.taskId()
              + " of "
              + expected.table()
              + " ("
              + expected.operationId()
              + ")");
    }
    Set<String> seen = new HashSet<>();
    List<DataFile> rewritten = resolve(array(node, "rewritten", DOCUMENT), expected, seen);
    List<DataFile> converted = resolve(array(node, "converted", DOCUMENT), expected, seen);
    List<DataFile> added = new ArrayList<>();
    for (ContentFile<?> file :
        written(array(node, "added_data_files", DOCUMENT), FileContent.DATA, expected, seen)) {
      added.add((DataFile) file);
    }
    List<DeleteFile> addedDeletes = new ArrayList<>();
    for (ContentFile<?> file :
        written(
            array(node, "added_delete_files", DOCUMENT),
            FileContent.POSITION_DELETES,
            expected,
            seen)) {
      addedDeletes.add((DeleteFile) file);
    }
    return new GroupResult(
        rewritten,
        added,
        converted,
        addedDeletes,
        longValue(node, "bytes_read", DOCUMENT),
        longValue(node, "rows_written", DOCUMENT),
        longValue(node, "rows_deleted", DOCUMENT),
        longValue(node, "equality_delete_keys", DOCUMENT),
        intValue(node, "spilled_runs", DOCUMENT));
  }

  private static List<DataFile> resolve(JsonNode paths, Expected expected, Set<String> seen) {
    List<DataFile> files = new ArrayList<>();
    for (JsonNode path : paths) {
      if (!path.isTextual()) {
        throw new IllegalArgumentException(DOCUMENT + " has a path that is not a string: " + path);
      }
      DataFile file = expected.groupFiles().get(path.textValue());
      if (file == null) {
        throw new IllegalArgumentException(
            DOCUMENT
                + " names "
                + path.textValue()
                + ", which is not in the group of task "
                + expected.taskId()
                + " of "
                + expected.table());
      }
      if (!seen.add(file.location())) {
        throw new IllegalArgumentException(DOCUMENT + " names " + file.location() + " twice");
      }
      files.add(file);
    }
    return files;
  }

  private static List<ContentFile<?>> written(
      JsonNode array, FileContent content, Expected expected, Set<String> seen) {
    List<ContentFile<?>> files = new ArrayList<>();
    for (JsonNode node : array) {
      ContentFile<?> file;
      try {
        file = ContentFileParser.fromJson(node, expected.specs());
      } catch (IllegalArgumentException | IllegalStateException e) {
        throw new IllegalArgumentException(
            DOCUMENT + " has a written file Iceberg cannot read: " + e.getMessage(), e);
      }
      if (file.content() != content) {
        throw new IllegalArgumentException(
            DOCUMENT
                + " lists "
                + file.location()
                + " ("
                + file.content()
                + ") among files of content "
                + content);
      }
      PartitionKey partition = OptimizeScanner.partitionKey(expected.specs(), file.specId(), file);
      if (!partition.equals(expected.partition())) {
        throw new IllegalArgumentException(
            DOCUMENT
                + " wrote "
                + file.location()
                + " in partition "
                + partition
                + " (spec "
                + partition.specId()
                + "), not in the task's partition "
                + expected.partition()
                + " (spec "
                + expected.partition().specId()
                + ")");
      }
      if (expected.partitionFiles().contains(file.location()) || !seen.add(file.location())) {
        throw new IllegalArgumentException(
            DOCUMENT + " adds " + file.location() + ", which the table or the result already has");
      }
      files.add(file);
    }
    return files;
  }
}

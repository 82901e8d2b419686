package dev.floe.iceberg.optimize;

import static dev.floe.iceberg.optimize.JsonDocuments.array;
import static dev.floe.iceberg.optimize.JsonDocuments.booleanValue;
import static dev.floe.iceberg.optimize.JsonDocuments.doubleValue;
import static dev.floe.iceberg.optimize.JsonDocuments.intValue;
import static dev.floe.iceberg.optimize.JsonDocuments.longValue;
import static dev.floe.iceberg.optimize.JsonDocuments.object;
import static dev.floe.iceberg.optimize.JsonDocuments.text;
import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import dev.floe.core.optimize.CandidateFile;
import dev.floe.core.optimize.PartitionKey;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.util.JsonUtil;

/**
 * A {@link PortableTask} as JSON, field names in snake_case, versioned by {@code "format": 1}
 * (docs/optimize.md, "Portable tasks"). Stateless and thread-safe.
 *
 * <pre>{@code
 * {"format": 1, "task_id": 0, "operation_id": "floe-optimize-…", "table": "floe.db.orders",
 *  "metadata_location": "file:/…/metadata/00012-….metadata.json", "snapshot_id": 3051…,
 *  "partition": {"spec_id": 0, "path": "part=p1"},
 *  "rewrite": [{"path": "file:/…/data/part=p1/….parquet", "size_bytes": 1520,
 *               "data_sequence_number": 3, "key_column_bytes": 88, "has_deletes": true}],
 *  "convert": [],
 *  "settings": {"target_file_size_bytes": 1048576, "spill_memory_bytes": 67108864,
 *               "deletes_rewrite_file_ratio": 0.2, "cluster_by_key": true},
 *  "file_io": {"implementation": "org.apache.iceberg.hadoop.HadoopFileIO", "properties": {…}}}
 * }</pre>
 *
 * <p>{@code cluster_by_key} came later within format 1: a task without it (an older keeper's) is
 * rewritten in file order, as that keeper's own rewrites were.
 */
public final class PortableTaskCodec {

  /** The format this Floe writes and the newest it reads. */
  public static final int FORMAT = 1;

  private static final String DOCUMENT = "portable task";

  private PortableTaskCodec() {}

  public static String toJson(PortableTask task) {
    requireNonNull(task, "task is null");
    return JsonUtil.generate(generator -> write(task, generator), false);
  }

  /**
   * @throws IllegalArgumentException naming the field when the JSON is not a portable task, and
   *     when its format is newer than {@link #FORMAT}
   */
  public static PortableTask fromJson(String json) {
    requireNonNull(json, "json is null");
    return fromJson(JsonDocuments.parse(json, DOCUMENT));
  }

  /**
   * @throws IllegalArgumentException naming the field when the JSON is not a portable task, and
   *     when its format is newer than {@link #FORMAT}
   */
  public static PortableTask fromJson(JsonNode node) {
    JsonDocuments.checkFormat(node, DOCUMENT, FORMAT);
    JsonNode partition = object(node, "partition", DOCUMENT);
    JsonNode settings = object(node, "settings", DOCUMENT);
    JsonNode io = object(node, "file_io", DOCUMENT);
    return new PortableTask(
        text(node, "table", DOCUMENT),
        text(node, "metadata_location", DOCUMENT),
        longValue(node, "snapshot_id", DOCUMENT),
        new PartitionKey(
            intValue(partition, "spec_id", DOCUMENT), text(partition, "path", DOCUMENT)),
        candidates(array(node, "rewrite", DOCUMENT)),
        candidates(array(node, "convert", DOCUMENT)),
        new RewriteSettings(
            longValue(settings, "target_file_size_bytes", DOCUMENT),
            longValue(settings, "spill_memory_bytes", DOCUMENT),
            doubleValue(settings, "deletes_rewrite_file_ratio", DOCUMENT),
            settings.path("cluster_by_key").asBoolean(false)),
        text(node, "operation_id", DOCUMENT),
        intValue(node, "task_id", DOCUMENT),
        new PortableTask.FileIoDescription(
            text(io, "implementation", DOCUMENT), properties(object(io, "properties", DOCUMENT))));
  }

  private static void write(PortableTask task, JsonGenerator generator) throws IOException {
    generator.writeStartObject();
    generator.writeNumberField(JsonDocuments.FORMAT, FORMAT);
    generator.writeNumberField("task_id", task.taskId());
    generator.writeStringField("operation_id", task.operationId());
    generator.writeStringField("table", task.table());
    generator.writeStringField("metadata_location", task.metadataLocation());
    generator.writeNumberField("snapshot_id", task.snapshotId());
    generator.writeObjectFieldStart("partition");
    generator.writeNumberField("spec_id", task.partition().specId());
    generator.writeStringField("path", task.partition().path());
    generator.writeEndObject();
    writeCandidates("rewrite", task.rewrite(), generator);
    writeCandidates("convert", task.convert(), generator);
    generator.writeObjectFieldStart("settings");
    generator.writeNumberField("target_file_size_bytes", task.settings().targetFileSizeBytes());
    generator.writeNumberField("spill_memory_bytes", task.settings().spillMemoryBytes());
    generator.writeNumberField(
        "deletes_rewrite_file_ratio", task.settings().deletesRewriteFileRatio());
    generator.writeBooleanField("cluster_by_key", task.settings().clusterByKey());
    generator.writeEndObject();
    generator.writeObjectFieldStart("file_io");
    generator.writeStringField("implementation", task.io().implementation());
    generator.writeObjectFieldStart("properties");
    for (Map.Entry<String, String> property : task.io().properties().entrySet()) {
      generator.writeStringField(property.getKey(), property.getValue());
    }
    generator.writeEndObject();
    generator.writeEndObject();
    generator.writeEndObject();
  }

  private static void writeCandidates(
      String name, List<CandidateFile> files, JsonGenerator generator) throws IOException {
    generator.writeArrayFieldStart(name);
    for (CandidateFile file : files) {
      generator.writeStartObject();
      generator.writeStringField("path", file.path());
      generator.writeNumberField("size_bytes", file.sizeBytes());
      generator.writeNumberField("data_sequence_number", file.dataSequenceNumber());
      generator.writeNumberField("key_column_bytes", file.keyColumnBytes());
      generator.writeBooleanField("has_deletes", file.hasDeletes());
      generator.writeEndObject();
    }
    generator.writeEndArray();
  }

  private static List<CandidateFile> candidates(JsonNode array) {
    List<CandidateFile> files = new ArrayList<>();
    for (JsonNode file : array) {
      if (!file.isObject()) {
        throw new IllegalArgumentException(DOCUMENT + " has a file that is not an object: " + file);
      }
      files.add(
          new CandidateFile(
              text(file, "path", DOCUMENT),
              longValue(file, "size_bytes", DOCUMENT),
              longValue(file, "data_sequence_number", DOCUMENT),
              longValue(file, "key_column_bytes", DOCUMENT),
              booleanValue(file, "has_deletes", DOCUMENT)));
    }
    return files;
  }

  private static Map<String, String> properties(JsonNode object) {
    Map<String, String> properties = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> property : object.properties()) {
      if (!property.getValue().isTextual()) {
        throw new IllegalArgumentException(
            DOCUMENT
                + " FileIO property \""
                + property.getKey()
                + "\" must be a string, was "
                + property.getValue().getNodeType());
      }
      properties.put(property.getKey(), property.getValue().textValue());
    }
    return properties;
  }
}

package dev.floe.sync;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.ContentFileParser;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.io.WriteResult;
import org.apache.iceberg.util.JsonUtil;

/**
 * Closed, uncommitted files of one table, in a portable form: each data and delete file in
 * Iceberg's own content-file JSON ({@link ContentFileParser}: path, format, partition, counts,
 * column metrics, equality ids), and the paths of the data files its position deletes refer to.
 * This is what the committer's state holds for a pending checkpoint, so it does not depend on the
 * Java form of Iceberg's classes. Decoding needs the table's partition specs: partition values are
 * written for the file's spec.
 */
record PendingFiles(
    List<String> dataFiles, List<String> deleteFiles, List<String> referencedDataFiles) {

  PendingFiles {
    dataFiles = List.copyOf(requireNonNull(dataFiles, "dataFiles is null"));
    deleteFiles = List.copyOf(requireNonNull(deleteFiles, "deleteFiles is null"));
    referencedDataFiles =
        List.copyOf(requireNonNull(referencedDataFiles, "referencedDataFiles is null"));
  }

  /**
   * @param specs the partition specs of the table the files were written for, by id
   * @throws IllegalArgumentException when a file's spec is not among them
   */
  static PendingFiles of(WriteResult result, Map<Integer, PartitionSpec> specs) {
    requireNonNull(result, "result is null");
    List<String> data = new ArrayList<>();
    for (DataFile file : result.dataFiles()) {
      data.add(ContentFileParser.toJson(file, spec(file, specs)));
    }
    List<String> deletes = new ArrayList<>();
    for (DeleteFile file : result.deleteFiles()) {
      deletes.add(ContentFileParser.toJson(file, spec(file, specs)));
    }
    List<String> referenced = new ArrayList<>();
    for (CharSequence path : result.referencedDataFiles()) {
      referenced.add(path.toString());
    }
    return new PendingFiles(data, deletes, referenced);
  }

  /**
   * The files as Iceberg objects again.
   *
   * @param specs the partition specs of the table the files are committed to, by id
   * @throws IllegalArgumentException when a file cannot be read with them
   */
  WriteResult toWriteResult(Map<Integer, PartitionSpec> specs) {
    WriteResult.Builder builder = WriteResult.builder();
    for (String json : dataFiles) {
      builder.addDataFiles((DataFile) parse(json, specs));
    }
    for (String json : deleteFiles) {
      builder.addDeleteFiles((DeleteFile) parse(json, specs));
    }
    builder.addReferencedDataFiles(referencedDataFiles.toArray(new CharSequence[0]));
    return builder.build();
  }

  private static ContentFile<?> parse(String json, Map<Integer, PartitionSpec> specs) {
    JsonNode node;
    try {
      node = JsonUtil.mapper().readTree(json);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new UncheckedIOException("a pending file in the committer state is not JSON", e);
    }
    return ContentFileParser.fromJson(node, specs);
  }

  private static PartitionSpec spec(ContentFile<?> file, Map<Integer, PartitionSpec> specs) {
    PartitionSpec spec = specs.get(file.specId());
    if (spec == null) {
      throw new IllegalArgumentException(
          "file " + file.location() + " has partition spec " + file.specId() + ", not the table's");
    }
    return spec;
  }
}

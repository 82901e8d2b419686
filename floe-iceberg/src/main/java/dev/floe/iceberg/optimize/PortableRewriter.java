package dev.floe.iceberg.optimize;

import static java.util.Objects.requireNonNull;

import dev.floe.core.error.FloeException;
import dev.floe.core.optimize.CandidateFile;
import dev.floe.iceberg.io.HadoopConf;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.LocationProviders;
import org.apache.iceberg.StaticTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.FileIO;

/**
 * The worker side of a {@link PortableTask} (docs/optimize.md, "Portable tasks"): opens the table
 * read-only from the task's metadata file, lists the partition's files at the planned snapshot, and
 * rewrites the group with {@link FileGroupRewriter}, exactly as the keeper's own threads do (they
 * call it too). Writes files, commits nothing; on failure deletes what it wrote. Stateless and
 * thread-safe; each call may take minutes and blocks on storage.
 */
public final class PortableRewriter {

  /**
   * Rewrites the task's group.
   *
   * @param io a FileIO that reaches the table's storage (the table's own, or {@link #fileIo})
   * @param spillDirectory local directory for sort runs (created when needed)
   * @throws FloeException SOURCE_UNAVAILABLE when the task's metadata file cannot be read
   * @throws IllegalArgumentException naming the file when the task names a data file that is not in
   *     its partition at the planned snapshot
   * @throws RuntimeException when the rewrite fails; what it wrote is deleted
   */
  public GroupResult rewrite(PortableTask task, FileIO io, Path spillDirectory) {
    requireNonNull(task, "task is null");
    requireNonNull(io, "io is null");
    return rewrite(task, open(task, io), spillDirectory);
  }

  /**
   * Rewrites the task's group in a table {@linkplain #open opened} for it (the worker needs the
   * table's specs again to encode the result, {@link GroupResultCodec#toJson}).
   */
  public GroupResult rewrite(PortableTask task, Table table, Path spillDirectory) {
    requireNonNull(task, "task is null");
    requireNonNull(table, "table is null");
    requireNonNull(spillDirectory, "spillDirectory is null");
    PartitionFiles partition =
        new PartitionFileCollector()
            .collect(table, task.snapshotId(), Set.of(task.partition()))
            .get(task.partition());
    Map<String, DataFile> byPath = new HashMap<>();
    for (DataFile file : partition.dataFiles) {
      byPath.put(file.location(), file);
    }
    List<CandidateFile> named = new ArrayList<>(task.rewrite());
    named.addAll(task.convert());
    for (CandidateFile file : named) {
      if (!byPath.containsKey(file.path())) {
        throw new IllegalArgumentException(
            "task "
                + task.taskId()
                + " of "
                + task.table()
                + " names data file "
                + file.path()
                + ", which is not in partition "
                + task.partition()
                + " at snapshot "
                + task.snapshotId());
      }
    }
    return new FileGroupRewriter(
            table, task.settings(), spillDirectory, task.operationId(), task.taskId())
        .rewrite(task.group(), partition, byPath);
  }

  /**
   * The table as it was when the run started, read-only: from the task's metadata file, with its
   * own location provider (new files go where the table's writers put them).
   *
   * @throws FloeException SOURCE_UNAVAILABLE naming the metadata file when it cannot be read
   */
  public static Table open(PortableTask task, FileIO io) {
    requireNonNull(task, "task is null");
    requireNonNull(io, "io is null");
    TableMetadata metadata;
    try {
      metadata = TableMetadataParser.read(io, task.metadataLocation());
    } catch (NotFoundException e) {
      throw FloeException.sourceUnavailable(
          "Cannot run task "
              + task.taskId()
              + " of "
              + task.table()
              + " ("
              + task.operationId()
              + "): its metadata file "
              + task.metadataLocation()
              + " does not exist. The table's old metadata files may have been removed since"
              + " the run started (write.metadata.delete-after-commit.enabled), or this worker's"
              + " FileIO does not reach the table's storage; a later run plans the table again.",
          e);
    } catch (UncheckedIOException e) {
      throw FloeException.sourceUnavailable(
          "Cannot read the metadata file "
              + task.metadataLocation()
              + " of "
              + task.table()
              + ": "
              + e.getMessage(),
          e);
    }
    return new BaseTable(
        new StaticTableOperations(
            metadata,
            io,
            LocationProviders.locationsFor(metadata.location(), metadata.properties())),
        task.table());
  }

  /**
   * Creates the FileIO a task describes ({@code CatalogUtil.loadFileIO}) with a new Hadoop
   * configuration holding the description's {@code hadoop.*} settings ({@link HadoopConf}). The
   * caller closes it.
   *
   * @param secrets the properties the description leaves out (credentials), from the worker's own
   *     configuration; they win over the description's
   */
  public static FileIO fileIo(
      PortableTask.FileIoDescription description, Map<String, String> secrets) {
    Map<String, String> properties = new LinkedHashMap<>(description.properties());
    properties.putAll(secrets);
    return fileIo(description, secrets, HadoopConf.create(properties));
  }

  /**
   * Creates the FileIO a task describes with the given Hadoop configuration (a {@code
   * org.apache.hadoop.conf.Configuration}, used by Hadoop-based FileIOs). The caller closes it.
   *
   * @throws FloeException BAD_INPUT naming the class when the FileIO cannot be created
   */
  public static FileIO fileIo(
      PortableTask.FileIoDescription description, Map<String, String> secrets, Object hadoopConf) {
    requireNonNull(description, "description is null");
    requireNonNull(secrets, "secrets is null");
    Map<String, String> properties = new LinkedHashMap<>(description.properties());
    properties.putAll(secrets);
    try {
      return CatalogUtil.loadFileIO(description.implementation(), properties, hadoopConf);
    } catch (IllegalArgumentException e) {
      throw FloeException.badInput(
          "Cannot create the FileIO "
              + description.implementation()
              + " of an optimize task: "
              + e.getMessage()
              + ". Is its library on this worker's classpath?");
    }
  }
}

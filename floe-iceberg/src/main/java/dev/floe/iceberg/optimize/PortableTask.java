package dev.floe.iceberg.optimize;

import static java.util.Objects.requireNonNull;

import dev.floe.core.Secret;
import dev.floe.core.optimize.CandidateFile;
import dev.floe.core.optimize.FileGroup;
import dev.floe.core.optimize.PartitionKey;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.io.FileIO;

/**
 * One file-group task of an optimize run, described by what any process can read from the table's
 * files, so that a worker outside the keeper can rewrite it ({@link PortableRewriter}) and the
 * keeper commit the result (docs/optimize.md, "Portable tasks"). Built by {@link
 * OptimizeJob.Run#portable}; JSON through {@link PortableTaskCodec}.
 *
 * @param table the table's name, for messages and the worker's read-only table
 * @param metadataLocation the table's metadata file when the run started; it holds the planned
 *     snapshot
 * @param snapshotId the planned snapshot: the files are listed, and deletes applied, as of it
 * @param partition the partition of the group (spec id and partition path; empty for unpartitioned)
 * @param rewrite the data files to rewrite with their deletes applied
 * @param convert the large data files whose deletes are converted to a position delete file
 * @param settings the policy values the rewrite uses
 * @param operationId the run's operation id, part of every output file name
 * @param taskId the group's number within its run ({@link OptimizeJob.GroupTask#id})
 * @param io the table's FileIO, without secrets
 */
public record PortableTask(
    String table,
    String metadataLocation,
    long snapshotId,
    PartitionKey partition,
    List<CandidateFile> rewrite,
    List<CandidateFile> convert,
    RewriteSettings settings,
    String operationId,
    int taskId,
    FileIoDescription io) {

  public PortableTask {
    requireNonNull(table, "table is null");
    requireNonNull(metadataLocation, "metadataLocation is null");
    requireNonNull(partition, "partition is null");
    rewrite = List.copyOf(requireNonNull(rewrite, "rewrite is null"));
    convert = List.copyOf(requireNonNull(convert, "convert is null"));
    requireNonNull(settings, "settings is null");
    requireNonNull(operationId, "operationId is null");
    requireNonNull(io, "io is null");
    if (rewrite.isEmpty() && convert.isEmpty()) {
      throw new IllegalArgumentException(
          "task " + taskId + " of " + table + " has no file to rewrite or convert");
    }
  }

  /** The file group, as the run packed it. */
  public FileGroup group() {
    return new FileGroup(partition, rewrite, convert);
  }

  /**
   * How to create a table's FileIO in another process: its implementation class and its properties
   * without any secret. A worker adds the secrets from its own configuration ({@link
   * PortableRewriter#fileIo}).
   *
   * @param implementation the FileIO class name, loaded with {@code CatalogUtil.loadFileIO}
   * @param properties the FileIO's properties; secret ones ({@link #isSecret}) are always dropped,
   *     also when given here
   */
  public record FileIoDescription(String implementation, Map<String, String> properties) {

    public FileIoDescription {
      requireNonNull(implementation, "implementation is null");
      requireNonNull(properties, "properties is null");
      Map<String, String> kept = new TreeMap<>();
      properties.forEach(
          (name, value) -> {
            if (!isSecret(name, value)) {
              kept.put(name, value);
            }
          });
      properties = Collections.unmodifiableMap(kept);
    }

    /** The description of {@code io}: its class and its properties without secrets. */
    public static FileIoDescription of(FileIO io) {
      requireNonNull(io, "io is null");
      return new FileIoDescription(io.getClass().getName(), io.properties());
    }

    /**
     * Whether a property must not travel: its name says key, secret, token, password or credential
     * (case-insensitive), or its value is a URL whose query has such a parameter (a JDBC catalog's
     * {@code uri} may carry {@code ?password=...}, and catalogs hand their properties to the
     * FileIO).
     */
    public static boolean isSecret(String name, String value) {
      return isSecretName(name) || hasSecretQueryParameter(value);
    }

    // Secret.isSecretName leaves out "key" (it decides what Floe's own config printing masks);
    // FileIO properties name their keys: s3.access-key-id, s3.secret-access-key, gcs key files.
    private static boolean isSecretName(String name) {
      return Secret.isSecretName(name) || name.toLowerCase(Locale.ROOT).contains("key");
    }

    private static boolean hasSecretQueryParameter(String value) {
      if (value == null) {
        return false;
      }
      int query = value.indexOf('?');
      if (query < 0) {
        return false;
      }
      for (String parameter : value.substring(query + 1).split("[&;]")) {
        int equals = parameter.indexOf('=');
        if (isSecretName(equals < 0 ? parameter : parameter.substring(0, equals))) {
          return true;
        }
      }
      return false;
    }
  }
}

package dev.floe.sync;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.BiFunction;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.io.WriteResult;

/**
 * Reads committer state version 0, written by Floe before {@link CommitterStateSerializer}: Java
 * serialization of {@code Object[] {syncId, TreeMap<Long, IcebergChangeCommitter.Checkpoint>}},
 * with Iceberg's {@link WriteResult}s inside. Kept only so that checkpoints and savepoints of those
 * versions restore; nothing writes it. The files are turned into {@link PendingFiles} with the
 * specs of the tables they were written for.
 */
final class LegacyCommitterState {

  /**
   * Only the classes version 0 state holds (Floe's, the JDK's collections and values, Iceberg's
   * files): anything else in the bytes is refused rather than instantiated.
   */
  private static final ObjectInputFilter CLASSES =
      ObjectInputFilter.Config.createFilter(
          "dev.floe.sync.*;java.lang.*;java.util.*;java.nio.*;org.apache.iceberg.**;!*");

  private LegacyCommitterState() {}

  /**
   * @param specs the partition specs by id of a table ({@code namespace.table}) if it is still the
   *     one of the given UUID (null when the state has none); empty drops its files, which would
   *     not be committed to another table of that name anyway
   * @throws IllegalStateException when the bytes cannot be read as version 0 (for instance when
   *     Iceberg's classes changed incompatibly since)
   */
  static CommitterState read(
      byte[] bytes, BiFunction<String, String, Optional<Map<Integer, PartitionSpec>>> specs) {
    Object[] restored;
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes))) {
      in.setObjectInputFilter(CLASSES);
      restored = (Object[]) in.readObject();
    } catch (IOException | ClassNotFoundException | ClassCastException e) {
      throw new IllegalStateException(
          "cannot read the committer state of this checkpoint (state version 0, Java"
              + " serialization): "
              + e.getMessage(),
          e);
    }
    String syncId = (String) restored[0];
    @SuppressWarnings("unchecked")
    Map<Long, IcebergChangeCommitter.Checkpoint> pending =
        (Map<Long, IcebergChangeCommitter.Checkpoint>) restored[1];
    NavigableMap<Long, PendingCheckpoint> checkpoints = new TreeMap<>();
    pending.forEach((id, checkpoint) -> checkpoints.put(id, convert(checkpoint, specs)));
    return new CommitterState(syncId, checkpoints);
  }

  private static PendingCheckpoint convert(
      IcebergChangeCommitter.Checkpoint old,
      BiFunction<String, String, Optional<Map<Integer, PartitionSpec>>> specs) {
    PendingCheckpoint checkpoint = new PendingCheckpoint();
    checkpoint.position = old.position;
    checkpoint.sourceMillis = old.sourceMillis;
    checkpoint.tableUuids.putAll(old.tableUuids);
    // state written before TRUNCATE TABLE support has no truncations
    Map<String, TreeSet<Integer>> truncations = old.truncations();
    truncations.forEach(
        (table, versions) -> versions.forEach(version -> checkpoint.addTruncation(table, version)));
    old.results.forEach(
        (table, versions) ->
            specs
                .apply(table, old.tableUuids.get(table))
                .ifPresent(
                    tableSpecs ->
                        versions.forEach(
                            (version, results) -> {
                              for (WriteResult result : results) {
                                checkpoint.addFiles(
                                    table, version, PendingFiles.of(result, tableSpecs));
                              }
                            })));
    return checkpoint;
  }
}

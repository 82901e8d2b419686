package dev.floe.iceberg.optimize;

import static java.util.Objects.requireNonNull;

import dev.floe.core.optimize.CandidateFile;
import dev.floe.core.optimize.FileGroup;
import dev.floe.core.optimize.FileGroupPacker;
import dev.floe.core.optimize.OptimizePlan;
import dev.floe.core.optimize.OptimizePolicy;
import dev.floe.core.optimize.OptimizeResult;
import dev.floe.core.optimize.PartitionKey;
import dev.floe.core.optimize.PartitionOutcome;
import dev.floe.core.optimize.PartitionTask;
import dev.floe.core.optimize.PlannedSnapshot;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.Table;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Executes an {@link OptimizePlan} on a table: lists the planned partitions' files at the planned
 * snapshot, packs them into file groups, rewrites and commits each group on its own, then removes
 * the delete files that no longer apply. A failed group fails only itself; the others' commits
 * stand. Blocking; one run per table at a time.
 */
public final class TableOptimizer {

  private static final Logger LOG = LoggerFactory.getLogger(TableOptimizer.class);

  private final Path spillRoot;
  private final FileGroupPacker packer = new FileGroupPacker();
  private final PartitionFileCollector collector = new PartitionFileCollector();
  private final FileGroupCommitter committer = new FileGroupCommitter();

  /**
   * @param spillRoot local directory for the runner's sort runs (a fresh subdirectory per run,
   *     deleted afterwards)
   */
  public TableOptimizer(Path spillRoot) {
    this.spillRoot = requireNonNull(spillRoot, "spillRoot is null");
  }

  public OptimizeResult execute(Table table, OptimizePlan plan, OptimizePolicy policy) {
    requireNonNull(table, "table is null");
    requireNonNull(plan, "plan is null");
    requireNonNull(policy, "policy is null");
    if (plan.isEmpty() || plan.snapshot().isEmpty()) {
      return new OptimizeResult(plan.table(), List.of());
    }
    PlannedSnapshot planned = plan.snapshot().get();
    Set<PartitionKey> wanted = new LinkedHashSet<>();
    plan.tasks().forEach(task -> wanted.add(task.partition()));
    Map<PartitionKey, PartitionFiles> files =
        collector.collect(table, planned.snapshotId(), wanted);
    String operationId = "floe-optimize-" + UUID.randomUUID();
    Path spill = spillRoot.resolve(operationId);
    try {
      List<PartitionOutcome> outcomes = new ArrayList<>();
      Map<PartitionKey, List<DeleteFile>> dangling = new HashMap<>();
      for (PartitionTask task : plan.tasks()) {
        PartitionFiles partition = files.get(task.partition());
        Set<String> covered = new HashSet<>();
        PartitionOutcome outcome =
            run(table, planned, policy, task, partition, spill, operationId, covered);
        outcomes.add(outcome);
        if (outcome.unknown() == 0) {
          dangling.put(task.partition(), dangling(partition, covered));
        }
      }
      return new OptimizeResult(plan.table(), removeDangling(table, planned, outcomes, dangling));
    } finally {
      deleteRecursively(spill);
    }
  }

  private PartitionOutcome run(
      Table table,
      PlannedSnapshot planned,
      OptimizePolicy policy,
      PartitionTask task,
      PartitionFiles partition,
      Path spill,
      String operationId,
      Set<String> covered) {
    Set<Integer> keyIds = table.schema().identifierFieldIds();
    Map<String, DataFile> byPath = new HashMap<>();
    List<CandidateFile> candidates = new ArrayList<>();
    for (DataFile file : partition.dataFiles) {
      byPath.put(file.location(), file);
      candidates.add(
          new CandidateFile(
              file.location(),
              file.fileSizeInBytes(),
              OptimizeScanner.sequenceNumber(file),
              OptimizeScanner.keyColumnBytes(file, keyIds),
              partition.hasDeletes(file)));
    }
    List<FileGroup> groups = packer.pack(task, candidates, policy);
    FileGroupRewriter rewriter = new FileGroupRewriter(table, policy, spill, operationId);
    int committed = 0;
    int failed = 0;
    int unknown = 0;
    long filesRewritten = 0;
    long filesAdded = 0;
    long filesConverted = 0;
    long deleteFilesAdded = 0;
    long bytesRead = 0;
    long bytesWritten = 0;
    long rowsDeleted = 0;
    List<String> problems = new ArrayList<>();
    for (FileGroup group : groups) {
      GroupResult result;
      try {
        result = rewriter.rewrite(group, partition, byPath);
      } catch (RuntimeException e) {
        LOG.warn("rewriting a file group of {} {} failed", table.name(), task.partition(), e);
        failed++;
        problems.add("rewrite failed (" + e + "); nothing committed, retried on a later run");
        continue;
      }
      bytesRead += result.bytesRead();
      FileGroupCommitter.Committed commit = committer.commit(table, planned, result, task.kind());
      commit.covered().forEach(file -> covered.add(file.location()));
      switch (commit.outcome()) {
        case COMMITTED -> {
          committed++;
          filesRewritten += result.replaced().size();
          filesAdded += result.added().size();
          filesConverted += result.converted().size();
          deleteFilesAdded += result.addedDeletes().size();
          bytesWritten += result.bytesWritten();
          rowsDeleted += result.rowsDeleted();
        }
        case FAILED -> {
          failed++;
          problems.add(commit.problem());
        }
        case UNKNOWN -> {
          unknown++;
          problems.add(commit.problem());
        }
      }
    }
    return new PartitionOutcome(
        task.partition(),
        task.kind(),
        groups.size(),
        committed,
        failed,
        unknown,
        filesRewritten,
        filesAdded,
        filesConverted,
        deleteFilesAdded,
        0,
        bytesRead,
        bytesWritten,
        rowsDeleted,
        problems);
  }

  /**
   * Removes the dangling delete files of all partitions in one commit. Iceberg itself may already
   * have dropped some (position deletes that name one replaced file), so only those still live in
   * the current snapshot are removed.
   */
  private List<PartitionOutcome> removeDangling(
      Table table,
      PlannedSnapshot planned,
      List<PartitionOutcome> outcomes,
      Map<PartitionKey, List<DeleteFile>> dangling) {
    Set<String> candidates = new HashSet<>();
    dangling.values().forEach(files -> files.forEach(file -> candidates.add(file.location())));
    if (candidates.isEmpty()) {
      return outcomes;
    }
    table.refresh();
    Set<String> live = liveDeleteFiles(table, candidates);
    List<DeleteFile> remove = new ArrayList<>();
    Map<PartitionKey, Long> counts = new HashMap<>();
    dangling.forEach(
        (partition, files) -> {
          for (DeleteFile file : files) {
            if (live.contains(file.location())) {
              remove.add(file);
              counts.merge(partition, 1L, Long::sum);
            }
          }
        });
    if (committer.removeDanglingDeletes(table, planned, remove) == 0) {
      return outcomes;
    }
    return outcomes.stream()
        .map(
            outcome -> outcome.withDeleteFilesRemoved(counts.getOrDefault(outcome.partition(), 0L)))
        .toList();
  }

  private static Set<String> liveDeleteFiles(Table table, Set<String> candidates) {
    Set<String> live = new HashSet<>();
    org.apache.iceberg.Snapshot current = table.currentSnapshot();
    if (current == null) {
      return live;
    }
    try {
      for (org.apache.iceberg.ManifestFile manifest : current.deleteManifests(table.io())) {
        try (org.apache.iceberg.ManifestReader<DeleteFile> reader =
            org.apache.iceberg.ManifestFiles.readDeleteManifest(
                manifest, table.io(), table.specs())) {
          for (DeleteFile file : reader) {
            if (candidates.contains(file.location())) {
              live.add(file.location());
            }
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the delete manifests of " + table.name(), e);
    }
    return live;
  }

  /**
   * The partition's delete files that apply to no data file left uncovered: an equality delete with
   * sequence number at most, and a position delete below, the smallest data sequence number of the
   * files this run did not replace or convert. Files written after the planned snapshot have larger
   * sequence numbers, so no delete file of the planned snapshot can apply to them.
   */
  static List<DeleteFile> dangling(PartitionFiles partition, Set<String> covered) {
    long minimum = Long.MAX_VALUE;
    for (DataFile file : partition.dataFiles) {
      if (!covered.contains(file.location())) {
        minimum = Math.min(minimum, OptimizeScanner.sequenceNumber(file));
      }
    }
    List<DeleteFile> dangling = new ArrayList<>();
    for (DeleteFile delete : partition.ownDeleteFiles()) {
      long sequence = OptimizeScanner.sequenceNumber(delete);
      boolean applies =
          delete.content() == FileContent.EQUALITY_DELETES
              ? sequence > minimum
              : sequence >= minimum;
      if (!applies) {
        dangling.add(delete);
      }
    }
    return dangling;
  }

  private static void deleteRecursively(Path directory) {
    if (!Files.exists(directory)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(directory)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete spill directory " + directory, e);
    }
  }
}

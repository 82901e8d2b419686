package dev.floe.iceberg.optimize;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import dev.floe.core.optimize.CandidateFile;
import dev.floe.core.optimize.FileGroup;
import dev.floe.core.optimize.FileGroupPacker;
import dev.floe.core.optimize.GroupOutcome;
import dev.floe.core.optimize.OptimizeFailures;
import dev.floe.core.optimize.OptimizePlan;
import dev.floe.core.optimize.OptimizePlanner;
import dev.floe.core.optimize.OptimizePolicy;
import dev.floe.core.optimize.OptimizeResult;
import dev.floe.core.optimize.PartitionKey;
import dev.floe.core.optimize.PartitionOutcome;
import dev.floe.core.optimize.PartitionTask;
import dev.floe.core.optimize.PlannedSnapshot;
import dev.floe.core.optimize.TableState;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The optimize job, the one every caller uses ({@code floe optimize}, the demo, the benchmarks and
 * the keeper service): {@link #preview} scans a table's health and plans (changes nothing); {@link
 * #start} cuts the plan into file-group tasks at the planned snapshot; each task is rewritten
 * ({@link Run#rewrite}, writes files, commits nothing; may run on any thread, or in another process
 * through {@link Run#portable} and {@link Run#decode}) and committed on its own ({@link
 * Run#commit}, one at a time per table, so a table's commits never race each other); {@link
 * Run#finish} removes the delete files that no longer apply and says what the run did. {@link #run}
 * does all of it in order on the calling thread.
 *
 * <p>A failed group fails only itself; the others' commits stand.
 */
public final class OptimizeJob {

  private static final Logger LOG = LoggerFactory.getLogger(OptimizeJob.class);

  /**
   * What the job would do to a table now: its health and the plan (docs/optimize.md). The value
   * {@code --dry-run} prints and the keeper shows.
   */
  public record Preview(TableState state, OptimizePolicy policy, OptimizePlan plan) {
    public Preview {
      requireNonNull(state, "state is null");
      requireNonNull(policy, "policy is null");
      requireNonNull(plan, "plan is null");
    }
  }

  /**
   * One file group of a run: the unit of work a worker rewrites and the keeper commits.
   *
   * @param id the task's number within its run, from 0
   * @param partition the planned partition task the group belongs to
   * @param group the files to rewrite and convert
   */
  public record GroupTask(int id, PartitionTask partition, FileGroup group) {
    public GroupTask {
      requireNonNull(partition, "partition is null");
      requireNonNull(group, "group is null");
    }
  }

  /**
   * What committing one rewritten group did.
   *
   * @param outcome committed, failed (a conflict; its output was deleted) or unknown (output kept)
   * @param problem why it did not commit; empty when committed
   */
  public record GroupCommit(GroupOutcome outcome, String problem) {
    public GroupCommit {
      requireNonNull(outcome, "outcome is null");
      requireNonNull(problem, "problem is null");
    }
  }

  private final Path spillRoot;
  private final OptimizeScanner scanner = new OptimizeScanner();
  private final OptimizePlanner planner = new OptimizePlanner();

  /**
   * @param spillRoot local directory for the runner's sort runs (a fresh subdirectory per run,
   *     deleted when the run finishes)
   */
  public OptimizeJob(Path spillRoot) {
    this.spillRoot = requireNonNull(spillRoot, "spillRoot is null");
  }

  /**
   * Scans the table's health and plans, changing nothing. A disabled table ({@code
   * floe.optimize.enabled=false}) gets an empty plan.
   *
   * @param failures the table's recent failures, so failing partitions back off
   * @throws dev.floe.core.error.FloeException BAD_INPUT for a bad floe.optimize.* property
   */
  public Preview preview(
      String name, Table table, OptimizePolicy policy, OptimizeFailures failures, Instant now) {
    return preview(name, table, policy, failures, now, false);
  }

  /**
   * As {@link #preview(String, Table, OptimizePolicy, OptimizeFailures, Instant)}; {@code asked}
   * plans the run somebody asked for, its time triggers due ({@link
   * OptimizePlanner#plan(TableState, OptimizePolicy, OptimizeFailures, Instant, boolean)}).
   */
  public Preview preview(
      String name,
      Table table,
      OptimizePolicy policy,
      OptimizeFailures failures,
      Instant now,
      boolean asked) {
    requireNonNull(name, "name is null");
    requireNonNull(table, "table is null");
    requireNonNull(policy, "policy is null");
    TableState state = scanner.scan(name, table, policy);
    return new Preview(state, policy, planner.plan(state, policy, failures, now, asked));
  }

  /** The table's health now, for reports after a run. */
  public TableState scan(String name, Table table, OptimizePolicy policy) {
    return scanner.scan(name, table, policy);
  }

  /**
   * Lists the planned partitions' files at the planned snapshot and packs them into file groups.
   * Changes nothing; the returned run must be {@linkplain Run#finish finished} or {@linkplain
   * Run#close closed}.
   */
  public Run start(Table table, Preview preview) {
    requireNonNull(table, "table is null");
    requireNonNull(preview, "preview is null");
    OptimizePlan plan = preview.plan();
    String operationId = "floe-optimize-" + UUID.randomUUID();
    if (plan.isEmpty() || plan.snapshot().isEmpty()) {
      return new Run(
          table, preview, null, null, Map.of(), List.of(), spillRoot.resolve(operationId));
    }
    String metadataLocation = metadataLocation(table);
    PlannedSnapshot planned = plan.snapshot().get();
    Set<PartitionKey> wanted = new LinkedHashSet<>();
    plan.tasks().forEach(task -> wanted.add(task.partition()));
    Map<PartitionKey, PartitionFiles> files =
        new PartitionFileCollector().collect(table, planned.snapshotId(), wanted);
    FileGroupPacker packer = new FileGroupPacker();
    Set<Integer> keyIds = table.schema().identifierFieldIds();
    List<GroupTask> tasks = new ArrayList<>();
    for (PartitionTask task : plan.tasks()) {
      PartitionFiles partition = files.get(task.partition());
      List<CandidateFile> candidates = new ArrayList<>();
      for (DataFile file : partition.dataFiles) {
        candidates.add(
            new CandidateFile(
                file.location(),
                file.fileSizeInBytes(),
                OptimizeScanner.sequenceNumber(file),
                OptimizeScanner.keyColumnBytes(file, keyIds),
                partition.hasDeletes(file)));
      }
      for (FileGroup group : packer.pack(task, candidates, preview.policy())) {
        tasks.add(new GroupTask(tasks.size(), task, group));
      }
    }
    return new Run(
        table, preview, planned, metadataLocation, files, tasks, spillRoot.resolve(operationId));
  }

  /** The table's metadata file now: it holds the planned snapshot, for portable tasks. */
  private static String metadataLocation(Table table) {
    if (!(table instanceof HasTableOperations operations)) {
      throw new IllegalArgumentException(
          "table "
              + table.name()
              + " does not expose its metadata file; optimize needs a table"
              + " loaded from a catalog");
    }
    String location = operations.operations().current().metadataFileLocation();
    if (location == null) {
      throw new IllegalArgumentException(
          "table " + table.name() + " has no metadata file yet; optimize needs a committed table");
    }
    return location;
  }

  /**
   * Previews, starts, rewrites and commits every group in order, and finishes: one whole run on the
   * calling thread.
   */
  public OptimizeResult run(Table table, Preview preview) {
    try (Run run = start(table, preview)) {
      for (GroupTask task : run.tasks()) {
        GroupResult result;
        try {
          result = run.rewrite(task);
        } catch (RuntimeException e) {
          LOG.warn("rewriting a file group of {} {} failed", table.name(), task.partition(), e);
          run.rewriteFailed(task, e);
          continue;
        }
        run.commit(task, result);
      }
      return run.finish();
    }
  }

  /**
   * One run of a plan: its file-group tasks and what became of each. {@link #rewrite}, {@link
   * #portable} and {@link #decode} may be called from several threads at once; {@link #commit},
   * {@link #rewriteFailed}, {@link #abandon}, {@link #discard} and {@link #finish} are serialised
   * by the run itself.
   */
  public static final class Run implements AutoCloseable {

    private final Table table;
    private final Preview preview;
    private final PlannedSnapshot planned;
    private final String metadataLocation;
    private final Map<PartitionKey, PartitionFiles> files;
    private final List<GroupTask> tasks;
    private final Path spill;
    private final String operationId;
    private final FileGroupCommitter committer = new FileGroupCommitter();
    private final Map<PartitionKey, Tally> tallies = new LinkedHashMap<>();
    private final Set<Integer> settled = new HashSet<>();

    private Run(
        Table table,
        Preview preview,
        PlannedSnapshot planned,
        String metadataLocation,
        Map<PartitionKey, PartitionFiles> files,
        List<GroupTask> tasks,
        Path spill) {
      this.table = table;
      this.preview = preview;
      this.planned = planned;
      this.metadataLocation = metadataLocation;
      this.files = files;
      this.tasks = List.copyOf(tasks);
      this.spill = spill;
      this.operationId = spill.getFileName().toString();
      for (PartitionTask task : preview.plan().tasks()) {
        tallies.put(task.partition(), new Tally(task));
      }
      for (GroupTask task : tasks) {
        tallies.get(task.partition().partition()).groups++;
      }
    }

    /** The file-group tasks, in plan order (worst partitions first). */
    public List<GroupTask> tasks() {
      return tasks;
    }

    public Preview preview() {
      return preview;
    }

    /**
     * Rewrites one group: reads its files with their deletes applied and writes the new files.
     * Commits nothing. Thread-safe for different tasks. Runs the task {@linkplain #portable
     * portably}, with the table's own FileIO, exactly as a worker in another process does.
     *
     * @throws RuntimeException when the rewrite fails; what it wrote is deleted
     */
    public GroupResult rewrite(GroupTask task) {
      return new PortableRewriter().rewrite(portable(task), table.io(), spill);
    }

    /**
     * The task as a worker in another process can run it ({@link PortableRewriter}): the table's
     * metadata file when the run started, the planned snapshot, the group's files, the policy
     * values the rewrite uses and the table's FileIO without secrets.
     *
     * @throws IllegalArgumentException when the task is not one of this run's
     */
    public PortableTask portable(GroupTask task) {
      requireOwn(task);
      FileGroup group = task.group();
      return new PortableTask(
          table.name(),
          metadataLocation,
          planned.snapshotId(),
          group.partition(),
          group.rewrite(),
          group.convert(),
          RewriteSettings.of(preview.policy()),
          operationId,
          task.id(),
          PortableTask.FileIoDescription.of(table.io()));
    }

    /** {@link #decode(GroupTask, JsonNode)} of a JSON text. */
    public GroupResult decode(GroupTask task, String json) {
      requireNonNull(json, "json is null");
      return decode(task, JsonDocuments.parse(json, GroupResultCodec.DOCUMENT));
    }

    /**
     * Turns a worker's result ({@link GroupResultCodec}) back into a {@link GroupResult} of this
     * run, ready for {@link #commit}: the rewritten and converted paths become the run's own data
     * files, the written files are read against the table's specs. Thread-safe; changes nothing.
     *
     * @throws IllegalArgumentException naming the path or field when the result is not one of this
     *     task's (another task or run, a path not in the task's group, a written file outside its
     *     partition or already in the table) or is of a newer format
     */
    public GroupResult decode(GroupTask task, JsonNode json) {
      requireOwn(task);
      requireNonNull(json, "json is null");
      PartitionFiles partition = files.get(task.partition().partition());
      Map<String, DataFile> byPath = new HashMap<>();
      for (DataFile file : partition.dataFiles) {
        byPath.put(file.location(), file);
      }
      Map<String, DataFile> groupFiles = new HashMap<>();
      Stream.concat(task.group().rewrite().stream(), task.group().convert().stream())
          .forEach(file -> groupFiles.put(file.path(), byPath.get(file.path())));
      Set<String> partitionFiles = new HashSet<>(byPath.keySet());
      partition.deleteFiles.forEach(file -> partitionFiles.add(file.location()));
      return GroupResultCodec.fromJson(
          json,
          new GroupResultCodec.Expected(
              table.name(),
              operationId,
              task.id(),
              task.group().partition(),
              groupFiles,
              partitionFiles,
              table.specs()));
    }

    /**
     * Deletes the files a result wrote, without settling its task: for a late result whose lease
     * was handed to another worker (which settles the task). A file is deleted only when its name
     * carries this run's operation id and the table's current snapshot does not reference it; any
     * other is kept and logged, because a file a snapshot references is never deleted.
     *
     * @return the locations deleted
     */
    public synchronized List<String> discard(GroupResult result) {
      requireNonNull(result, "result is null");
      Set<String> written = new LinkedHashSet<>();
      result.added().forEach(file -> written.add(file.location()));
      result.addedDeletes().forEach(file -> written.add(file.location()));
      if (written.isEmpty()) {
        return List.of();
      }
      table.refresh();
      Set<String> referenced = referencedFiles(table, planned, written);
      List<String> deleted = new ArrayList<>();
      for (String location : written) {
        String name = location.substring(location.lastIndexOf('/') + 1);
        if (referenced.contains(location)) {
          LOG.warn(
              "not deleting {} of a discarded result: the current snapshot of {} references it",
              location,
              table.name());
        } else if (!name.contains(operationId)) {
          LOG.warn(
              "not deleting {} of a discarded result: it is not named for run {} of {}",
              location,
              operationId,
              table.name());
        } else {
          table.io().deleteFile(location);
          deleted.add(location);
        }
      }
      return deleted;
    }

    /**
     * Commits a rewritten group with the planned snapshot's sequence number. A conflict fails only
     * this group (its output is deleted); an unknown commit state keeps the output.
     */
    public synchronized GroupCommit commit(GroupTask task, GroupResult result) {
      requireNonNull(result, "result is null");
      Tally tally = settle(task);
      tally.bytesRead += result.bytesRead();
      FileGroupCommitter.Committed commit =
          committer.commit(table, planned, result, task.partition().kind());
      commit.covered().forEach(file -> tally.covered.add(file.location()));
      switch (commit.outcome()) {
        case COMMITTED -> {
          tally.committed++;
          tally.filesRewritten += result.replaced().size();
          tally.filesAdded += result.added().size();
          tally.filesConverted += result.converted().size();
          tally.deleteFilesAdded += result.addedDeletes().size();
          tally.bytesWritten += result.bytesWritten();
          tally.rowsDeleted += result.rowsDeleted();
        }
        case FAILED -> {
          tally.failed++;
          tally.problems.add(commit.problem());
        }
        case UNKNOWN -> {
          tally.unknown++;
          tally.problems.add(commit.problem());
        }
      }
      return new GroupCommit(commit.outcome(), commit.problem());
    }

    /** Records that a group's rewrite failed: nothing was committed, a later run retries it. */
    public synchronized void rewriteFailed(GroupTask task, RuntimeException error) {
      requireNonNull(error, "error is null");
      Tally tally = settle(task);
      tally.failed++;
      tally.problems.add(
          "rewrite failed (" + error + "); nothing committed, retried on a later run");
    }

    /**
     * Gives a group up (it timed out, or its worker's lease was handed to another): counts as a
     * failed group, and deletes the files its rewrite wrote, if it produced any. Files a snapshot
     * references are never among them: a result is only ever committed or abandoned.
     */
    public synchronized void abandon(GroupTask task, String reason, GroupResult result) {
      requireNonNull(reason, "reason is null");
      if (result != null) {
        FileGroupCommitter.deleteOutput(table, result);
      }
      if (settled.contains(task.id())) {
        return;
      }
      Tally tally = settle(task);
      tally.failed++;
      tally.problems.add(reason + "; nothing committed, retried on a later run");
    }

    /** Whether every task has been committed, failed or abandoned. */
    public synchronized boolean settled() {
      return settled.size() == tasks.size();
    }

    /**
     * Removes the delete files that apply to no data file any more (in partitions whose groups all
     * have a known outcome) and returns what the run did. Tasks never settled count as failed.
     */
    public synchronized OptimizeResult finish() {
      try {
        for (GroupTask task : tasks) {
          if (!settled.contains(task.id())) {
            abandon(task, "not run", null);
          }
        }
        List<PartitionOutcome> outcomes = new ArrayList<>();
        Map<PartitionKey, List<DeleteFile>> dangling = new HashMap<>();
        for (Tally tally : tallies.values()) {
          outcomes.add(tally.outcome());
          if (tally.unknown == 0 && planned != null) {
            dangling.put(
                tally.task.partition(), dangling(files.get(tally.task.partition()), tally.covered));
          }
        }
        return new OptimizeResult(preview.plan().table(), removeDangling(outcomes, dangling));
      } finally {
        close();
      }
    }

    /** Deletes the run's local spill directory. */
    @Override
    public void close() {
      deleteRecursively(spill);
    }

    private void requireOwn(GroupTask task) {
      requireNonNull(task, "task is null");
      if (task.id() < 0 || task.id() >= tasks.size() || !tasks.get(task.id()).equals(task)) {
        throw new IllegalArgumentException(
            "task " + task.id() + " is not a task of run " + operationId + " of " + table.name());
      }
    }

    private Tally settle(GroupTask task) {
      if (!settled.add(task.id())) {
        throw new IllegalStateException("task " + task.id() + " of " + table.name() + " settled");
      }
      return tallies.get(task.partition().partition());
    }

    /**
     * Removes the dangling delete files of all partitions in one commit. Iceberg itself may already
     * have dropped some (position deletes that name one replaced file), so only those still live in
     * the current snapshot are removed.
     */
    private List<PartitionOutcome> removeDangling(
        List<PartitionOutcome> outcomes, Map<PartitionKey, List<DeleteFile>> dangling) {
      Set<String> candidates = new HashSet<>();
      dangling.values().forEach(list -> list.forEach(file -> candidates.add(file.location())));
      if (candidates.isEmpty()) {
        return outcomes;
      }
      table.refresh();
      Set<String> live = liveDeleteFiles(table, candidates);
      List<DeleteFile> remove = new ArrayList<>();
      Map<PartitionKey, Long> counts = new HashMap<>();
      dangling.forEach(
          (partition, list) -> {
            for (DeleteFile file : list) {
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
              outcome ->
                  outcome.withDeleteFilesRemoved(counts.getOrDefault(outcome.partition(), 0L)))
          .toList();
    }
  }

  /** What a run has done so far to one partition. */
  private static final class Tally {
    final PartitionTask task;
    final Set<String> covered = new HashSet<>();
    final List<String> problems = new ArrayList<>();
    int groups;
    int committed;
    int failed;
    int unknown;
    long filesRewritten;
    long filesAdded;
    long filesConverted;
    long deleteFilesAdded;
    long bytesRead;
    long bytesWritten;
    long rowsDeleted;

    Tally(PartitionTask task) {
      this.task = task;
    }

    PartitionOutcome outcome() {
      return new PartitionOutcome(
          task.partition(),
          task.kind(),
          groups,
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
  }

  /**
   * Which of {@code candidates} (files written during a run) the table's current snapshot
   * references. Manifests written by the planned snapshot or its ancestors are skipped: they were
   * written before any file of the run existed.
   */
  private static Set<String> referencedFiles(
      Table table, PlannedSnapshot planned, Set<String> candidates) {
    Set<String> referenced = new HashSet<>();
    org.apache.iceberg.Snapshot current = table.currentSnapshot();
    if (current == null) {
      return referenced;
    }
    Set<Long> before = new HashSet<>();
    org.apache.iceberg.Snapshot snapshot =
        planned == null ? null : table.snapshot(planned.snapshotId());
    while (snapshot != null) {
      before.add(snapshot.snapshotId());
      snapshot = snapshot.parentId() == null ? null : table.snapshot(snapshot.parentId());
    }
    try {
      for (org.apache.iceberg.ManifestFile manifest : current.allManifests(table.io())) {
        if (manifest.snapshotId() != null && before.contains(manifest.snapshotId())) {
          continue;
        }
        if (manifest.content() == org.apache.iceberg.ManifestContent.DATA) {
          try (org.apache.iceberg.ManifestReader<DataFile> reader =
              org.apache.iceberg.ManifestFiles.read(manifest, table.io(), table.specs())) {
            for (DataFile file : reader) {
              if (candidates.contains(file.location())) {
                referenced.add(file.location());
              }
            }
          }
        } else {
          try (org.apache.iceberg.ManifestReader<DeleteFile> reader =
              org.apache.iceberg.ManifestFiles.readDeleteManifest(
                  manifest, table.io(), table.specs())) {
            for (DeleteFile file : reader) {
              if (candidates.contains(file.location())) {
                referenced.add(file.location());
              }
            }
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the manifests of " + table.name(), e);
    }
    return referenced;
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
    List<DataFile> remaining = new ArrayList<>();
    for (DataFile file : partition.dataFiles) {
      if (!covered.contains(file.location())) {
        remaining.add(file);
      }
    }
    List<DeleteFile> dangling = new ArrayList<>();
    for (DeleteFile delete : partition.ownDeleteFiles()) {
      if (remaining.stream().noneMatch(file -> partition.applies(delete, file))) {
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

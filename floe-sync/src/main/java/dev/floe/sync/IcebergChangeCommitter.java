package dev.floe.sync;

import static java.util.Objects.requireNonNull;

import dev.floe.core.sync.SyncSummary;
import java.io.Closeable;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeutils.base.array.BytePrimitiveArraySerializer;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.DeleteFiles;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotUpdate;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.WriteResult;
import org.apache.iceberg.util.SnapshotUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits what the writers produced, once per table per completed checkpoint, in checkpoint order
 * (an equality delete must get a later sequence number than the rows it deletes).
 *
 * <p>A checkpoint during which a table's schema changed brings files of several schema versions:
 * they are committed as separate commits ("parts"), oldest version first, so that an equality
 * delete written after the change applies to rows written before it in the same checkpoint.
 *
 * <p>Exactly once: the files of a checkpoint are kept in Flink state until the checkpoint
 * completes; each commit records the sync id, checkpoint id and part in the snapshot summary, and
 * after a restore a part is committed to a table only if the table's history does not already hold
 * a commit of that sync at that or a later checkpoint and part. A failed commit fails the job,
 * which restarts from the last checkpoint and commits again; a commit whose outcome was unknown is
 * found (or not) in the table's history the same way.
 *
 * <p>Runs with parallelism 1; the tables one checkpoint changed are committed side by side on
 * {@link #COMMIT_THREADS} threads (a table that did not change costs nothing).
 */
final class IcebergChangeCommitter extends AbstractStreamOperator<Void>
    implements OneInputStreamOperator<TableCommittable, Void> {

  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(IcebergChangeCommitter.class);

  private final CatalogLoader catalogLoader;

  /** The Iceberg tables known at start, whose metrics exist before their first commit. */
  private final List<String> knownTables;

  private transient Catalog catalog;
  private transient String syncId;
  private transient NavigableMap<Long, PendingCheckpoint> checkpoints;
  private transient ListState<byte[]> state;
  private transient Map<String, CommitMark> committed;
  private transient Map<String, TableMetrics> metrics;

  /**
   * Kafka syncs: the offsets every checkpoint committed so far covers (the job's starting offsets
   * to begin with), so that each commit records every partition, not only those of its checkpoint.
   */
  private transient SourceProgress committedProgress;

  /** Kafka syncs: per table UUID, the offsets its newest commit recorded. */
  private transient Map<String, KafkaOffsets> tableOffsets;

  private transient java.util.concurrent.ExecutorService committers;

  /**
   * How many tables a checkpoint commits at once. A commit mostly waits on storage and the catalog
   * (manifest, manifest list, metadata file, the catalog's pointer swap), so the commits of the
   * tables a checkpoint changed overlap; one table's parts stay in order on one thread.
   */
  static final int COMMIT_THREADS = 12;

  /**
   * Flink metrics of one table, in the committer's group under {@code table=<namespace.table>} (the
   * Iceberg table): {@code lagMillis} (now minus the MySQL commit time the table is complete up to;
   * -1 before the first binlog commit), {@code committedRows} and {@code committedRowsPerSecond}
   * (data rows committed), {@code commits}.
   */
  private static final class TableMetrics {
    volatile long watermarkMillis = -1;
    org.apache.flink.metrics.Counter rows;
    org.apache.flink.metrics.Counter commits;
  }

  /** Where a commit stands in a sync: checkpoint, then part within it. */
  private record CommitMark(long checkpoint, int part) implements Comparable<CommitMark> {
    static final CommitMark NONE = new CommitMark(-1, 0);

    @Override
    public int compareTo(CommitMark other) {
      return checkpoint != other.checkpoint
          ? Long.compare(checkpoint, other.checkpoint)
          : Integer.compare(part, other.part);
    }
  }

  /**
   * State version 0 only: what one checkpoint brought, as Floe kept it in Java-serialized state
   * before {@link CommitterStateSerializer}. {@link LegacyCommitterState} reads it from old
   * checkpoints and savepoints; nothing writes it. Its name, fields and serialVersionUID must not
   * change.
   */
  static final class Checkpoint implements Serializable {
    private static final long serialVersionUID = 2L;
    final Map<String, TreeMap<Integer, List<WriteResult>>> results = new HashMap<>();
    final Map<String, String> tableUuids = new HashMap<>();

    /** Absent (null) in state written before TRUNCATE TABLE was supported. */
    private Map<String, TreeSet<Integer>> truncations;

    BinlogPosition position = BinlogPosition.NONE;
    long sourceMillis;

    Map<String, TreeSet<Integer>> truncations() {
      return truncations == null ? Map.of() : truncations;
    }
  }

  /** The sync's id, for a fresh start; a restored committer keeps the id in its state. */
  private final String initialSyncId;

  /** How far the source was read before the job's first record, for a fresh start. */
  private final SourceProgress initialProgress;

  IcebergChangeCommitter(CatalogLoader catalogLoader, List<String> knownTables, String syncId) {
    this(catalogLoader, knownTables, syncId, SourceProgress.NONE);
  }

  /**
   * @param initialProgress for a Kafka sync, the offsets the job starts reading at: every table is
   *     complete below them (a restored committer keeps what its state says instead)
   */
  IcebergChangeCommitter(
      CatalogLoader catalogLoader,
      List<String> knownTables,
      String syncId,
      SourceProgress initialProgress) {
    this.catalogLoader = requireNonNull(catalogLoader, "catalogLoader is null");
    this.knownTables = List.copyOf(requireNonNull(knownTables, "knownTables is null"));
    this.initialSyncId = requireNonNull(syncId, "syncId is null");
    this.initialProgress = requireNonNull(initialProgress, "initialProgress is null");
  }

  @Override
  public void initializeState(StateInitializationContext context) throws Exception {
    super.initializeState(context);
    metrics = new java.util.concurrent.ConcurrentHashMap<>();
    knownTables.forEach(this::metrics);
    catalog = catalogLoader.open();
    state =
        context
            .getOperatorStateStore()
            .getListState(
                new ListStateDescriptor<>("floe-committer", BytePrimitiveArraySerializer.INSTANCE));
    checkpoints = new TreeMap<>();
    committed = new java.util.concurrent.ConcurrentHashMap<>();
    java.util.concurrent.atomic.AtomicInteger threads =
        new java.util.concurrent.atomic.AtomicInteger();
    committers =
        java.util.concurrent.Executors.newFixedThreadPool(
            COMMIT_THREADS,
            runnable -> {
              Thread thread = new Thread(runnable, "floe-commit-" + threads.incrementAndGet());
              thread.setDaemon(true);
              return thread;
            });
    syncId = initialSyncId;
    tableOffsets = new java.util.concurrent.ConcurrentHashMap<>();
    committedProgress = initialProgress;
    if (context.isRestored()) {
      committedProgress = SourceProgress.NONE;
      for (byte[] bytes : state.get()) {
        CommitterState restored =
            CommitterStateSerializer.isJavaSerialized(bytes)
                ? LegacyCommitterState.read(bytes, this::specsOfTable)
                : CommitterStateSerializer.read(bytes);
        syncId = restored.syncId();
        committedProgress = committedProgress.merge(restored.committed());
        checkpoints.putAll(restored.checkpoints());
      }
      // Everything in restored state belongs to completed checkpoints: land what is missing.
      commitUpTo(Long.MAX_VALUE);
    }
  }

  /**
   * The partition specs of a table, if it is still the one of that UUID (null: not recorded), for
   * files in version 0 state.
   */
  private java.util.Optional<Map<Integer, org.apache.iceberg.PartitionSpec>> specsOfTable(
      String tableKey, String writtenFor) {
    Table table = catalog.loadTable(SyncTargets.lakeTable(tableKey));
    if (writtenFor != null && !writtenFor.equals(table.uuid().toString())) {
      return java.util.Optional.empty();
    }
    return java.util.Optional.of(table.specs());
  }

  /** The metrics of a table, registered on first use. */
  private TableMetrics metrics(String source) {
    return metrics.computeIfAbsent(
        source,
        name -> {
          org.apache.flink.metrics.MetricGroup group = getMetricGroup().addGroup("table", name);
          TableMetrics table = new TableMetrics();
          table.rows = group.counter("committedRows");
          table.commits = group.counter("commits");
          group.meter("committedRowsPerSecond", new org.apache.flink.metrics.MeterView(table.rows));
          group.gauge(
              "lagMillis",
              () ->
                  table.watermarkMillis < 0
                      ? -1L
                      : Math.max(0, System.currentTimeMillis() - table.watermarkMillis));
          return table;
        });
  }

  @Override
  public void processElement(StreamRecord<TableCommittable> element) {
    TableCommittable committable = element.getValue();
    PendingCheckpoint checkpoint =
        checkpoints.computeIfAbsent(committable.checkpointId(), id -> new PendingCheckpoint());
    checkpoint.position = checkpoint.position.merge(committable.progress());
    checkpoint.sourceMillis = Math.max(checkpoint.sourceMillis, committable.sourceMillis());
    committable
        .table()
        .ifPresent(
            table -> {
              if (committable.truncate()) {
                checkpoint.addTruncation(table, committable.schemaVersion());
              } else {
                checkpoint.addFiles(table, committable.schemaVersion(), committable.files());
              }
            });
    committable
        .table()
        .ifPresent(table -> checkpoint.tableUuids.put(table, committable.tableUuid()));
  }

  @Override
  public void snapshotState(StateSnapshotContext context) throws Exception {
    super.snapshotState(context);
    state.update(
        List.of(
            CommitterStateSerializer.write(
                new CommitterState(syncId, committedProgress, checkpoints))));
  }

  @Override
  public void notifyCheckpointComplete(long checkpointId) throws Exception {
    super.notifyCheckpointComplete(checkpointId);
    commitUpTo(checkpointId);
  }

  private void commitUpTo(long checkpointId) {
    NavigableMap<Long, PendingCheckpoint> ready = checkpoints.headMap(checkpointId, true);
    for (Map.Entry<Long, PendingCheckpoint> entry : ready.entrySet()) {
      PendingCheckpoint checkpoint = entry.getValue();
      // A binlog position covers the whole stream; Kafka offsets cover the partitions a
      // checkpoint's records came from, so they add up over the checkpoints.
      boolean kafka =
          committedProgress instanceof KafkaOffsets || checkpoint.position instanceof KafkaOffsets;
      SourceProgress covered =
          kafka ? committedProgress.merge(checkpoint.position) : checkpoint.position;
      java.util.Set<String> keys = new java.util.TreeSet<>(checkpoint.results.keySet());
      keys.addAll(checkpoint.truncations.keySet());
      // Where each key's files go now (a catalog lookup per changed table, side by side).
      List<java.util.Optional<Target>> targets =
          inParallel(
              keys.stream()
                  .map(
                      key ->
                          (java.util.concurrent.Callable<java.util.Optional<Target>>)
                              () -> current(key, checkpoint))
                  .toList(),
              entry.getKey());
      // A table renamed during the checkpoint (MySQL RENAME TABLE) has files under its old and
      // its new name: one table, whose versions are committed in order whatever their name.
      Map<TableIdentifier, List<String>> keysByTable = new TreeMap<>(ORDER);
      Map<TableIdentifier, Target> loaded = new HashMap<>();
      java.util.Iterator<java.util.Optional<Target>> found = targets.iterator();
      for (String key : keys) {
        java.util.Optional<Target> target = found.next();
        if (target.isPresent()) {
          TableIdentifier identifier = target.get().identifier();
          loaded.putIfAbsent(identifier, target.get());
          keysByTable.computeIfAbsent(identifier, name -> new ArrayList<>()).add(key);
        }
      }
      keysByTable.keySet().forEach(identifier -> metrics(identifier.toString()));
      // Tables are independent: their commits run side by side, each table's parts in order on
      // one thread. All are awaited; the first failure fails the job, which restores and commits
      // what is missing. Kafka: the tables that have recorded no offset yet for some partition
      // read are committed first, so that no table records offsets beyond rows another table has
      // not committed while that table has no offsets of its own to start again from.
      for (Map<TableIdentifier, List<String>> wave : waves(keysByTable, loaded, covered)) {
        inParallel(
            wave.entrySet().stream()
                .map(
                    group ->
                        (java.util.concurrent.Callable<Void>)
                            () -> {
                              commitTable(
                                  loaded.get(group.getKey()),
                                  group.getValue(),
                                  entry.getKey(),
                                  checkpoint,
                                  covered);
                              return null;
                            })
                .toList(),
            entry.getKey());
      }
      if (kafka) {
        committedProgress = covered;
      }
      // The binlog is one ordered stream: once a checkpoint is committed, every table is complete
      // up to the newest event read by then, changed or not.
      if (entry.getValue().sourceMillis > 0 && metrics != null) {
        for (TableMetrics table : metrics.values()) {
          table.watermarkMillis = Math.max(table.watermarkMillis, entry.getValue().sourceMillis);
        }
      }
    }
    ready.clear();
  }

  /**
   * The tables of a checkpoint in the order their commits must land: for Kafka offsets, first those
   * whose own recorded offsets lack a partition the checkpoint covers, then the others; a binlog
   * position needs no order.
   */
  private List<Map<TableIdentifier, List<String>>> waves(
      Map<TableIdentifier, List<String>> keysByTable,
      Map<TableIdentifier, Target> loaded,
      SourceProgress covered) {
    if (!(covered instanceof KafkaOffsets offsets)) {
      return List.of(keysByTable);
    }
    Map<TableIdentifier, List<String>> first = new TreeMap<>(ORDER);
    Map<TableIdentifier, List<String>> then = new TreeMap<>(ORDER);
    keysByTable.forEach(
        (identifier, keys) -> {
          KafkaOffsets own = ownOffsets(loaded.get(identifier).table());
          boolean lacking =
              offsets.next().keySet().stream().anyMatch(partition -> own.next(partition).isEmpty());
          (lacking ? first : then).put(identifier, keys);
        });
    return first.isEmpty() || then.isEmpty() ? List.of(keysByTable) : List.of(first, then);
  }

  /** The Kafka offsets the table's newest commit recorded (none: empty). */
  private KafkaOffsets ownOffsets(Table table) {
    return tableOffsets.computeIfAbsent(
        table.uuid().toString(),
        uuid -> {
          Snapshot current = table.currentSnapshot();
          if (current == null) {
            return KafkaOffsets.EMPTY;
          }
          for (Snapshot snapshot :
              SnapshotUtil.ancestorsOf(current.snapshotId(), table::snapshot)) {
            if (snapshot.summary().containsKey(SyncSummary.KAFKA_TOPICS)) {
              return KafkaOffsets.fromSummary(snapshot.summary());
            }
          }
          return KafkaOffsets.EMPTY;
        });
  }

  /**
   * What a commit to this table records: a binlog position as it is; Kafka offsets together with
   * the offsets the table recorded before (a table is complete below either).
   */
  private SourceProgress recorded(Table table, SourceProgress covered) {
    return covered instanceof KafkaOffsets ? covered.merge(ownOffsets(table)) : covered;
  }

  /** Commits one table's parts of a checkpoint (from all the names it had), in order. */
  private void commitTable(
      Target table,
      List<String> keys,
      long checkpointId,
      PendingCheckpoint checkpoint,
      SourceProgress covered) {
    TreeMap<Integer, List<PendingFiles>> files = new TreeMap<>();
    TreeSet<Integer> truncated = new TreeSet<>();
    for (String key : keys) {
      checkpoint
          .results
          .getOrDefault(key, new TreeMap<>())
          .forEach(
              (version, pending) ->
                  files.computeIfAbsent(version, any -> new ArrayList<>()).addAll(pending));
      truncated.addAll(checkpoint.truncations.getOrDefault(key, new TreeSet<>()));
    }
    TreeSet<Integer> versions = new TreeSet<>(files.keySet());
    versions.addAll(truncated);
    int part = 0;
    for (int version : versions) {
      // a TRUNCATE empties the table after the rows before it and before the rows after it
      if (truncated.contains(version)) {
        CommitMark mark = new CommitMark(checkpointId, part++);
        table = followingRenames(table, target -> truncate(target, mark, checkpoint, covered));
      }
      if (files.containsKey(version)) {
        CommitMark mark = new CommitMark(checkpointId, part++);
        List<PendingFiles> pending = files.get(version);
        table =
            followingRenames(table, target -> commit(target, pending, mark, checkpoint, covered));
      }
    }
  }

  /**
   * Runs the tasks on the commit threads (one alone on this thread) and returns their results in
   * order once all ended; the first failure is thrown, the others added to it as suppressed.
   */
  private <T> List<T> inParallel(List<java.util.concurrent.Callable<T>> tasks, long checkpointId) {
    if (tasks.size() == 1) {
      try {
        List<T> result = new ArrayList<>(); // a task's result may be null
        result.add(tasks.get(0).call());
        return result;
      } catch (RuntimeException e) {
        throw e;
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }
    List<java.util.concurrent.Future<T>> futures = new ArrayList<>();
    for (java.util.concurrent.Callable<T> task : tasks) {
      futures.add(committers.submit(task));
    }
    List<T> results = new ArrayList<>();
    RuntimeException failure = null;
    for (java.util.concurrent.Future<T> future : futures) {
      try {
        results.add(future.get());
      } catch (java.util.concurrent.ExecutionException e) {
        RuntimeException cause =
            e.getCause() instanceof RuntimeException runtime
                ? runtime
                : new IllegalStateException(e.getCause());
        if (failure == null) {
          failure = cause;
        } else {
          failure.addSuppressed(cause);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(
            "interrupted while committing checkpoint " + checkpointId, e);
      }
    }
    if (failure != null) {
      throw failure;
    }
    return results;
  }

  private static final java.util.Comparator<TableIdentifier> ORDER =
      java.util.Comparator.comparing(TableIdentifier::toString);

  /**
   * The Iceberg table a key's files of this checkpoint go to, or empty when they must not be
   * committed: the table was made again since (a --resnapshot). A table renamed since the files
   * were written (a MySQL RENAME TABLE) is found under its new name by its UUID.
   */
  private java.util.Optional<Target> current(String tableKey, PendingCheckpoint checkpoint) {
    String writtenFor = checkpoint.tableUuids.get(tableKey);
    TableIdentifier identifier = SyncTargets.lakeTable(tableKey);
    Table table;
    try {
      table = catalog.loadTable(identifier);
    } catch (org.apache.iceberg.exceptions.NoSuchTableException missing) {
      java.util.Optional<TableIdentifier> renamed =
          RenamedTables.formerlyCalled(
              catalog, tableKey, java.util.Optional.ofNullable(writtenFor));
      if (renamed.isEmpty()) {
        throw missing;
      }
      identifier = renamed.get();
      table = catalog.loadTable(identifier);
    }
    if (writtenFor != null && !writtenFor.equals(table.uuid().toString())) {
      // The table was dropped and created again (a --resnapshot of it) since these files were
      // written: its new copy holds their rows.
      LOG.info(
          "{}: skipping files of {} written for an earlier table of that name",
          table.name(),
          tableKey);
      return java.util.Optional.empty();
    }
    return java.util.Optional.of(new Target(identifier, table));
  }

  /**
   * Commits to the table; when the binlog reader renamed it meanwhile (a MySQL RENAME TABLE), to
   * the table under its new name. The catalog then found no table of the old name to commit to, so
   * the commit did not land.
   */
  private Target followingRenames(Target target, java.util.function.Consumer<Target> commit) {
    for (int attempt = 1; ; attempt++) {
      try {
        commit.accept(target);
        return target;
      } catch (org.apache.iceberg.exceptions.NoSuchTableException renamed) {
        java.util.Optional<TableIdentifier> now =
            RenamedTables.formerlyCalled(
                catalog, target.identifier().toString(), java.util.Optional.of(target.uuid()));
        if (now.isEmpty() || attempt == 3) {
          throw renamed;
        }
        LOG.info(
            "{}: renamed to {} while committing; committing there", target.identifier(), now.get());
        target = new Target(now.get(), catalog.loadTable(now.get()));
      }
    }
  }

  /** An Iceberg table to commit to, and its identifier now. */
  private record Target(TableIdentifier identifier, Table table, String uuid) {
    /** Reads the UUID now: a table renamed under a failed commit no longer has metadata. */
    Target(TableIdentifier identifier, Table table) {
      this(identifier, table, table.uuid().toString());
    }
  }

  /** Whether this part must still be committed: the table's history does not hold it yet. */
  private boolean due(Table table, CommitMark mark) {
    CommitMark lastCommitted = committed.get(table.uuid().toString());
    if (lastCommitted == null) { // one thread commits a table at a time
      lastCommitted = lastCommit(table);
      committed.put(table.uuid().toString(), lastCommitted);
    }
    if (lastCommitted.compareTo(mark) >= 0) {
      LOG.info(
          "{}: checkpoint {} part {} of sync {} is already committed",
          table.name(),
          mark.checkpoint(),
          mark.part(),
          syncId);
      return false;
    }
    return true;
  }

  /**
   * Records the sync, checkpoint, part and source progress (binlog position, or Kafka offsets) in
   * the commit's summary.
   */
  private void stamp(
      SnapshotUpdate<?> update,
      CommitMark mark,
      PendingCheckpoint checkpoint,
      SourceProgress recorded) {
    String checkpointId = Long.toString(mark.checkpoint());
    update.set(SyncSummary.SYNC_ID, syncId);
    update.set(SyncSummary.CHECKPOINT_ID, checkpointId);
    update.set(SyncSummary.CHECKPOINT_PART, Integer.toString(mark.part()));
    update.set(SyncSummary.FLINK_JOB_ID, syncId);
    update.set(SyncSummary.FLINK_MAX_COMMITTED_CHECKPOINT_ID, checkpointId);
    if (!recorded.isEmpty()) {
      recorded.summary().forEach(update::set);
      if (recorded instanceof BinlogPosition || checkpoint.sourceMillis > 0) {
        update.set(SyncSummary.SOURCE_WATERMARK_MS, Long.toString(checkpoint.sourceMillis));
      }
    }
  }

  /** Empties the table: a TRUNCATE TABLE reached at this part of the checkpoint. */
  private void truncate(
      Target target, CommitMark mark, PendingCheckpoint checkpoint, SourceProgress covered) {
    Table table = target.table();
    if (!due(table, mark)) {
      return;
    }
    DeleteFiles delete = table.newDelete().deleteFromRowFilter(Expressions.alwaysTrue());
    SourceProgress recorded = recorded(table, covered);
    stamp(delete, mark, checkpoint, recorded);
    delete.commit();
    remember(table, recorded);
    committed.put(table.uuid().toString(), mark);
    metrics(target.identifier().toString()).commits.inc();
    LOG.info(
        "{}: emptied by TRUNCATE TABLE at checkpoint {} part {}",
        table.name(),
        mark.checkpoint(),
        mark.part());
  }

  private void commit(
      Target target,
      List<PendingFiles> pending,
      CommitMark mark,
      PendingCheckpoint checkpoint,
      SourceProgress covered) {
    Table table = target.table();
    if (!due(table, mark)) {
      return;
    }
    List<WriteResult> results = new ArrayList<>();
    for (PendingFiles files : pending) {
      results.add(files.toWriteResult(table.specs()));
    }
    long checkpointId = mark.checkpoint();
    RowDelta rowDelta = table.newRowDelta();
    int dataFiles = 0;
    int deleteFiles = 0;
    List<CharSequence> referenced = new ArrayList<>();
    for (WriteResult result : results) {
      for (DataFile file : result.dataFiles()) {
        rowDelta.addRows(file);
        dataFiles++;
      }
      for (DeleteFile file : result.deleteFiles()) {
        rowDelta.addDeletes(file);
        deleteFiles++;
      }
      referenced.addAll(List.of(result.referencedDataFiles()));
    }
    if (dataFiles == 0 && deleteFiles == 0) {
      return;
    }
    if (!referenced.isEmpty()) {
      rowDelta.validateDataFilesExist(referenced);
    }
    SourceProgress recorded = recorded(table, covered);
    stamp(rowDelta, mark, checkpoint, recorded);
    rowDelta.commit();
    remember(table, recorded);
    committed.put(table.uuid().toString(), mark);
    long rows = 0;
    for (WriteResult result : results) {
      for (DataFile file : result.dataFiles()) {
        rows += file.recordCount();
      }
    }
    TableMetrics tableMetrics = metrics(target.identifier().toString());
    tableMetrics.rows.inc(rows);
    tableMetrics.commits.inc();
    LOG.info(
        "{}: committed checkpoint {} part {} ({} data files, {} delete files)",
        table.name(),
        checkpointId,
        mark.part(),
        dataFiles,
        deleteFiles);
  }

  /** Keeps the Kafka offsets a commit recorded as the table's own. */
  private void remember(Table table, SourceProgress recorded) {
    if (recorded instanceof KafkaOffsets offsets) {
      tableOffsets.put(table.uuid().toString(), offsets);
    }
  }

  /** The newest commit of this sync found in the table's current history. */
  private CommitMark lastCommit(Table table) {
    Snapshot current = table.currentSnapshot();
    if (current == null) {
      return CommitMark.NONE;
    }
    for (Snapshot snapshot : SnapshotUtil.ancestorsOf(current.snapshotId(), table::snapshot)) {
      Map<String, String> summary = snapshot.summary();
      // the initial snapshot's commits carry the sync id but no checkpoint
      if (syncId.equals(summary.get(SyncSummary.SYNC_ID))
          && summary.containsKey(SyncSummary.CHECKPOINT_ID)) {
        return new CommitMark(
            Long.parseLong(summary.get(SyncSummary.CHECKPOINT_ID)),
            Integer.parseInt(summary.getOrDefault(SyncSummary.CHECKPOINT_PART, "0")));
      }
    }
    return CommitMark.NONE;
  }

  @Override
  public void close() throws Exception {
    if (committers != null) {
      committers.shutdownNow();
    }
    try {
      if (catalog instanceof Closeable closeable) {
        closeable.close();
      }
    } finally {
      super.close();
    }
  }
}

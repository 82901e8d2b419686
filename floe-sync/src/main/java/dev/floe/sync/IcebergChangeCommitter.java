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

  IcebergChangeCommitter(CatalogLoader catalogLoader, List<String> knownTables, String syncId) {
    this.catalogLoader = requireNonNull(catalogLoader, "catalogLoader is null");
    this.knownTables = List.copyOf(requireNonNull(knownTables, "knownTables is null"));
    this.initialSyncId = requireNonNull(syncId, "syncId is null");
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
    if (context.isRestored()) {
      for (byte[] bytes : state.get()) {
        CommitterState restored =
            CommitterStateSerializer.isJavaSerialized(bytes)
                ? LegacyCommitterState.read(bytes, this::specsOfTable)
                : CommitterStateSerializer.read(bytes);
        syncId = restored.syncId();
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
    checkpoint.position = checkpoint.position.max(committable.binlogPosition());
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
    state.update(List.of(CommitterStateSerializer.write(new CommitterState(syncId, checkpoints))));
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
      java.util.Set<String> tables = new java.util.TreeSet<>(checkpoint.results.keySet());
      tables.addAll(checkpoint.truncations.keySet());
      tables.forEach(this::metrics); // registered on the task's thread
      if (tables.size() == 1) {
        commitTable(tables.iterator().next(), entry.getKey(), checkpoint);
      } else {
        // Tables are independent: a checkpoint's commits run side by side, each table's parts
        // in order on one thread. All are awaited; the first failure fails the job, which
        // restores and commits what is missing.
        List<java.util.concurrent.Future<?>> commits = new ArrayList<>();
        for (String table : tables) {
          commits.add(committers.submit(() -> commitTable(table, entry.getKey(), checkpoint)));
        }
        RuntimeException failure = null;
        for (java.util.concurrent.Future<?> commit : commits) {
          try {
            commit.get();
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
                "interrupted while committing checkpoint " + entry.getKey(), e);
          }
        }
        if (failure != null) {
          throw failure;
        }
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

  /** Commits one table's parts of a checkpoint, in order. */
  private void commitTable(String table, long checkpointId, PendingCheckpoint checkpoint) {
    TreeMap<Integer, List<PendingFiles>> files =
        checkpoint.results.getOrDefault(table, new TreeMap<>());
    TreeSet<Integer> truncated = checkpoint.truncations.getOrDefault(table, new TreeSet<>());
    TreeSet<Integer> versions = new TreeSet<>(files.keySet());
    versions.addAll(truncated);
    int part = 0;
    for (int version : versions) {
      // a TRUNCATE empties the table after the rows before it and before the rows after it
      if (truncated.contains(version)) {
        truncate(table, new CommitMark(checkpointId, part++), checkpoint);
      }
      if (files.containsKey(version)) {
        commit(table, files.get(version), new CommitMark(checkpointId, part++), checkpoint);
      }
    }
  }

  /**
   * The table a part goes to, or empty when it must not be committed: the table was made again
   * since (a --resnapshot), or its history already holds the part.
   */
  private java.util.Optional<Table> target(
      String tableKey, CommitMark mark, PendingCheckpoint checkpoint) {
    Table table = catalog.loadTable(SyncTargets.lakeTable(tableKey));
    String writtenFor = checkpoint.tableUuids.get(tableKey);
    if (writtenFor != null && !writtenFor.equals(table.uuid().toString())) {
      // The table was dropped and created again (a --resnapshot of it) since these files were
      // written: its new copy holds their rows.
      LOG.info(
          "{}: skipping checkpoint {} written for an earlier table of that name",
          table.name(),
          mark.checkpoint());
      return java.util.Optional.empty();
    }
    CommitMark lastCommitted = committed.get(tableKey);
    if (lastCommitted == null) { // one thread commits a table at a time
      lastCommitted = lastCommit(table);
      committed.put(tableKey, lastCommitted);
    }
    if (lastCommitted.compareTo(mark) >= 0) {
      LOG.info(
          "{}: checkpoint {} part {} of sync {} is already committed",
          table.name(),
          mark.checkpoint(),
          mark.part(),
          syncId);
      return java.util.Optional.empty();
    }
    return java.util.Optional.of(table);
  }

  /** Records the sync, checkpoint, part and binlog progress in the commit's summary. */
  private void stamp(SnapshotUpdate<?> update, CommitMark mark, PendingCheckpoint checkpoint) {
    String checkpointId = Long.toString(mark.checkpoint());
    update.set(SyncSummary.SYNC_ID, syncId);
    update.set(SyncSummary.CHECKPOINT_ID, checkpointId);
    update.set(SyncSummary.CHECKPOINT_PART, Integer.toString(mark.part()));
    update.set(SyncSummary.FLINK_JOB_ID, syncId);
    update.set(SyncSummary.FLINK_MAX_COMMITTED_CHECKPOINT_ID, checkpointId);
    if (!checkpoint.position.file().isEmpty()) {
      update.set(SyncSummary.BINLOG_FILE, checkpoint.position.file());
      update.set(SyncSummary.BINLOG_POSITION, Long.toString(checkpoint.position.position()));
      update.set(SyncSummary.SOURCE_WATERMARK_MS, Long.toString(checkpoint.sourceMillis));
    }
  }

  /** Empties the table: a TRUNCATE TABLE reached at this part of the checkpoint. */
  private void truncate(String tableKey, CommitMark mark, PendingCheckpoint checkpoint) {
    java.util.Optional<Table> found = target(tableKey, mark, checkpoint);
    if (found.isEmpty()) {
      return;
    }
    Table table = found.get();
    DeleteFiles delete = table.newDelete().deleteFromRowFilter(Expressions.alwaysTrue());
    stamp(delete, mark, checkpoint);
    delete.commit();
    committed.put(tableKey, mark);
    metrics(tableKey).commits.inc();
    LOG.info(
        "{}: emptied by TRUNCATE TABLE at checkpoint {} part {}",
        table.name(),
        mark.checkpoint(),
        mark.part());
  }

  private void commit(
      String tableKey, List<PendingFiles> pending, CommitMark mark, PendingCheckpoint checkpoint) {
    java.util.Optional<Table> found = target(tableKey, mark, checkpoint);
    if (found.isEmpty()) {
      return;
    }
    Table table = found.get();
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
    stamp(rowDelta, mark, checkpoint);
    rowDelta.commit();
    committed.put(tableKey, mark);
    long rows = 0;
    for (WriteResult result : results) {
      for (DataFile file : result.dataFiles()) {
        rows += file.recordCount();
      }
    }
    TableMetrics tableMetrics = metrics(tableKey);
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

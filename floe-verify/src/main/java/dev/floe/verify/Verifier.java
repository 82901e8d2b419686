package dev.floe.verify;

import static java.util.Objects.requireNonNull;

import dev.floe.core.error.ErrorCategory;
import dev.floe.core.error.FloeException;
import dev.floe.core.verify.Bisection;
import dev.floe.core.verify.ComparedRow;
import dev.floe.core.verify.DifferenceCollector;
import dev.floe.core.verify.KeyRange;
import dev.floe.core.verify.RowDifferences;
import dev.floe.core.verify.RowKey;
import dev.floe.core.verify.RowText;
import dev.floe.core.verify.Slice;
import dev.floe.core.verify.SliceDigest;
import dev.floe.core.verify.SnapshotChoice;
import dev.floe.core.verify.TableShape;
import dev.floe.core.verify.TimeBounds;
import dev.floe.core.verify.VerifyReport;
import dev.floe.core.verify.VerifyWindow;
import dev.floe.mysql.MySqlConnections;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.util.SnapshotUtil;

/**
 * Compares a MySQL table with a lake table (see docs/verify.md): walks the MySQL key index into
 * slices, compares per-slice digests computed inside MySQL with the same digests of the lake rows,
 * bisects mismatching slices down to rows, and reports the differences. Blocks until done.
 */
public final class Verifier {

  /** A digest query costs about this many times the walk query over the same keys. */
  private static final int WALK_TO_DIGEST = 3;

  /** The MySQL rows of the mismatching slices whose lake index is held at once (16 B a row). */
  private static final long INDEX_ROWS = 4_000_000;

  /** At most this many parts per MySQL query when a mismatching range is split at lake keys. */
  private static final int MAXIMUM_PARTS = 1_024;

  private final MySqlConnections connections;
  private final VerifyOptions options;

  public Verifier(MySqlConnections connections, VerifyOptions options) {
    this.connections = requireNonNull(connections, "connections is null");
    this.options = requireNonNull(options, "options is null");
  }

  /**
   * Runs one verification.
   *
   * @throws FloeException BAD_INPUT (unknown table, no primary key, bad cutoff or window, lake
   *     table missing or with other columns) or SOURCE_UNAVAILABLE (MySQL cannot be read)
   */
  public VerifyResult verify(VerifyRequest request, Catalog catalog, VerifyProgress progress) {
    long started = System.nanoTime();
    try (Connection control = connections.open(request.source())) {
      SourceClock clock = MySqlTableReader.clock(control);
      VerifyWindow window =
          VerifyWindow.parse(request.cutoffText(), request.windowText(), clock.today());
      TableShape shape =
          MySqlTableReader.read(
              control,
              request.database(),
              request.table(),
              request.timeColumn(),
              request.keyColumns());
      List<StringOrder> stringOrders = MySqlTableReader.stringOrders(control, shape);
      Table lakeTable = loadLakeTable(catalog, request);
      TimeBounds bounds = TimeBounds.of(window, shape.timeColumn().kind(), clock.offset());
      SnapshotChoice snapshot =
          SnapshotChoice.choose(
              history(lakeTable), window.cutoff().toInstant(clock.offset()).toEpochMilli());
      SourceLoadGuard guard =
          new SourceLoadGuard(
              SourceLoadGuard.threadsRunning(control),
              options.maximumThreadsRunning(),
              options.loadCheckEvery(),
              progress::paused);
      try (MySqlConnectionPool pool =
          new MySqlConnectionPool(connections, request.source(), options.maximumQueries())) {
        MySqlSliceReader source = new MySqlSliceReader(pool, guard, shape, bounds);
        IcebergSliceReader lake =
            new IcebergSliceReader(lakeTable, snapshot.snapshotId(), shape, bounds, stringOrders);
        Run run = new Run(source, lake, progress, started);
        run.execute();
        VerifyReport report =
            VerifyReport.of(
                shape,
                request.target().toString(),
                window,
                snapshot,
                run.rows.get(),
                run.slicesDone.get(),
                run.differences,
                Duration.ofNanos(System.nanoTime() - started));
        Map<String, Long> work = new TreeMap<>(source.queryNanos());
        work.putAll(lake.work());
        return new VerifyResult(
            report, source.bytesRead(), guard.pauses(), run.slicesNarrowed.get(), run.phases, work);
      }
    } catch (SQLException e) {
      throw MySqlConnections.explain(request.source(), e).toException(e);
    }
  }

  private static Table loadLakeTable(Catalog catalog, VerifyRequest request) {
    try {
      return catalog.loadTable(request.target());
    } catch (NoSuchTableException e) {
      throw FloeException.badInput(
          "Lake table "
              + request.target()
              + " does not exist in catalog '"
              + catalog.name()
              + "'. Name it with --target NAMESPACE.TABLE.");
    }
  }

  private static List<SnapshotChoice.Candidate> history(Table table) {
    Snapshot current = table.currentSnapshot();
    if (current == null) {
      return List.of();
    }
    List<SnapshotChoice.Candidate> history = new ArrayList<>();
    for (Snapshot snapshot : SnapshotUtil.ancestorsOf(current.snapshotId(), table::snapshot)) {
      history.add(
          0,
          new SnapshotChoice.Candidate(
              snapshot.snapshotId(), snapshot.summary() == null ? Map.of() : snapshot.summary()));
    }
    return history;
  }

  /** The state of one run: the key walk, the digests, the counters, the collected differences. */
  private final class Run {
    private final MySqlSliceReader source;
    private final IcebergSliceReader lake;
    private final VerifyProgress progress;
    private final long started;
    private final DifferenceCollector differences = new DifferenceCollector(options.keyLimit());
    private final AtomicLong slicesDone = new AtomicLong();
    private final AtomicLong rows = new AtomicLong();
    private final AtomicLong slicesNarrowed = new AtomicLong();
    private final AtomicLong slicesResolved = new AtomicLong();
    private final AtomicBoolean failed = new AtomicBoolean();
    private final Bisection bisection = options.bisection();
    private final RowText rowText;
    private final List<Slice> slices = new ArrayList<>();
    private final Map<Integer, SliceDigest> sourceDigests = new ConcurrentHashMap<>();
    private volatile boolean walkDone;
    private final Map<String, Duration> phases = new ConcurrentHashMap<>();

    /** nanoseconds per key of the last digest query, 0 before the first */
    private volatile double digestNanosPerKey;

    Run(MySqlSliceReader source, IcebergSliceReader lake, VerifyProgress progress, long started) {
      this.source = source;
      this.rowText = new RowText(source.shape());
      this.lake = lake;
      this.progress = progress;
      this.started = started;
    }

    /**
     * Walks the key index (this thread) while workers digest the walked slices in MySQL; once the
     * walk is done, reads the lake once for the digests of all slices (while MySQL digests go on),
     * then bisects the slices whose digests differ.
     */
    void execute() {
      ExecutorService lakeReader =
          Executors.newSingleThreadExecutor(
              runnable -> {
                Thread thread = new Thread(runnable, "floe-verify-lake-scan");
                thread.setDaemon(true);
                return thread;
              });
      ExecutorService workers =
          Executors.newFixedThreadPool(
              options.threads(),
              runnable -> {
                Thread thread = new Thread(runnable, "floe-verify");
                thread.setDaemon(true);
                return thread;
              });
      try {
        List<Future<?>> digests = new ArrayList<>();
        WalkedBoundaries walked =
            new WalkedBoundaries(lake.keyOrder(), source.shape().qualifiedName());
        // the lake is read once, file by file as soon as the walk has passed the file's keys
        CompletableFuture<List<SliceDigest>> lakeRead =
            CompletableFuture.supplyAsync(
                () -> {
                  List<SliceDigest> read = lake.digests(walked, options.threads());
                  phaseDone("lake");
                  return read;
                },
                lakeReader);
        try {
          walk(workers, digests, walked);
        } catch (RuntimeException e) {
          walked.fail();
          throw e;
        }
        walked.finish();
        walkDone = true;
        phaseDone("walk");
        List<SliceDigest> lakeDigests = result(lakeRead);
        waitFor(digests);
        phaseDone("source");
        List<Integer> mismatching = new ArrayList<>();
        for (int i = 0; i < slices.size(); i++) {
          if (!sourceDigests.get(i).equals(lakeDigests.get(i))) {
            mismatching.add(i);
          }
        }
        slicesNarrowed.addAndGet(mismatching.size());
        if (lake.hasLongKey()) {
          resolveInParts(mismatching, workers, lakeReader);
        } else {
          List<Future<?>> resolutions = new ArrayList<>();
          for (int i : mismatching) {
            Slice slice = slices.get(i);
            resolutions.add(
                workers.submit(
                    () -> {
                      resolve(slice);
                      narrowed(mismatching.size());
                    }));
          }
          waitFor(resolutions);
        }
        phaseDone("bisect");
      } finally {
        workers.shutdownNow();
        lakeReader.shutdownNow();
      }
    }

    private void narrowed(long mismatching) {
      progress.sliceNarrowed(
          slicesResolved.incrementAndGet(),
          mismatching,
          Duration.ofNanos(System.nanoTime() - started));
    }

    private void phaseDone(String phase) {
      phases.put(phase, Duration.ofNanos(System.nanoTime() - started));
    }

    /** Walks the slices from the lowest key and hands each to a worker as soon as it is known. */
    private void walk(ExecutorService workers, List<Future<?>> digests, WalkedBoundaries walked) {
      Optional<RowKey> lower = Optional.empty();
      int size = options.sliceSizer().initial();
      while (!failed.get()) {
        KeyRange rest = new KeyRange(lower, Optional.empty());
        long walkStarted = System.nanoTime();
        Optional<RowKey> upper = source.keyAt(rest, size);
        long walkNanos = System.nanoTime() - walkStarted;
        Slice slice = new Slice(upper.isEmpty() ? rest : new KeyRange(lower, upper), size);
        int index = slices.size();
        slices.add(slice);
        digests.add(workers.submit(() -> digest(index, slice)));
        if (upper.isEmpty()) {
          return;
        }
        walked.add(upper.get());
        lower = upper;
        // a digest query reads the rows the walk query skipped and hashes them: estimate its time
        // from the walk, or from the last digest when one is known
        double perKey = digestNanosPerKey;
        long estimate =
            Math.max(WALK_TO_DIGEST * walkNanos, perKey == 0 ? 0 : Math.round(perKey * size));
        size = options.sliceSizer().next(size, Duration.ofNanos(estimate));
      }
    }

    private void digest(int index, Slice slice) {
      try {
        long queryStarted = System.nanoTime();
        SliceDigest digest = source.digest(slice.range());
        long took = System.nanoTime() - queryStarted;
        if (slice.keys() > 0) {
          digestNanosPerKey = (double) took / slice.keys();
        }
        sourceDigests.put(index, digest);
        rows.addAndGet(digest.rows());
        long done = slicesDone.incrementAndGet();
        progress.sliceDone(
            done,
            walkDone ? slices.size() : done,
            walkDone,
            rows.get(),
            Duration.ofNanos(System.nanoTime() - started));
      } catch (RuntimeException e) {
        failed.set(true);
        throw e;
      }
    }

    private void waitFor(List<Future<?>> futures) {
      futures.forEach(Run::result);
    }

    /** The future's value; its failure rethrown as it was (a RuntimeException) or as INTERNAL. */
    private static <T> T result(Future<T> future) {
      try {
        return future.get();
      } catch (ExecutionException e) {
        Throwable cause = e.getCause();
        if (cause instanceof RuntimeException runtime) {
          throw runtime;
        }
        throw new FloeException(ErrorCategory.INTERNAL, "verify failed: " + cause, cause);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new FloeException(ErrorCategory.INTERNAL, "interrupted", e);
      }
    }

    /**
     * Narrows a mismatching slice down to rows: the lake side of the slice is read once into a
     * sorted (key, hash) index, sub-ranges are digested from it, and the lake rows of all leaf
     * ranges are read in one more pass.
     */
    private void resolve(Slice slice) {
      LakeKeyIndex index = lake.index(slice.range());
      List<KeyRange> leaves = new ArrayList<>();
      narrow(slice, index::digest, leaves);
      if (leaves.isEmpty()) {
        return;
      }
      List<Map<RowKey, ComparedRow>> lakeRows = lake.rows(slice.range(), leaves);
      for (int i = 0; i < leaves.size(); i++) {
        compareRows(source.rows(leaves.get(i)), lakeRows.get(i));
      }
    }

    /**
     * Narrows mismatching slices of a table keyed by one integer column down to rows, in batches of
     * consecutive slices holding at most {@link #INDEX_ROWS} MySQL rows: one lake read builds the
     * (key, hash) index of every slice of a batch (the next batch's while this one's parts are
     * digested: at most two batches' indexes are held); each slice is then split into parts at its
     * lake keys and all parts are digested by one MySQL query, recursively for the parts that
     * differ; the rows of the remaining small parts are compared by their hashes, and only the rows
     * whose content differs are read again from the lake, to name the columns.
     */
    private void resolveInParts(
        List<Integer> mismatching, ExecutorService workers, ExecutorService lakeReader) {
      List<List<Integer>> batches = new ArrayList<>();
      long batchRows = 0;
      for (int i : mismatching) {
        long rows = sourceDigests.get(i).rows();
        if (batches.isEmpty() || batchRows + rows > INDEX_ROWS) {
          batches.add(new ArrayList<>());
          batchRows = 0;
        }
        batches.get(batches.size() - 1).add(i);
        batchRows += rows;
      }
      // the next batch's lake index is read while MySQL digests the parts of this one
      Future<List<LongKeyIndex>> next = lakeReader.submit(() -> indexes(batches.get(0)));
      for (int b = 0; b < batches.size(); b++) {
        List<Integer> batch = batches.get(b);
        List<LongKeyIndex> indexes = result(next);
        if (b + 1 < batches.size()) {
          List<Integer> following = batches.get(b + 1);
          next = lakeReader.submit(() -> indexes(following));
        }
        List<Future<PartialDifferences>> resolutions = new ArrayList<>();
        for (int j = 0; j < batch.size(); j++) {
          Slice slice = slices.get(batch.get(j));
          LongKeyIndex index = indexes.get(j);
          long sourceRows = sourceDigests.get(batch.get(j)).rows();
          resolutions.add(
              workers.submit(
                  () -> {
                    PartialDifferences found = resolveInParts(slice, index, sourceRows);
                    narrowed(mismatching.size());
                    return found;
                  }));
        }
        List<PartialDifferences> found = new ArrayList<>();
        for (Future<PartialDifferences> resolution : resolutions) {
          found.add(result(resolution));
        }
        // the rows whose content differs, read from the lake once for the whole batch
        Map<RowKey, ComparedRow> changedSource = new HashMap<>();
        found.forEach(partial -> changedSource.putAll(partial.changed()));
        Map<RowKey, ComparedRow> changedLake = lake.rowsWithKeys(changedSource.keySet());
        RowDifferences content = RowDifferences.compare(source.shape(), changedSource, changedLake);
        List<RowKey> missing = new ArrayList<>(content.missingInLake());
        List<RowKey> extra = new ArrayList<>(content.extraInLake());
        found.forEach(
            partial -> {
              missing.addAll(partial.missingInLake());
              extra.addAll(partial.extraInLake());
            });
        record(new RowDifferences(missing, extra, content.different()));
      }
    }

    private List<LongKeyIndex> indexes(List<Integer> batch) {
      return lake.longIndexes(
          batch.stream().map(i -> slices.get(i).range()).toList(), options.threads());
    }

    /**
     * The differences of one slice by row hashes: keys missing from the lake, keys extra in the
     * lake, and the MySQL rows of the keys whose hashes differ (their lake rows are read later).
     */
    private record PartialDifferences(
        List<RowKey> missingInLake, List<RowKey> extraInLake, Map<RowKey, ComparedRow> changed) {}

    private PartialDifferences resolveInParts(Slice slice, LongKeyIndex index, long sourceRows) {
      List<KeyRange> leaves = new ArrayList<>();
      narrowInParts(slice.range(), index, sourceRows, leaves);
      List<RowKey> missing = new ArrayList<>();
      List<RowKey> extra = new ArrayList<>();
      Map<RowKey, ComparedRow> changed = new HashMap<>();
      for (KeyRange leaf : leaves) {
        Map<RowKey, ComparedRow> rows = source.rows(leaf);
        Set<Long> inSource = new HashSet<>();
        for (Map.Entry<RowKey, ComparedRow> entry : rows.entrySet()) {
          RowKey key = entry.getKey();
          Optional<Long> value = LongKeyIndex.longKey(key);
          int position = value.map(index::firstAtOrAfter).orElse(index.size());
          if (position == index.size() || index.key(position) != value.get()) {
            missing.add(key);
            continue;
          }
          inSource.add(value.get());
          ComparedRow row = entry.getValue();
          long hash =
              RowText.hash(
                  row.full()
                      ? rowText.rowText(row.texts(), true)
                      : rowText.keyRowText(key.values()));
          if (hash != index.hash(position)) {
            changed.put(key, row);
          }
        }
        for (int i = index.from(leaf); i < index.to(leaf); i++) {
          if (!inSource.contains(index.key(i))) {
            extra.add(RowKey.of(String.valueOf(index.key(i))));
          }
        }
      }
      return new PartialDifferences(missing, extra, changed);
    }

    /**
     * Adds the leaf ranges of a mismatching range that need a row comparison: a range of more lake
     * keys than the row limit is split at its lake keys into at most {@link #MAXIMUM_PARTS} parts
     * of equal lake key counts, digested by one MySQL query; a range with few lake keys but many
     * MySQL keys (rows the lake lost) is split by walking MySQL's keys ({@link #narrow}).
     */
    private void narrowInParts(
        KeyRange range, LongKeyIndex index, long sourceKeys, List<KeyRange> leaves) {
      int from = index.from(range);
      int lakeKeys = index.to(range) - from;
      int rowLimit = bisection.rowLimit();
      if (lakeKeys <= rowLimit && sourceKeys <= rowLimit) {
        leaves.add(range);
        return;
      }
      if (lakeKeys <= rowLimit) {
        narrow(new Slice(range, sourceKeys), index::digest, leaves);
        return;
      }
      int parts = (int) Math.min(MAXIMUM_PARTS, (lakeKeys + (long) rowLimit - 1) / rowLimit);
      long[] boundaries = new long[parts - 1];
      int count = 0;
      for (int k = 1; k < parts; k++) {
        long key = index.key(from + (int) ((long) k * lakeKeys / parts));
        // equal keys (a lake holding a key twice) make one boundary
        if (key > index.key(from) && (count == 0 || key > boundaries[count - 1])) {
          boundaries[count++] = key;
        }
      }
      if (count == 0) {
        leaves.add(range);
        return;
      }
      boundaries = Arrays.copyOf(boundaries, count);
      SliceDigest[] sourceParts = source.partDigests(range, boundaries);
      for (int p = 0; p <= count; p++) {
        KeyRange part =
            new KeyRange(
                p == 0 ? range.lower() : Optional.of(RowKey.of(String.valueOf(boundaries[p - 1]))),
                p == count ? range.upper() : Optional.of(RowKey.of(String.valueOf(boundaries[p]))));
        if (!sourceParts[p].equals(index.digest(part))) {
          narrowInParts(part, index, sourceParts[p].rows(), leaves);
        }
      }
    }

    /** Adds the key-ordered leaf ranges of a mismatching slice that need a row comparison. */
    private void narrow(
        Slice slice, Function<KeyRange, SliceDigest> lakeDigest, List<KeyRange> leaves) {
      if (bisection.compareRows(slice)) {
        leaves.add(slice.range());
        return;
      }
      // walk the parts' boundaries inside the slice, then digest each part on both sides
      long partKeys = bisection.partKeys(slice);
      List<Slice> parts = new ArrayList<>();
      Optional<RowKey> lower = slice.range().lower();
      while (true) {
        KeyRange rest = new KeyRange(lower, slice.range().upper());
        Optional<RowKey> upper = source.keyAt(rest, partKeys);
        if (upper.isEmpty()) {
          parts.add(new Slice(rest, partKeys));
          break;
        }
        parts.add(new Slice(new KeyRange(lower, upper), partKeys));
        lower = upper;
      }
      if (parts.size() == 1 && partKeys >= slice.keys()) {
        // fewer MySQL keys than estimated: the range holds at most partKeys keys
        leaves.add(slice.range());
        return;
      }
      for (Slice part : parts) {
        if (!source.digest(part.range()).equals(lakeDigest.apply(part.range()))) {
          narrow(part, lakeDigest, leaves);
        }
      }
    }

    private void compareRows(
        Map<RowKey, ComparedRow> sourceRows, Map<RowKey, ComparedRow> lakeRows) {
      record(RowDifferences.compare(source.shape(), sourceRows, lakeRows));
    }

    /**
     * Adds the differences found, after re-checking in MySQL (without the time filter) the keys
     * extra in the lake: those MySQL still has changed after the cutoff.
     */
    private void record(RowDifferences found) {
      if (found.isEmpty()) {
        return;
      }
      List<RowKey> extra = found.extraInLake();
      if (!extra.isEmpty()) {
        Set<RowKey> stillInSource = source.existing(extra);
        differences.addChangedAfterCutoff(stillInSource.size());
        extra = extra.stream().filter(key -> !stillInSource.contains(key)).toList();
      }
      differences.add(new RowDifferences(found.missingInLake(), extra, found.different()));
    }
  }
}

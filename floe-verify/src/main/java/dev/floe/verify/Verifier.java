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
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
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
          MySqlTableReader.read(control, request.database(), request.table(), request.timeColumn());
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
            new IcebergSliceReader(lakeTable, snapshot.snapshotId(), shape, bounds);
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
        return new VerifyResult(report, source.bytesRead(), guard.pauses());
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

  /** The state of one run: the key walk, the counters, the collected differences. */
  private final class Run {
    private final MySqlSliceReader source;
    private final IcebergSliceReader lake;
    private final VerifyProgress progress;
    private final long started;
    private final DifferenceCollector differences = new DifferenceCollector(options.keyLimit());
    private final AtomicLong slicesDone = new AtomicLong();
    private final AtomicLong rows = new AtomicLong();
    private final AtomicBoolean failed = new AtomicBoolean();
    private final Bisection bisection = options.bisection();

    // the key walk: guarded by "this"
    private Optional<RowKey> nextLower = Optional.empty();
    private boolean walkDone;
    private long slicesFound;
    private volatile int sliceSize;

    Run(MySqlSliceReader source, IcebergSliceReader lake, VerifyProgress progress, long started) {
      this.source = source;
      this.lake = lake;
      this.progress = progress;
      this.started = started;
      this.sliceSize = options.sliceSizer().initial();
    }

    void execute() {
      ExecutorService workers =
          Executors.newFixedThreadPool(
              options.threads(),
              runnable -> {
                Thread thread = new Thread(runnable, "floe-verify");
                thread.setDaemon(true);
                return thread;
              });
      try {
        List<Future<?>> futures = new ArrayList<>();
        for (int i = 0; i < options.threads(); i++) {
          futures.add(workers.submit(this::work));
        }
        for (Future<?> future : futures) {
          try {
            future.get();
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
      } finally {
        workers.shutdownNow();
      }
    }

    private void work() {
      try {
        while (!failed.get()) {
          Optional<Slice> slice = nextSlice();
          if (slice.isEmpty()) {
            return;
          }
          compare(slice.get());
        }
      } catch (RuntimeException e) {
        failed.set(true);
        throw e;
      }
    }

    /** The next slice by walking the key index from where the last one ended. */
    private synchronized Optional<Slice> nextSlice() {
      if (walkDone) {
        return Optional.empty();
      }
      int size = sliceSize;
      KeyRange rest = new KeyRange(nextLower, Optional.empty());
      Optional<RowKey> upper = source.keyAt(rest, size);
      slicesFound++;
      if (upper.isEmpty()) {
        walkDone = true;
        return Optional.of(new Slice(rest, size));
      }
      Slice slice = new Slice(new KeyRange(nextLower, upper), size);
      nextLower = upper;
      return Optional.of(slice);
    }

    private void compare(Slice slice) {
      long queryStarted = System.nanoTime();
      SliceDigest sourceDigest = source.digest(slice.range());
      Duration took = Duration.ofNanos(System.nanoTime() - queryStarted);
      sliceSize = options.sliceSizer().next((int) Math.min(Integer.MAX_VALUE, slice.keys()), took);
      SliceDigest lakeDigest = lake.digest(slice.range());
      if (!sourceDigest.equals(lakeDigest)) {
        resolve(slice);
      }
      rows.addAndGet(sourceDigest.rows());
      long done = slicesDone.incrementAndGet();
      long found;
      boolean finished;
      synchronized (this) {
        found = slicesFound;
        finished = walkDone;
      }
      progress.sliceDone(
          done, found, finished, rows.get(), Duration.ofNanos(System.nanoTime() - started));
    }

    /**
     * Narrows a mismatching slice down to rows: the lake side of the slice is read once into a
     * sorted (key, hash) index, sub-ranges are digested from it, and the lake rows of all leaf
     * ranges are read in one more pass.
     */
    private void resolve(Slice slice) {
      LakeKeyIndex index = lake.index(slice.range());
      List<KeyRange> leaves = new ArrayList<>();
      narrow(slice, index, leaves);
      if (leaves.isEmpty()) {
        return;
      }
      List<Map<RowKey, ComparedRow>> lakeRows = lake.rows(slice.range(), leaves);
      for (int i = 0; i < leaves.size(); i++) {
        compareRows(source.rows(leaves.get(i)), lakeRows.get(i));
      }
    }

    /** Adds the key-ordered leaf ranges of a mismatching slice that need a row comparison. */
    private void narrow(Slice slice, LakeKeyIndex index, List<KeyRange> leaves) {
      if (bisection.compareRows(slice)) {
        leaves.add(slice.range());
        return;
      }
      long offset = bisection.splitOffset(slice);
      Optional<RowKey> middle = source.keyAt(slice.range(), offset);
      if (middle.isEmpty()) {
        // fewer MySQL keys than estimated (the last slice): the range holds at most offset keys
        narrow(new Slice(slice.range(), offset), index, leaves);
        return;
      }
      List<Slice> halves =
          List.of(
              new Slice(new KeyRange(slice.range().lower(), middle), offset),
              new Slice(new KeyRange(middle, slice.range().upper()), slice.keys() - offset));
      for (Slice half : halves) {
        if (!source.digest(half.range()).equals(index.digest(half.range()))) {
          narrow(half, index, leaves);
        }
      }
    }

    private void compareRows(
        Map<RowKey, ComparedRow> sourceRows, Map<RowKey, ComparedRow> lakeRows) {
      RowDifferences found = RowDifferences.compare(source.shape(), sourceRows, lakeRows);
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

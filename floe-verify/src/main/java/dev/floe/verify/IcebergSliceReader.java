package dev.floe.verify;

import static java.util.Objects.requireNonNull;

import dev.floe.core.error.FloeException;
import dev.floe.core.sync.RouteSchema;
import dev.floe.core.verify.ColumnKind;
import dev.floe.core.verify.ComparedRow;
import dev.floe.core.verify.KeyRange;
import dev.floe.core.verify.RowKey;
import dev.floe.core.verify.RowText;
import dev.floe.core.verify.SliceDigest;
import dev.floe.core.verify.TableShape;
import dev.floe.core.verify.TimeBounds;
import dev.floe.core.verify.VerifyColumn;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.LongAdder;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Files;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.avro.Avro;
import org.apache.iceberg.data.GenericDeleteFilter;
import org.apache.iceberg.data.IdentityPartitionConverters;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.avro.DataReader;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.expressions.Evaluator;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.PartitionUtil;

/**
 * Reads the lake side at one snapshot (deletes applied) and normalizes the rows exactly as MySQL
 * does: the digests of every slice in one read of the table ({@link #digests}), and the rows of one
 * key range for bisection. Keys are placed in ranges with MySQL's key order ({@link KeyOrder}).
 * Thread-safe.
 */
final class IcebergSliceReader {

  private final Table table;
  private final Optional<Long> snapshotId;
  private final TableShape shape;
  private final RowText rowText;
  private final TimeBounds bounds;
  private final KeyOrder keyOrder;
  private final List<String> lakeNames;
  private final List<Types.NestedField> fields;
  private final List<Types.NestedField> keyFields;
  private final int[] keyPositions;
  private final int timePosition;
  private final LocalDateTime windowStart;
  private final LocalDateTime cutoff;
  private final Optional<ColumnarDigest> columnar;

  /**
   * For a route's table ({@link RouteSchema}): its rows of the verified MySQL table, by {@code
   * _source_db} and {@code _source_table}; empty for any other table.
   */
  private final Optional<Expression> sourceRows;

  private final LongAdder readNanos = new LongAdder();
  private final LongAdder walkWaitNanos = new LongAdder();
  private final LongAdder fastFiles = new LongAdder();
  private final LongAdder genericFiles = new LongAdder();

  IcebergSliceReader(
      Table table,
      Optional<Long> snapshotId,
      TableShape shape,
      TimeBounds bounds,
      List<StringOrder> stringOrders) {
    this.table = requireNonNull(table, "table is null");
    this.snapshotId = requireNonNull(snapshotId, "snapshotId is null");
    this.shape = requireNonNull(shape, "shape is null");
    this.rowText = new RowText(shape);
    this.bounds = requireNonNull(bounds, "bounds is null");
    Schema schema = table.schema();
    List<String> missing = new ArrayList<>();
    List<Types.NestedField> found = new ArrayList<>();
    for (VerifyColumn column : shape.columns()) {
      Types.NestedField field = schema.caseInsensitiveFindField(column.name());
      if (field == null) {
        missing.add(column.name());
      } else {
        found.add(field);
      }
    }
    if (!missing.isEmpty()) {
      throw FloeException.badInput(
          "Lake table "
              + table.name()
              + " lacks columns of "
              + shape.qualifiedName()
              + ": "
              + String.join(", ", missing)
              + ". verify compares tables with the same columns; check --target.");
    }
    this.fields = List.copyOf(found);
    this.lakeNames = fields.stream().map(Types.NestedField::name).toList();
    this.keyPositions = shape.keyColumns().stream().mapToInt(shape::indexOf).toArray();
    this.keyFields = Arrays.stream(keyPositions).mapToObj(fields::get).toList();
    this.timePosition = shape.indexOf(shape.timeColumn());
    this.keyOrder = KeyOrder.of(shape, keyFields, stringOrders);
    this.windowStart = LocalDateTime.parse(bounds.windowStart().replace(' ', 'T'));
    this.cutoff = LocalDateTime.parse(bounds.cutoff().replace(' ', 'T'));
    this.sourceRows =
        RouteSchema.isRouted(schema)
            ? Optional.of(
                Expressions.and(
                    Expressions.equal(RouteSchema.DATABASE_COLUMN, shape.database()),
                    Expressions.equal(RouteSchema.TABLE_COLUMN, shape.table())))
            : Optional.empty();
    // the columnar read has no row filter: a route's table is read by Iceberg's generic reader
    this.columnar =
        sourceRows.isPresent()
            ? Optional.empty()
            : ColumnarDigest.of(
                shape.columns(),
                fields,
                keyPositions,
                timePosition,
                windowStart,
                cutoff,
                this::input);
  }

  /** The projection plus, for a route's table, the columns naming each row's source table. */
  private Schema withSourceColumns(Schema projection) {
    if (sourceRows.isEmpty()) {
      return projection;
    }
    List<Types.NestedField> columns = new ArrayList<>(projection.columns());
    for (String name : List.of(RouteSchema.DATABASE_COLUMN, RouteSchema.TABLE_COLUMN)) {
      Types.NestedField field = table.schema().findField(name);
      if (!columns.contains(field)) {
        columns.add(field);
      }
    }
    return new Schema(columns);
  }

  KeyOrder keyOrder() {
    return keyOrder;
  }

  /**
   * Time spent by the lake reads of {@link #digests}, summed over threads: {@code lake read}
   * (reading and hashing data files) and {@code lake wait} (waiting for the key walk); and how many
   * file reads took the columnar path and how many Iceberg's generic reader, and how many Parquet
   * row groups the columnar path read by their key column alone.
   */
  Map<String, Long> work() {
    return Map.of(
        "lake read",
        readNanos.sum(),
        "lake wait",
        walkWaitNanos.sum(),
        "lake files columnar",
        fastFiles.sum(),
        "lake files generic",
        genericFiles.sum(),
        "lake row groups key only",
        columnar.map(ColumnarDigest::keyOnlyRowGroups).orElse(0L));
  }

  /**
   * The digests of the compared lake rows of every slice, in one read of the table: slice {@code i}
   * holds the keys in [boundary i-1, boundary i) (the first and the last slice are open). Two
   * projections of the same snapshot: the key and time columns of rows compared by key only, and
   * every column of rows in the window (files and row groups outside the window skipped by their
   * statistics). Data files are read by {@code threads} threads.
   *
   * @param boundaries the walked slice boundaries, ascending in MySQL's key order
   */
  List<SliceDigest> digests(WalkedBoundaries walked, int threads) {
    List<SliceDigest.Accumulator> total = new ArrayList<>();
    if (snapshotId.isEmpty()) {
      walked.awaitPast(Optional.empty());
      return digestsOf(total, walked.keys().size() + 1);
    }
    record Read(FileScanTask task, Schema projection, boolean window, Optional<Object[]> highest) {}
    List<Read> reads = new ArrayList<>();
    for (boolean window : new boolean[] {false, true}) {
      Schema projection = projection(window);
      for (FileScanTask task : tasks(projection, projectionFilter(window))) {
        reads.add(new Read(task, projection, window, keyBound(task, false)));
      }
    }
    // in the order the walk passes the files' highest keys, so a reader never waits for a file
    // whose keys span the table (a sync's recent files) while files it could read are queued
    // behind it
    reads.sort(
        (left, right) -> {
          if (left.highest().isEmpty() || right.highest().isEmpty()) {
            return Boolean.compare(left.highest().isEmpty(), right.highest().isEmpty());
          }
          return keyOrder.compare(left.highest().get(), right.highest().get());
        });
    List<Runnable> work = new ArrayList<>();
    for (Read read : reads) {
      work.add(
          () -> {
            long waitStarted = System.nanoTime();
            Object[][] boundaries = walked.awaitPast(read.highest());
            long readStarted = System.nanoTime();
            walkWaitNanos.add(readStarted - waitStarted);
            SliceDigest.Accumulator[] local = accumulators(boundaries.length + 1);
            if (columnar.isPresent()
                && columnar.get().applies(read.task())
                && columnar
                    .get()
                    .digest(
                        read.task(),
                        input(read.task().file().location()),
                        read.window(),
                        longBoundaries(boundaries),
                        local)) {
              fastFiles.increment();
            } else {
              genericFiles.increment();
              digestTask(
                  read.task(),
                  read.projection(),
                  read.window(),
                  (key, hash) -> local[sliceOf(key, boundaries)].add(hash));
            }
            readNanos.add(System.nanoTime() - readStarted);
            synchronized (total) {
              while (total.size() < local.length) {
                total.add(new SliceDigest.Accumulator());
              }
              for (int i = 0; i < local.length; i++) {
                total.get(i).add(local[i]);
              }
            }
          });
    }
    runAll(work, threads);
    walked.awaitPast(Optional.empty());
    synchronized (total) {
      return digestsOf(total, walked.keys().size() + 1);
    }
  }

  /**
   * The columns of one of the two projections every row is compared in: the key and time columns of
   * rows compared by key only, or with {@code window} every column of rows in the window.
   */
  private Schema projection(boolean window) {
    if (window) {
      return new Schema(fields);
    }
    List<Types.NestedField> keyAndTime = new ArrayList<>(keyFields);
    if (!keyAndTime.contains(fields.get(timePosition))) {
      keyAndTime.add(fields.get(timePosition));
    }
    return new Schema(keyAndTime);
  }

  /**
   * The files of one projection, by their time statistics: rows before the window (or without a
   * time), or with {@code window} rows in the window (a day of margin for time zones).
   */
  private Expression projectionFilter(boolean window) {
    String time = fields.get(timePosition).name();
    Type timeType = fields.get(timePosition).type();
    if (!window) {
      return Expressions.or(
          Expressions.isNull(time),
          Expressions.lessThanOrEqual(time, timeLiteral(timeType, windowStart)));
    }
    return Expressions.and(
        Expressions.greaterThanOrEqual(time, timeLiteral(timeType, windowStart.minusDays(1))),
        Expressions.lessThanOrEqual(time, timeLiteral(timeType, cutoff)));
  }

  /** Whether the key is one integer column, an int or long in the lake ({@link LongKeyIndex}). */
  boolean hasLongKey() {
    return keyFields.size() == 1
        && shape.keyColumns().get(0).kind() == ColumnKind.INTEGER
        && (keyFields.get(0).type().typeId() == Type.TypeID.INTEGER
            || keyFields.get(0).type().typeId() == Type.TypeID.LONG);
  }

  /**
   * The (key, row hash) index of the compared lake rows of each range, in one read of the files the
   * ranges' envelope may hold (key statistics), by the columnar path where it applies: for
   * bisection of mismatching slices. Memory: 16 bytes per lake row of the ranges.
   *
   * @param ranges disjoint key ranges, ascending
   * @param threads how many files are read at once
   */
  List<LongKeyIndex> longIndexes(List<KeyRange> ranges, int threads) {
    List<LongKeyIndex.Builder> builders = new ArrayList<>();
    ranges.forEach(range -> builders.add(new LongKeyIndex.Builder()));
    if (snapshotId.isPresent() && !ranges.isEmpty()) {
      long[][] bounds = new long[ranges.size()][];
      for (int i = 0; i < bounds.length; i++) {
        KeyRange range = ranges.get(i);
        bounds[i] =
            new long[] {
              range.lower().flatMap(LongKeyIndex::longKey).orElse(Long.MIN_VALUE),
              range.upper().flatMap(LongKeyIndex::longKey).orElse(Long.MAX_VALUE),
              range.upper().isPresent() ? 1 : 0
            };
      }
      Expression envelope =
          filter(new KeyRange(ranges.get(0).lower(), ranges.get(ranges.size() - 1).upper()));
      List<Runnable> work = new ArrayList<>();
      for (boolean window : new boolean[] {false, true}) {
        Schema projection = projection(window);
        for (FileScanTask task :
            tasks(projection, Expressions.and(projectionFilter(window), envelope))) {
          work.add(
              () -> {
                LongKeyIndex.Builder[] local = new LongKeyIndex.Builder[bounds.length];
                ColumnarDigest.RowSink sink =
                    (key, hash) -> {
                      int range = rangeOf(bounds, key);
                      if (range >= 0) {
                        if (local[range] == null) {
                          local[range] = new LongKeyIndex.Builder();
                        }
                        local[range].add(key, hash);
                      }
                    };
                boolean read =
                    columnar.isPresent()
                        && columnar.get().applies(task)
                        && columnar
                            .get()
                            .read(
                                task,
                                table.io().newInputFile(task.file().location()),
                                window,
                                sink);
                if (!read) {
                  digestTask(
                      task, projection, window, (key, hash) -> sink.add((Long) key[0], hash));
                }
                synchronized (builders) {
                  for (int i = 0; i < local.length; i++) {
                    if (local[i] != null) {
                      builders.get(i).addAll(local[i]);
                    }
                  }
                }
              });
        }
      }
      runAll(work, threads);
    }
    return builders.stream().map(LongKeyIndex.Builder::build).toList();
  }

  /** The range holding the key, or -1: {@code bounds[i]} is {lower, upper, 1 if bounded above}. */
  private static int rangeOf(long[][] bounds, long key) {
    int low = 0;
    int high = bounds.length;
    while (low < high) {
      int middle = (low + high) >>> 1;
      if (bounds[middle][0] <= key) {
        low = middle + 1;
      } else {
        high = middle;
      }
    }
    int range = low - 1;
    if (range < 0) {
      return -1;
    }
    long[] bound = bounds[range];
    return bound[2] == 0 || key < bound[1] ? range : -1;
  }

  /**
   * The compared lake rows with these keys (one integer key column), normalized, by key: the files
   * that may hold them (key statistics) read by Iceberg's generic reader.
   */
  Map<RowKey, ComparedRow> rowsWithKeys(Collection<RowKey> keys) {
    Map<RowKey, ComparedRow> rows = new HashMap<>();
    if (snapshotId.isEmpty() || keys.isEmpty()) {
      return rows;
    }
    Set<Long> wanted = new HashSet<>();
    keys.forEach(key -> LongKeyIndex.longKey(key).ifPresent(wanted::add));
    if (wanted.isEmpty()) {
      return rows;
    }
    long[] sorted = wanted.stream().mapToLong(Long::longValue).sorted().toArray();
    // Iceberg stops pruning by an IN list of more than 200 values: files are pruned here, by
    // whether their key bounds hold any wanted key
    String key = keyFields.get(0).name();
    Expression envelope =
        Expressions.and(
            Expressions.greaterThanOrEqual(key, sorted[0]),
            Expressions.lessThanOrEqual(key, sorted[sorted.length - 1]));
    Schema projection = new Schema(fields);
    int keyPosition = keyPositions[0];
    for (FileScanTask task : tasks(projection, envelope)) {
      Optional<Object[]> lowest = keyBound(task, true);
      Optional<Object[]> highest = keyBound(task, false);
      if (lowest.isPresent() && highest.isPresent()) {
        int first = Arrays.binarySearch(sorted, (Long) lowest.get()[0]);
        int position = first >= 0 ? first : -first - 1;
        if (position == sorted.length || sorted[position] > (Long) highest.get()[0]) {
          continue;
        }
      }
      read(
          task,
          projection,
          (record, positions) -> {
            Object value = record.get(positions[keyPosition]);
            if (value == null || !wanted.contains(((Number) value).longValue())) {
              return;
            }
            List<String> texts = texts(record, positions);
            String time = texts.get(timePosition);
            if (bounds.compared(time)) {
              rows.put(rowText.key(texts), new ComparedRow(texts, bounds.inWindow(time)));
            }
          });
    }
    return rows;
  }

  /**
   * A data or delete file to read: a file on local disk is read straight from the file system
   * (Iceberg's local input file), not through Hadoop's checksummed local file system, whose stream
   * stack costs the cold JVM seconds of JIT compilation (measured: 2.7 s of C2 time in two stream
   * methods during one verify of 10M rows); any other location through the table's FileIO.
   */
  private InputFile input(String location) {
    // Hadoop writes local locations as file:/p, file:///p or a bare path, never percent-encoded
    String path;
    if (location.startsWith("file://")) {
      path = location.substring("file://".length());
    } else if (location.startsWith("file:")) {
      path = location.substring("file:".length());
    } else if (location.startsWith("/")) {
      path = location;
    } else {
      return table.io().newInputFile(location);
    }
    File file = new File(path);
    return file.isAbsolute() && file.isFile()
        ? Files.localInput(file)
        : table.io().newInputFile(location);
  }

  /** One-column integer boundaries as longs (see {@link ColumnarDigest}). */
  private static long[] longBoundaries(Object[][] boundaries) {
    long[] longs = new long[boundaries.length];
    for (int i = 0; i < longs.length; i++) {
      longs[i] = (Long) boundaries[i][0];
    }
    return longs;
  }

  /**
   * The lowest or highest key of a data file from its column statistics, when the key is one
   * integer or decimal column (else empty: the file is read once the walk is over).
   */
  private Optional<Object[]> keyBound(FileScanTask task, boolean lowest) {
    if (keyFields.size() != 1) {
      return Optional.empty();
    }
    Types.NestedField field = keyFields.get(0);
    Map<Integer, ByteBuffer> bounds =
        lowest ? task.file().lowerBounds() : task.file().upperBounds();
    ByteBuffer bound = bounds == null ? null : bounds.get(field.fieldId());
    if (bound == null) {
      return Optional.empty();
    }
    switch (field.type().typeId()) {
      case INTEGER:
      case LONG:
      case DECIMAL:
        Object value = Conversions.fromByteBuffer(field.type(), bound);
        return Optional.of(new Object[] {keyOrder.typedLakeValue(0, value)});
      default:
        return Optional.empty();
    }
  }

  private static SliceDigest.Accumulator[] accumulators(int count) {
    SliceDigest.Accumulator[] accumulators = new SliceDigest.Accumulator[count];
    for (int i = 0; i < count; i++) {
      accumulators[i] = new SliceDigest.Accumulator();
    }
    return accumulators;
  }

  private static List<SliceDigest> digestsOf(
      List<SliceDigest.Accumulator> accumulators, int slices) {
    List<SliceDigest> digests = new ArrayList<>();
    for (int i = 0; i < slices; i++) {
      digests.add(i < accumulators.size() ? accumulators.get(i).digest() : SliceDigest.EMPTY);
    }
    return digests;
  }

  /** Receives the typed key (reused between rows) and the row hash of each compared row read. */
  private interface KeyedSink {
    void add(Object[] typedKey, long hash);
  }

  /**
   * Hands each row of one projection of a task to the sink: the key-only rows, or with {@code
   * window} the rows inside the window, read by Iceberg's generic reader (deletes applied).
   */
  private void digestTask(FileScanTask task, Schema projection, boolean window, KeyedSink sink) {
    int[] positions = new int[shape.columns().size()];
    Arrays.fill(positions, -1);
    for (int i = 0; i < fields.size(); i++) {
      positions[i] = projection.columns().indexOf(fields.get(i));
    }
    Object[] key = new Object[keyPositions.length];
    List<String> keyTexts = new ArrayList<>(keyPositions.length);
    read(
        task,
        projection,
        (record, readPositions) -> {
          Object timeValue = record.get(readPositions[positions[timePosition]]);
          LocalDateTime time = timeValue == null ? null : localTime(timeValue);
          if (time != null && !time.isBefore(cutoff)) {
            return;
          }
          boolean full = time != null && !time.isBefore(windowStart);
          if (full != window) {
            return;
          }
          for (int i = 0; i < keyPositions.length; i++) {
            key[i] =
                keyOrder.typedLakeValue(i, record.get(readPositions[positions[keyPositions[i]]]));
          }
          String text;
          if (full) {
            List<String> texts = new ArrayList<>(fields.size());
            for (int i = 0; i < fields.size(); i++) {
              texts.add(text(record.get(readPositions[positions[i]]), i));
            }
            text = rowText.rowText(texts, true);
          } else {
            keyTexts.clear();
            for (int keyPosition : keyPositions) {
              keyTexts.add(text(record.get(readPositions[positions[keyPosition]]), keyPosition));
            }
            text = rowText.keyRowText(keyTexts);
          }
          sink.add(key, RowText.hash(text));
        });
  }

  /** The number of boundaries at or below the key: the index of its slice. */
  private int sliceOf(Object[] key, Object[][] boundaries) {
    int low = 0;
    int high = boundaries.length;
    while (low < high) {
      int middle = (low + high) >>> 1;
      if (keyOrder.compare(boundaries[middle], key) <= 0) {
        low = middle + 1;
      } else {
        high = middle;
      }
    }
    return low;
  }

  private static LocalDateTime localTime(Object value) {
    if (value instanceof LocalDateTime dateTime) {
      return dateTime;
    }
    if (value instanceof OffsetDateTime offsetDateTime) {
      return offsetDateTime.withOffsetSameInstant(ZoneOffset.UTC).toLocalDateTime();
    }
    if (value instanceof LocalDate date) {
      return date.atStartOfDay();
    }
    throw new IllegalArgumentException(
        "a " + value.getClass().getSimpleName() + " is not a date or date-time");
  }

  private static Object timeLiteral(Type type, LocalDateTime time) {
    switch (type.typeId()) {
      case DATE:
        return time.toLocalDate().toString();
      case TIMESTAMP:
        return ((Types.TimestampType) type).shouldAdjustToUTC() ? time + "+00:00" : time.toString();
      default:
        throw new IllegalArgumentException("a time column of type " + type);
    }
  }

  private List<FileScanTask> tasks(Schema projection, Expression filter) {
    List<FileScanTask> tasks = new ArrayList<>();
    try (CloseableIterable<FileScanTask> planned =
        table
            .newScan()
            .useSnapshot(snapshotId.orElseThrow())
            .caseSensitive(false)
            .project(withSourceColumns(projection))
            .filter(sourceRows.map(rows -> Expressions.and(filter, rows)).orElse(filter))
            // the key bounds tell when the walk has passed a file (see digests)
            .includeColumnStats()
            .planFiles()) {
      planned.forEach(tasks::add);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot plan a read of lake table " + table.name(), e);
    }
    return tasks;
  }

  private static void runAll(List<Runnable> work, int threads) {
    ExecutorService readers =
        Executors.newFixedThreadPool(
            Math.max(1, Math.min(threads, work.size())),
            runnable -> {
              Thread thread = new Thread(runnable, "floe-verify-lake");
              thread.setDaemon(true);
              return thread;
            });
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (Runnable runnable : work) {
        futures.add(readers.submit(runnable));
      }
      for (Future<?> future : futures) {
        try {
          future.get();
        } catch (ExecutionException e) {
          if (e.getCause() instanceof RuntimeException runtime) {
            throw runtime;
          }
          throw new IllegalStateException("reading the lake failed", e.getCause());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted while reading the lake", e);
        }
      }
    } finally {
      readers.shutdownNow();
    }
  }

  private interface RowConsumer {
    /** One row; {@code positions[i]} is where projected column i is in the record. */
    void accept(Record record, int[] positions);
  }

  /**
   * Reads one file task with its deletes applied, as Iceberg's generic reader does; of a route's
   * table only the rows of the verified MySQL table.
   */
  private void read(FileScanTask task, Schema projection, RowConsumer consumer) {
    GenericDeleteFilter deletes =
        new GenericDeleteFilter(table.io(), task, table.schema(), withSourceColumns(projection));
    Schema readSchema = deletes.requiredSchema();
    Optional<Evaluator> sourceFilter =
        sourceRows.map(rows -> new Evaluator(readSchema.asStruct(), rows, false));
    int[] positions = new int[projection.columns().size()];
    for (int i = 0; i < positions.length; i++) {
      positions[i] =
          readSchema.columns().indexOf(readSchema.findField(projection.columns().get(i).fieldId()));
    }
    InputFile input = input(task.file().location());
    Map<Integer, ?> constants =
        PartitionUtil.constantsMap(task, IdentityPartitionConverters::convertConstant);
    CloseableIterable<Record> records;
    switch (task.file().format()) {
      case PARQUET:
        records =
            Parquet.read(input)
                .project(readSchema)
                .createReaderFunc(
                    fileSchema ->
                        GenericParquetReaders.buildReader(readSchema, fileSchema, constants))
                .split(task.start(), task.length())
                .caseSensitive(false)
                .filter(task.residual())
                .reuseContainers()
                .build();
        break;
      case AVRO:
        records =
            Avro.read(input)
                .project(readSchema)
                .createReaderFunc(
                    avroSchema -> DataReader.create(readSchema, avroSchema, constants))
                .split(task.start(), task.length())
                .reuseContainers()
                .build();
        break;
      default:
        throw FloeException.badInput(
            "Lake table "
                + table.name()
                + " has a "
                + task.file().format()
                + " data file ("
                + task.file().location()
                + "); verify reads Parquet and Avro data files.");
    }
    try (CloseableIterable<Record> live = deletes.filter(records)) {
      for (Record record : live) {
        if (sourceFilter.isEmpty() || sourceFilter.get().eval(record)) {
          consumer.accept(record, positions);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read lake table " + table.name(), e);
    }
  }

  /** The (key, row hash) of the compared lake rows of a range, for bisection in memory. */
  LakeKeyIndex index(KeyRange range) {
    record Entry(RowKey key, Object[] typed, long hash) {}
    List<Entry> entries = new ArrayList<>();
    scan(
        range,
        texts -> {
          String time = texts.get(timePosition);
          if (!bounds.compared(time)) {
            return;
          }
          boolean full = bounds.inWindow(time);
          RowKey key = rowText.key(texts);
          String text = full ? rowText.rowText(texts, true) : rowText.keyRowText(key.values());
          entries.add(new Entry(key, keyOrder.typed(key), RowText.hash(text)));
        });
    // typed once per row: sorting compares typed keys, not texts
    entries.sort((left, right) -> keyOrder.compare(left.typed(), right.typed()));
    long[] hashes = new long[entries.size()];
    for (int i = 0; i < hashes.length; i++) {
      hashes[i] = entries.get(i).hash();
    }
    return new LakeKeyIndex(
        entries.stream().map(Entry::key).toList(), hashes, keyOrder.rowKeyOrder());
  }

  /**
   * The compared lake rows of several disjoint ranges inside {@code within}, sorted by key, in one
   * read: one map per range, in the order given.
   */
  List<Map<RowKey, ComparedRow>> rows(KeyRange within, List<KeyRange> ranges) {
    List<Map<RowKey, ComparedRow>> rows = new ArrayList<>();
    ranges.forEach(range -> rows.add(new HashMap<>()));
    List<Object[][]> typedRanges = ranges.stream().map(this::typedRange).toList();
    scan(
        within,
        texts -> {
          String time = texts.get(timePosition);
          if (!bounds.compared(time)) {
            return;
          }
          RowKey key = rowText.key(texts);
          Object[] typed = keyOrder.typed(key);
          for (int i = 0; i < ranges.size(); i++) {
            if (contains(typedRanges.get(i), typed)) {
              rows.get(i).put(key, new ComparedRow(texts, bounds.inWindow(time)));
              return;
            }
          }
        });
    return rows;
  }

  /** The compared lake rows of a range, normalized, by key. */
  Map<RowKey, ComparedRow> rows(KeyRange range) {
    Map<RowKey, ComparedRow> rows = new HashMap<>();
    scan(
        range,
        texts -> {
          String time = texts.get(timePosition);
          if (!bounds.compared(time)) {
            return;
          }
          rows.put(rowText.key(texts), new ComparedRow(texts, bounds.inWindow(time)));
        });
    return rows;
  }

  /** {lower or null, upper or null} as typed keys. */
  private Object[][] typedRange(KeyRange range) {
    return new Object[][] {
      range.lower().map(keyOrder::typed).orElse(null),
      range.upper().map(keyOrder::typed).orElse(null)
    };
  }

  private boolean contains(Object[][] range, Object[] key) {
    return (range[0] == null || keyOrder.compare(key, range[0]) >= 0)
        && (range[1] == null || keyOrder.compare(key, range[1]) < 0);
  }

  /** The normalized texts of a row read with every column, in table column order. */
  private List<String> texts(Record record, int[] positions) {
    List<String> texts = new ArrayList<>(fields.size());
    for (int i = 0; i < fields.size(); i++) {
      texts.add(text(record.get(positions[i]), i));
    }
    return texts;
  }

  private String text(Object value, int position) {
    try {
      return RowText.valueText(shape.columns().get(position), value);
    } catch (IllegalArgumentException e) {
      VerifyColumn column = shape.columns().get(position);
      throw FloeException.badInput(
          "Column "
              + column.name()
              + " of lake table "
              + table.name()
              + " cannot be compared with MySQL's "
              + column.mySqlType()
              + ": "
              + e.getMessage()
              + ". See docs/verify.md for the type mapping.");
    }
  }

  private interface TextsConsumer {
    /** The normalized texts of one lake row, in table column order. */
    void accept(List<String> texts);
  }

  /**
   * Reads the lake rows of a key range: Iceberg prunes files by the key's statistics (not for
   * string keys: Iceberg orders strings by bytes, MySQL by collation), then each row's key is
   * checked in MySQL's order.
   */
  private void scan(KeyRange range, TextsConsumer consumer) {
    if (snapshotId.isEmpty()) {
      return;
    }
    Expression filter = keyOrder.hasStringColumn() ? Expressions.alwaysTrue() : filter(range);
    Object[][] typedRange = typedRange(range);
    Schema projection = new Schema(fields);
    for (FileScanTask task : tasks(projection, filter)) {
      read(
          task,
          projection,
          (record, positions) -> {
            List<String> texts = texts(record, positions);
            if (contains(typedRange, keyOrder.typed(rowText.key(texts)))) {
              consumer.accept(texts);
            }
          });
    }
  }

  Expression filter(KeyRange range) {
    Expression filter = Expressions.alwaysTrue();
    if (range.lower().isPresent()) {
      filter = Expressions.and(filter, compare(range.lower().get(), 0, true));
    }
    if (range.upper().isPresent()) {
      filter = Expressions.and(filter, compare(range.upper().get(), 0, false));
    }
    return filter;
  }

  private Expression compare(RowKey key, int index, boolean lower) {
    Types.NestedField field = keyFields.get(index);
    Object literal = literal(field.type(), key.values().get(index));
    String name = field.name();
    boolean last = index == keyFields.size() - 1;
    if (last) {
      return lower
          ? Expressions.greaterThanOrEqual(name, literal)
          : Expressions.lessThan(name, literal);
    }
    Expression strict =
        lower ? Expressions.greaterThan(name, literal) : Expressions.lessThan(name, literal);
    return Expressions.or(
        strict, Expressions.and(Expressions.equal(name, literal), compare(key, index + 1, lower)));
  }

  private static Object literal(Type type, String text) {
    switch (type.typeId()) {
      case INTEGER:
      case LONG:
        return Long.valueOf(text);
      case DECIMAL:
        return new BigDecimal(text)
            .setScale(((Types.DecimalType) type).scale(), RoundingMode.UNNECESSARY);
      case DATE:
        return text;
      case TIMESTAMP:
        String iso = text.replace(' ', 'T');
        return ((Types.TimestampType) type).shouldAdjustToUTC() ? iso + "+00:00" : iso;
      default:
        return text;
    }
  }
}

package dev.floe.sync;

import static java.util.Objects.requireNonNull;

import dev.floe.core.error.FloeException;
import dev.floe.core.source.MySqlSourceAddress;
import dev.floe.core.sync.RouteSchema;
import dev.floe.core.sync.SourceTable;
import dev.floe.core.sync.SyncSummary;
import dev.floe.mysql.MySqlConnections;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.OverwriteFiles;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotUpdate;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericAppenderFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.FileAppenderFactory;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.io.PartitionedFanoutWriter;
import org.apache.iceberg.io.TaskWriter;
import org.apache.iceberg.io.UnpartitionedWriter;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.ByteBuffers;
import org.apache.iceberg.util.JsonUtil;
import org.apache.iceberg.util.PropertyUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The initial snapshot: copies each table from MySQL straight into Iceberg data files, in
 * primary-key chunks, without locks and without Flink.
 *
 * <p>A chunk is a key range {@code (lo, hi]} whose upper bound is found by walking the key index
 * ({@code ORDER BY key LIMIT 1 OFFSET n-1}); chunks are read ({@code WHERE key > lo AND key <= hi
 * ORDER BY key}, streamed) and written to their own files by a pool of workers. A table's chunks
 * are committed in key order, together, at most every commit interval: one {@code AppendFiles} that
 * records in its summary the key the table is copied up to ({@link #AFTER_KEY}) or that the copy is
 * complete ({@link #COMPLETE}). Progress and data land in the same commit, so a restart resumes
 * after the last committed key and never copies a row twice.
 *
 * <p>The tables of a route share one Iceberg table: each is copied in turn, its rows carrying its
 * database and table ({@link RouteSchema}), and its progress is recorded under its own summary keys
 * ({@link #AFTER_KEY} and {@link #COMPLETE} followed by {@code .database.table}).
 *
 * <p>Rows change while they are copied; the binlog phase replays every change from the binlog
 * position read before the first chunk, and treats inserts up to the position read after the last
 * chunk as upserts, so each row ends as MySQL has it.
 */
final class SnapshotCopier {

  private static final Logger LOG = LoggerFactory.getLogger(SnapshotCopier.class);

  /** Summary key: the primary key (JSON list) up to which the table is copied. */
  static final String AFTER_KEY = SyncSummary.SNAPSHOT_AFTER_KEY;

  /** Summary key: {@code true} once every chunk of the table is committed. */
  static final String COMPLETE = SyncSummary.SNAPSHOT_COMPLETE;

  /** The copy's Parquet dictionary limit when the table sets none (Iceberg's default: 2 MB). */
  static final String COPY_DICTIONARY_BYTES = String.valueOf(64 * 1024);

  /** One table to copy. */
  record TableCopy(SourceTable source, TableIdentifier target) {}

  /** How a copy ended. */
  enum Outcome {
    COMPLETE,
    STOPPED
  }

  private final Catalog catalog;
  private final MySqlConnections connections;
  private final MySqlSourceAddress source;
  private final String syncId;
  private final int parallelism;
  private final int chunkRows;
  private final Duration commitInterval;
  private final RowThrottle throttle;
  private volatile boolean stopping;

  SnapshotCopier(
      Catalog catalog,
      MySqlConnections connections,
      MySqlSourceAddress source,
      String syncId,
      int parallelism,
      int chunkRows,
      Duration commitInterval,
      RowThrottle throttle) {
    this.catalog = requireNonNull(catalog, "catalog is null");
    this.connections = requireNonNull(connections, "connections is null");
    this.source = requireNonNull(source, "source is null");
    this.syncId = requireNonNull(syncId, "syncId is null");
    this.parallelism = parallelism;
    this.chunkRows = chunkRows;
    this.commitInterval = requireNonNull(commitInterval, "commitInterval is null");
    this.throttle = requireNonNull(throttle, "throttle is null");
  }

  /** Asks a running {@link #copy} to stop after the chunks in flight and commit them. */
  void stop() {
    stopping = true;
  }

  /**
   * Copies every table not yet complete for this sync, resuming after the last committed key.
   *
   * @throws FloeException when MySQL cannot be read or a value cannot be represented; what was
   *     committed stands
   */
  Outcome copy(List<TableCopy> tables) throws InterruptedException {
    ExecutorService workers =
        Executors.newFixedThreadPool(
            parallelism,
            runnable -> {
              Thread thread = new Thread(runnable, "floe-snapshot-worker");
              thread.setDaemon(true);
              return thread;
            });
    Semaphore inFlight = new Semaphore(parallelism * 2);
    AtomicReference<RuntimeException> failure = new AtomicReference<>();
    List<TableProgress> progress = new ArrayList<>();
    try (Connection walker = session()) {
      for (TableCopy copy : tables) {
        if (stopping || failure.get() != null) {
          break;
        }
        Table table = catalog.loadTable(copy.target());
        Optional<Object[]> resume = resumePoint(table, copy.source());
        if (resume == null) {
          LOG.info("{}: snapshot already complete", copy.source().qualifiedName());
          continue;
        }
        // Parquet (the default) is written from Iceberg's internal values, parsed without an
        // object per temporal value; other formats from the generic ones their writers take
        SnapshotColumns columns =
            new SnapshotColumns(copy.source(), table.schema(), format(table) == FileFormat.PARQUET);
        SnapshotColumns keyColumns = columns.keyColumns();
        // A copy from the start replaces whatever the table holds (an earlier sync's rows); a
        // route's table is emptied before its first table's copy, since its tables commit apart.
        boolean replace = resume.isEmpty() && holdsFiles(table);
        if (replace && RouteSchema.isRouted(table.schema())) {
          if (!touchedBySync(table)) {
            table
                .newDelete()
                .deleteFromRowFilter(Expressions.alwaysTrue())
                .set(SyncSummary.SYNC_ID, syncId)
                .commit();
            LOG.info("{}: emptied for a new copy of its route's tables", table.name());
          }
          replace = false;
        }
        TableProgress tableProgress = new TableProgress(copy.source(), table, replace);
        progress.add(tableProgress);
        Object[] lo = resume.orElse(null);
        for (int index = 0; !stopping && failure.get() == null; index++) {
          Object[] hi = upperBound(walker, copy.source(), columns, keyColumns, lo);
          inFlight.acquire();
          Chunk chunk = new Chunk(index, lo, hi);
          workers.execute(
              () -> {
                try {
                  if (failure.get() == null) {
                    tableProgress.done(chunk, write(copy.source(), table, columns, chunk));
                  }
                } catch (RuntimeException e) {
                  failure.compareAndSet(null, e);
                } finally {
                  inFlight.release();
                }
              });
          if (hi == null) {
            tableProgress.lastChunk(index);
            break;
          }
          lo = hi;
        }
      }
    } catch (SQLException e) {
      failure.compareAndSet(null, unavailable(e));
    } finally {
      workers.shutdown();
      while (!workers.awaitTermination(1, TimeUnit.SECONDS)) {
        LOG.debug("waiting for snapshot chunks in flight");
      }
    }
    for (TableProgress tableProgress : progress) {
      tableProgress.commitReady(true);
    }
    if (failure.get() != null) {
      throw failure.get();
    }
    return stopping ? Outcome.STOPPED : Outcome.COMPLETE;
  }

  /** Whether any commit in the table's history was made by this sync. */
  private boolean touchedBySync(Table table) {
    for (Snapshot snapshot = table.currentSnapshot();
        snapshot != null;
        snapshot = snapshot.parentId() == null ? null : table.snapshot(snapshot.parentId())) {
      if (syncId.equals(snapshot.summary().get(SyncSummary.SYNC_ID))) {
        return true;
      }
    }
    return false;
  }

  /** The summary key of a table's copy progress: own keys per source table in a route's table. */
  private static String progressKey(String key, Table table, SourceTable source) {
    return RouteSchema.isRouted(table.schema()) ? key + "." + source.qualifiedName() : key;
  }

  private static boolean holdsFiles(Table table) {
    Snapshot current = table.currentSnapshot();
    return current != null
        && (Long.parseLong(current.summary().getOrDefault("total-data-files", "0")) > 0
            || Long.parseLong(current.summary().getOrDefault("total-delete-files", "0")) > 0);
  }

  /**
   * Where this sync's copy of a table stands: empty = from the start, a key = after it, {@code
   * null} = complete.
   */
  private Optional<Object[]> resumePoint(Table table, SourceTable source) {
    for (Snapshot snapshot = table.currentSnapshot();
        snapshot != null;
        snapshot = snapshot.parentId() == null ? null : table.snapshot(snapshot.parentId())) {
      Map<String, String> summary = snapshot.summary();
      if (!syncId.equals(summary.get(SyncSummary.SYNC_ID))) {
        continue;
      }
      if ("true".equals(summary.get(progressKey(COMPLETE, table, source)))) {
        return null;
      }
      String afterKey = progressKey(AFTER_KEY, table, source);
      if (summary.containsKey(afterKey)) {
        return Optional.of(decodeKey(table.schema(), source, summary.get(afterKey)));
      }
    }
    return Optional.empty();
  }

  /** The last key of the chunk after {@code lo}, or {@code null} when it is the last chunk. */
  private Object[] upperBound(
      Connection connection,
      SourceTable source,
      SnapshotColumns columns,
      SnapshotColumns key,
      Object[] lo)
      throws SQLException {
    String sql =
        "SELECT "
            + key.selectList()
            + " FROM "
            + qualified(source)
            + (lo == null ? "" : " WHERE " + columns.afterCondition())
            + " ORDER BY "
            + columns.keyList()
            + " LIMIT 1 OFFSET "
            + (chunkRows - 1);
    try (PreparedStatement statement = connection.prepareStatement(sql)) {
      if (lo != null) {
        columns.bindAfter(statement, 1, lo);
      }
      try (ResultSet row = statement.executeQuery()) {
        if (!row.next()) {
          return null;
        }
        Object[] values = new Object[source.primaryKey().size()];
        key.read(row, values);
        return values;
      }
    }
  }

  /** Reads one chunk and writes it to new data files (not committed). */
  private ChunkResult write(SourceTable source, Table table, SnapshotColumns columns, Chunk chunk) {
    String where =
        chunk.lo() == null && chunk.hi() == null
            ? ""
            : " WHERE "
                + String.join(
                    " AND ",
                    java.util.stream.Stream.of(
                            chunk.lo() == null ? null : columns.afterCondition(),
                            chunk.hi() == null ? null : columns.atOrBeforeCondition())
                        .filter(java.util.Objects::nonNull)
                        .toList());
    String sql =
        "SELECT "
            + columns.selectList()
            + " FROM "
            + qualified(source)
            + where
            + " ORDER BY "
            + columns.keyList();
    Schema schema = table.schema();
    Record record = GenericRecord.create(schema);
    int[] positions = positions(source, schema);
    if (RouteSchema.isRouted(schema)) {
      record.setField(RouteSchema.DATABASE_COLUMN, source.database());
      record.setField(RouteSchema.TABLE_COLUMN, source.table());
    }
    long rows = 0;
    try (Connection connection = session();
        PreparedStatement statement =
            connection.prepareStatement(
                sql, ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY)) {
      statement.setFetchSize(Integer.MIN_VALUE); // stream the rows
      int index = 1;
      if (chunk.lo() != null) {
        index = columns.bindAfter(statement, index, chunk.lo());
      }
      if (chunk.hi() != null) {
        columns.bindAfter(statement, index, chunk.hi());
      }
      TaskWriter<Record> writer = writer(table, chunk.index(), columns.internal());
      try (ResultSet row = statement.executeQuery()) {
        Object[] sourceValues = new Object[source.columns().size()];
        while (row.next()) {
          columns.read(row, sourceValues);
          for (int i = 0; i < positions.length; i++) {
            record.set(positions[i], sourceValues[i]);
          }
          writer.write(record);
          if (++rows % 1024 == 0) {
            throttle.acquire(1024);
          }
        }
        throttle.acquire(rows % 1024);
      } catch (RuntimeException | SQLException | IOException e) {
        writer.abort();
        throw e;
      } catch (InterruptedException e) {
        writer.abort();
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while copying " + table.name(), e);
      }
      return new ChunkResult(List.of(writer.dataFiles()), rows);
    } catch (SQLException e) {
      throw unavailable(e);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write a snapshot chunk of " + table.name(), e);
    }
  }

  private static int[] positions(SourceTable source, Schema schema) {
    List<Types.NestedField> fields = schema.columns();
    return source.columns().stream()
        .mapToInt(
            column ->
                java.util.stream.IntStream.range(0, fields.size())
                    .filter(i -> fields.get(i).name().equalsIgnoreCase(column.name()))
                    .findFirst()
                    .orElseThrow(
                        () ->
                            new IllegalStateException(
                                "column " + column.name() + " missing from the Iceberg table")))
        .toArray();
  }

  private static FileFormat format(Table table) {
    return FileFormat.fromString(
        table
            .properties()
            .getOrDefault(
                TableProperties.DEFAULT_FILE_FORMAT, TableProperties.DEFAULT_FILE_FORMAT_DEFAULT));
  }

  /** The copy's write settings: the table's, with the copy's own defaults (see docs/sync.md). */
  static Map<String, String> writeProperties(Table table) {
    Map<String, String> properties = new java.util.HashMap<>(table.properties());
    if (!table.properties().containsKey(TableProperties.PARQUET_COMPRESSION_LEVEL)
        && "zstd"
            .equalsIgnoreCase(
                table
                    .properties()
                    .getOrDefault(
                        TableProperties.PARQUET_COMPRESSION,
                        TableProperties.PARQUET_COMPRESSION_DEFAULT_SINCE_1_4_0))) {
      // The copy is CPU-bound next to MySQL: zstd's fastest level for it; compaction later
      // rewrites files with the table's own level.
      properties.put(TableProperties.PARQUET_COMPRESSION_LEVEL, "1");
    }
    // Parquet tries a dictionary for every column of every file: a unique or high-cardinality
    // column (the key, timestamps, free text) hashes values until the dictionary exceeds this
    // limit or the first page shows it does not pay, then encodes them again plainly. 64 KB gives
    // up after 8,192 distinct longs instead of a 20,000-row first page; low-cardinality columns
    // keep their dictionaries. Compaction rewrites with the table's own limit.
    properties.putIfAbsent(TableProperties.PARQUET_DICT_SIZE_BYTES, COPY_DICTIONARY_BYTES);
    return properties;
  }

  private static TaskWriter<Record> writer(Table table, int chunkIndex, boolean internal) {
    Schema schema = table.schema();
    Map<String, String> properties = writeProperties(table);
    FileAppenderFactory<Record> appenders;
    if (internal) {
      appenders = new InternalParquetAppenders(schema, table.spec(), properties);
    } else {
      GenericAppenderFactory generic = new GenericAppenderFactory(schema, table.spec());
      generic.setAll(properties);
      appenders = generic;
    }
    FileFormat format = format(table);
    OutputFileFactory files =
        OutputFileFactory.builderFor(table, chunkIndex, System.nanoTime()).format(format).build();
    long targetSize =
        PropertyUtil.propertyAsLong(
            table.properties(),
            TableProperties.WRITE_TARGET_FILE_SIZE_BYTES,
            TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT);
    if (table.spec().isUnpartitioned()) {
      return new UnpartitionedWriter<>(
          table.spec(), format, appenders, files, table.io(), targetSize);
    }
    PartitionKey key = new PartitionKey(table.spec(), schema);
    InternalRecordWrapper wrapper = new InternalRecordWrapper(schema.asStruct());
    return new PartitionedFanoutWriter<>(
        table.spec(), format, appenders, files, table.io(), targetSize) {
      @Override
      protected PartitionKey partition(Record row) {
        key.partition(internal ? row : wrapper.wrap(row));
        return key;
      }
    };
  }

  private Connection session() throws SQLException {
    Connection connection = connections.connect(source.withoutDatabase());
    try (Statement statement = connection.createStatement()) {
      // TIMESTAMP columns are read as text in UTC (see SnapshotColumns)
      statement.execute("SET time_zone = '+00:00'");
    } catch (SQLException e) {
      connection.close();
      throw e;
    }
    return connection;
  }

  private FloeException unavailable(SQLException e) {
    return MySqlConnections.explain(source, e).toException(e);
  }

  private static String qualified(SourceTable source) {
    return SnapshotColumns.quote(source.database()) + "." + SnapshotColumns.quote(source.table());
  }

  /** A key range {@code (lo, hi]}; {@code null} bounds are open. */
  private record Chunk(int index, Object[] lo, Object[] hi) {}

  private record ChunkResult(List<DataFile> files, long rows) {}

  /** One table's chunks: committed in key order, together, at most every commit interval. */
  private final class TableProgress {
    private final SourceTable source;
    private final String name;
    private final Table table;
    private boolean replace;
    private final TreeMap<Integer, ChunkResult> ready = new TreeMap<>();
    private final Map<Integer, Chunk> chunks = new java.util.HashMap<>();
    private int next;
    private int last = -1;
    private long lastCommit = System.nanoTime();

    TableProgress(SourceTable source, Table table, boolean replace) {
      this.source = source;
      this.name = source.qualifiedName();
      this.table = table;
      this.replace = replace;
    }

    synchronized void lastChunk(int index) {
      last = index;
    }

    synchronized void done(Chunk chunk, ChunkResult result) {
      ready.put(chunk.index(), result);
      chunks.put(chunk.index(), chunk);
      commitReady(false);
    }

    /** Commits the contiguous run of finished chunks, when due (or when forced). */
    synchronized void commitReady(boolean force) {
      boolean due = force || System.nanoTime() - lastCommit >= commitInterval.toNanos();
      List<DataFile> files = new ArrayList<>();
      int through = next - 1;
      long rows = 0;
      while (ready.containsKey(through + 1)) {
        through++;
        files.addAll(ready.get(through).files());
        rows += ready.get(through).rows();
      }
      boolean complete = through >= 0 && through == last;
      if (through < next || !(due || complete)) {
        return;
      }
      SnapshotUpdate<?> update;
      if (replace) {
        OverwriteFiles overwrite =
            table.newOverwrite().overwriteByRowFilter(Expressions.alwaysTrue());
        files.forEach(overwrite::addFile);
        update = overwrite;
      } else {
        AppendFiles append = table.newFastAppend();
        files.forEach(append::appendFile);
        update = append;
      }
      update.set(SyncSummary.SYNC_ID, syncId);
      if (complete) {
        update.set(progressKey(COMPLETE, table, source), "true");
      } else {
        update.set(progressKey(AFTER_KEY, table, source), encodeKey(chunks.get(through).hi()));
      }
      update.commit();
      replace = false;
      for (int index = next; index <= through; index++) {
        ready.remove(index);
        chunks.remove(index);
      }
      next = through + 1;
      lastCommit = System.nanoTime();
      LOG.info(
          "{}: committed snapshot chunks through {} ({} rows, {} files{})",
          name,
          through,
          rows,
          files.size(),
          complete ? ", complete" : "");
    }
  }

  static String encodeKey(Object[] key) {
    List<String> parts = new ArrayList<>();
    for (Object value : key) {
      parts.add(
          value instanceof ByteBuffer buffer
              ? HexFormat.of().formatHex(ByteBuffers.toByteArray(buffer))
              : String.valueOf(value));
    }
    try {
      return JsonUtil.mapper().writeValueAsString(parts);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static Object[] decodeKey(Schema schema, SourceTable source, String encoded) {
    List<String> parts;
    try {
      parts =
          JsonUtil.mapper()
              .readValue(
                  encoded,
                  JsonUtil.mapper()
                      .getTypeFactory()
                      .constructCollectionType(List.class, String.class));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the snapshot progress key " + encoded, e);
    }
    Object[] key = new Object[parts.size()];
    for (int i = 0; i < key.length; i++) {
      Type type = schema.caseInsensitiveFindField(source.primaryKey().get(i)).type();
      key[i] = decodeValue(type, parts.get(i));
    }
    return key;
  }

  private static Object decodeValue(Type type, String text) {
    return switch (type.typeId()) {
      case INTEGER -> Integer.valueOf(text);
      case LONG -> Long.valueOf(text);
      case DECIMAL -> new BigDecimal(text);
      case FLOAT -> Float.valueOf(text);
      case DOUBLE -> Double.valueOf(text);
      case BOOLEAN -> Boolean.valueOf(text);
      case BINARY -> ByteBuffer.wrap(HexFormat.of().parseHex(text));
      case DATE -> LocalDate.parse(text);
      case TIME -> LocalTime.parse(text);
      case TIMESTAMP ->
          ((Types.TimestampType) type).shouldAdjustToUTC()
              ? OffsetDateTime.parse(text)
              : LocalDateTime.parse(text);
      default -> text;
    };
  }
}

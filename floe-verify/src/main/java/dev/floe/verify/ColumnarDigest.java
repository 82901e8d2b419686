package dev.floe.verify;

import static java.util.Objects.requireNonNull;

import dev.floe.core.verify.ColumnKind;
import dev.floe.core.verify.SliceDigest;
import dev.floe.core.verify.VerifyColumn;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.zip.CRC32;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.data.DeleteLoader;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.StructLikeSet;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnReadStore;
import org.apache.parquet.column.ColumnReader;
import org.apache.parquet.column.impl.ColumnReadStoreImpl;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.example.data.simple.convert.GroupRecordConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.io.DelegatingSeekableInputStream;
import org.apache.parquet.io.SeekableInputStream;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

/**
 * The slice digests of a Parquet data file read column by column as primitives, without Iceberg's
 * generic reader (no record, no boxed value, no text object per row): for a table keyed by one
 * integer column whose time column is a timestamp or a date. The key-only rows (time before the
 * window, or NULL) need the key and time columns only; the rows in the window need every column,
 * whose text is built straight into one byte buffer when every column has a type this class formats
 * (integers, decimals, strings, dates, timestamps; the text is the one {@link ColumnKind} gives, a
 * test compares both).
 *
 * <p>The row semantics are exactly those of the generic path ({@code IcebergSliceReader}): a row
 * whose time is at or after the cutoff is not compared; the key-only read adds CRC32 of the key's
 * decimal text for rows before the window or without a time, the window read CRC32 of the full row
 * text for rows inside the window. A file this class cannot read that way (delete files,
 * encryption, a column missing from the file or stored in another physical type) is left to the
 * generic path ({@link #digest} returns false before adding anything). Thread-safe.
 */
final class ColumnarDigest {

  private static final byte[] NULL_TEXT = {'N'};

  private final List<VerifyColumn> columns;
  private final List<Types.NestedField> fields;
  private final int keyPosition;
  private final int timePosition;
  private final boolean timeIsDate;
  private final long windowStartMicros;
  private final long cutoffMicros;
  private final LongAdder keyOnlyGroups = new LongAdder();

  /** At most this many deleted keys are kept for later tasks (8 bytes each). */
  private static final long CACHED_KEYS = 16_000_000;

  private static final Deletes NO_DELETES = new Deletes(null, new long[0]);

  /** Opens a data or delete file by its location. */
  private final Function<String, InputFile> files;

  /** The sorted keys removed by a set of equality delete files (by their sorted locations). */
  private final Map<List<String>, long[]> deletedKeys = new ConcurrentHashMap<>();

  private final LongAdder cachedKeys = new LongAdder();

  private ColumnarDigest(
      List<VerifyColumn> columns,
      List<Types.NestedField> fields,
      int keyPosition,
      int timePosition,
      LocalDateTime windowStart,
      LocalDateTime cutoff,
      Function<String, InputFile> files) {
    this.files = requireNonNull(files, "files is null");
    this.columns = List.copyOf(columns);
    this.fields = List.copyOf(fields);
    this.keyPosition = keyPosition;
    this.timePosition = timePosition;
    this.timeIsDate = fields.get(timePosition).type().typeId() == Type.TypeID.DATE;
    this.windowStartMicros = micros(windowStart);
    this.cutoffMicros = micros(cutoff);
  }

  /**
   * The columnar reader for a table whose key is one integer column (an int or long in the lake)
   * and whose time column is a timestamp or date; else empty.
   *
   * @param columns the table's columns, in table order
   * @param fields their lake fields, in the same order
   * @param keyPositions the key columns' positions in {@code columns}
   * @param files opens a data or delete file by its location
   */
  static Optional<ColumnarDigest> of(
      List<VerifyColumn> columns,
      List<Types.NestedField> fields,
      int[] keyPositions,
      int timePosition,
      LocalDateTime windowStart,
      LocalDateTime cutoff,
      Function<String, InputFile> files) {
    if (keyPositions.length != 1 || columns.get(keyPositions[0]).kind() != ColumnKind.INTEGER) {
      return Optional.empty();
    }
    Type.TypeID keyType = fields.get(keyPositions[0]).type().typeId();
    Type.TypeID timeType = fields.get(timePosition).type().typeId();
    if (keyType != Type.TypeID.INTEGER && keyType != Type.TypeID.LONG) {
      return Optional.empty();
    }
    if (timeType != Type.TypeID.TIMESTAMP && timeType != Type.TypeID.DATE) {
      return Optional.empty();
    }
    return Optional.of(
        new ColumnarDigest(
            columns, fields, keyPositions[0], timePosition, windowStart, cutoff, files));
  }

  /** How many row groups were read by their key column alone (every time before the window). */
  long keyOnlyRowGroups() {
    return keyOnlyGroups.sum();
  }

  /**
   * Whether a task may be read here: an unencrypted Parquet file whose delete files, if any, are
   * position deletes or equality deletes on the key column alone (what a sync writes).
   */
  boolean applies(FileScanTask task) {
    if (task.file().format() != FileFormat.PARQUET || task.file().keyMetadata() != null) {
      return false;
    }
    List<Integer> key = List.of(fields.get(keyPosition).fieldId());
    for (DeleteFile delete : task.deletes()) {
      boolean readable =
          delete.keyMetadata() == null
              && (delete.content() == FileContent.POSITION_DELETES
                  || (delete.content() == FileContent.EQUALITY_DELETES
                      && key.equals(delete.equalityFieldIds())));
      if (!readable) {
        return false;
      }
    }
    return true;
  }

  /** The rows of one data file its delete files remove: by position in the file, and by key. */
  private static final class Deletes {
    private final PositionDeleteIndex positions;
    private final long[] keys;

    Deletes(PositionDeleteIndex positions, long[] keys) {
      this.positions = positions;
      this.keys = keys;
    }

    boolean byPosition() {
      return positions != null && !positions.isEmpty();
    }

    boolean any() {
      return byPosition() || keys.length > 0;
    }

    boolean deleted(long position, long key) {
      return (positions != null && positions.isDeleted(position))
          || (keys.length > 0 && Arrays.binarySearch(keys, key) >= 0);
    }
  }

  /**
   * Loads the deletes of a task with Iceberg's delete loader: the position deletes of its file, and
   * the keys its equality delete files remove, as one sorted array, kept for other tasks with the
   * same equality delete files while fewer than {@link #CACHED_KEYS} keys are kept.
   */
  private Deletes deletes(FileScanTask task) {
    if (task.deletes().isEmpty()) {
      return NO_DELETES;
    }
    DeleteLoader loader = new BaseDeleteLoader(delete -> files.apply(delete.location()));
    List<DeleteFile> positionFiles = new ArrayList<>();
    List<DeleteFile> equalityFiles = new ArrayList<>();
    for (DeleteFile delete : task.deletes()) {
      (delete.content() == FileContent.POSITION_DELETES ? positionFiles : equalityFiles)
          .add(delete);
    }
    PositionDeleteIndex positions =
        positionFiles.isEmpty()
            ? null
            : loader.loadPositionDeletes(positionFiles, task.file().location());
    long[] keys = new long[0];
    if (!equalityFiles.isEmpty()) {
      List<String> locations = equalityFiles.stream().map(DeleteFile::location).sorted().toList();
      keys = deletedKeys.get(locations);
      if (keys == null) {
        keys = loadKeys(loader, equalityFiles);
        if (cachedKeys.sum() + keys.length <= CACHED_KEYS) {
          cachedKeys.add(keys.length);
          deletedKeys.put(locations, keys);
        }
      }
    }
    return new Deletes(positions, keys);
  }

  private long[] loadKeys(DeleteLoader loader, List<DeleteFile> equalityFiles) {
    Schema keySchema = new Schema(fields.get(keyPosition));
    StructLikeSet deleted = loader.loadEqualityDeletes(equalityFiles, keySchema);
    long[] keys = new long[deleted.size()];
    int count = 0;
    for (StructLike key : deleted) {
      Object value = key.get(0, Object.class);
      if (value != null) {
        keys[count++] = ((Number) value).longValue();
      }
    }
    keys = Arrays.copyOf(keys, count);
    Arrays.sort(keys);
    return keys;
  }

  /**
   * Adds the rows of the task's part of the file to the digests of their slices: the key-only rows,
   * or with {@code window} the rows inside the window.
   *
   * @param boundaries the walked slice boundaries, ascending
   * @return false when the file's columns are not as expected (nothing was added: read it the
   *     generic way)
   */
  boolean digest(
      FileScanTask task,
      InputFile input,
      boolean window,
      long[] boundaries,
      SliceDigest.Accumulator[] digests) {
    return read(task, input, window, (key, hash) -> digests[sliceOf(boundaries, key)].add(hash));
  }

  /** Receives the key and row hash of each compared row read. */
  interface RowSink {
    void add(long key, long hash);
  }

  /**
   * Hands the key and row hash of each row of the task's part of the file to the sink: the key-only
   * rows, or with {@code window} the rows inside the window (the rows {@link #digest} adds).
   *
   * @return false when the file's columns are not as expected (nothing was handed over: read it the
   *     generic way)
   */
  boolean read(FileScanTask task, InputFile input, boolean window, RowSink sink) {
    ParquetReadOptions options =
        ParquetReadOptions.builder(new PlainParquetConfiguration())
            .withRange(task.start(), task.start() + task.length())
            .build();
    try (ParquetFileReader reader = ParquetFileReader.open(parquetFile(input), options)) {
      MessageType fileSchema = reader.getFileMetaData().getSchema();
      // the columns read, in the order of `read`: key, time, then (window) all in table order
      List<Integer> positions = new ArrayList<>(List.of(keyPosition, timePosition));
      if (window) {
        for (int i = 0; i < columns.size(); i++) {
          positions.add(i);
        }
      }
      List<ColumnDescriptor> descriptors = new ArrayList<>();
      List<ValueText> texts = new ArrayList<>();
      for (int position : positions) {
        ColumnDescriptor column = column(fileSchema, fields.get(position).fieldId());
        if (column == null) {
          return false;
        }
        descriptors.add(column);
        ValueText text = valueText(columns.get(position), fields.get(position), column);
        if (text == null && (window || position == keyPosition)) {
          return false;
        }
        texts.add(text);
      }
      if (!isInteger(descriptors.get(0)) || !timeReadable(descriptors.get(1))) {
        return false;
      }
      List<org.apache.parquet.schema.Type> requestedFields = new ArrayList<>();
      for (ColumnDescriptor descriptor : descriptors) {
        org.apache.parquet.schema.Type field = fileSchema.getType(descriptor.getPath()[0]);
        if (!requestedFields.contains(field)) {
          requestedFields.add(field);
        }
      }
      MessageType requested = new MessageType(fileSchema.getName(), requestedFields);
      reader.setRequestedSchema(requested);
      String createdBy = reader.getFileMetaData().getCreatedBy();
      GroupRecordConverter converter = new GroupRecordConverter(requested);
      List<BlockMetaData> groups = reader.getRowGroups();
      Deletes deletes = deletes(task);
      if (deletes.byPosition()
          && groups.stream().anyMatch(group -> group.getRowIndexOffset() < 0)) {
        return false; // the rows' positions in the file are unknown
      }
      Rows rows = new Rows(window, sink, texts, deletes.any() ? deletes : null);
      PageReadStore pages;
      for (int group = 0; (pages = reader.readNextRowGroup()) != null; group++) {
        ColumnReadStore store =
            new ColumnReadStoreImpl(pages, converter.getRootConverter(), requested, createdBy);
        rows.firstPosition = groups.get(group).getRowIndexOffset();
        if (!window && allBeforeWindow(groups.get(group), descriptors.get(1))) {
          // every row is key-only: the time column is neither decoded nor read row by row
          keyOnlyGroups.increment();
          rows.readKeys(
              pages.getRowCount(),
              store.getColumnReader(requested.getColumnDescription(descriptors.get(0).getPath())));
          continue;
        }
        // one reader per distinct column: the key and time columns are also among all columns
        ColumnReader[] readers = new ColumnReader[descriptors.size()];
        for (int i = 0; i < readers.length; i++) {
          int first = descriptors.indexOf(descriptors.get(i));
          readers[i] =
              first < i
                  ? readers[first]
                  : store.getColumnReader(
                      requested.getColumnDescription(descriptors.get(i).getPath()));
        }
        rows.read(pages.getRowCount(), readers);
      }
      return true;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + task.file().location(), e);
    }
  }

  /**
   * Whether the row group's statistics say that every time is NULL or before the window (so every
   * row of it is key-only); false when the statistics are missing.
   */
  private boolean allBeforeWindow(BlockMetaData group, ColumnDescriptor time) {
    for (ColumnChunkMetaData chunk : group.getColumns()) {
      if (!Arrays.equals(chunk.getPath().toArray(), time.getPath())) {
        continue;
      }
      Statistics<?> statistics = chunk.getStatistics();
      if (statistics == null || statistics.isEmpty()) {
        return false;
      }
      if (!statistics.hasNonNullValue()) {
        return statistics.getNumNulls() == group.getRowCount();
      }
      Object max = statistics.genericGetMax();
      long maxMicros;
      if (timeIsDate && max instanceof Integer days) {
        maxMicros = days * 86_400_000_000L;
      } else if (!timeIsDate && max instanceof Long micros) {
        maxMicros = micros;
      } else {
        return false;
      }
      return maxMicros < windowStartMicros;
    }
    return false;
  }

  /** The per-row loop with its reused buffers (one per file read). */
  private final class Rows {
    private final boolean window;
    private final RowSink sink;
    private final List<ValueText> texts;
    private final CRC32 crc = new CRC32();
    private final TextBuffer text = new TextBuffer();

    /** The deletes of the file, or null when it has none. */
    private final Deletes deletes;

    /** The position in the file of the row group's first row. */
    long firstPosition;

    Rows(boolean window, RowSink sink, List<ValueText> texts, Deletes deletes) {
      this.window = window;
      this.sink = sink;
      this.texts = texts;
      this.deletes = deletes;
    }

    void read(long count, ColumnReader[] readers) {
      ColumnReader keys = readers[0];
      ColumnReader times = readers[1];
      int keyDefined = keys.getDescriptor().getMaxDefinitionLevel();
      int timeDefined = times.getDescriptor().getMaxDefinitionLevel();
      boolean intKey =
          keys.getDescriptor().getPrimitiveType().getPrimitiveTypeName() == PrimitiveTypeName.INT32;
      // distinct readers to advance after each row (key and time may appear twice)
      ColumnReader[] distinct = Arrays.stream(readers).distinct().toArray(ColumnReader[]::new);
      for (long row = 0; row < count; row++) {
        boolean timeNull = times.getCurrentDefinitionLevel() < timeDefined;
        long time = 0;
        if (!timeNull) {
          time = timeIsDate ? times.getInteger() * 86_400_000_000L : times.getLong();
        }
        boolean inWindow = !timeNull && time >= windowStartMicros && time < cutoffMicros;
        boolean keyOnly = timeNull || time < windowStartMicros;
        boolean compared = window ? inWindow : keyOnly;
        long key = 0;
        if (compared) {
          if (keys.getCurrentDefinitionLevel() < keyDefined) {
            throw new IllegalStateException("a NULL key in the lake");
          }
          key = intKey ? keys.getInteger() : keys.getLong();
          compared = deletes == null || !deletes.deleted(firstPosition + row, key);
        }
        if (compared) {
          text.clear();
          if (window) {
            text.append('R');
            for (int i = 2; i < readers.length; i++) {
              text.append(',');
              ValueText value = texts.get(i);
              ColumnReader reader = readers[i];
              if (reader.getCurrentDefinitionLevel()
                  < reader.getDescriptor().getMaxDefinitionLevel()) {
                text.append(NULL_TEXT);
              } else {
                value.append(reader, text);
              }
            }
          } else {
            text.appendLong(key);
          }
          crc.reset();
          crc.update(text.bytes, 0, text.length);
          sink.add(key, crc.getValue());
        } else {
          // skip the values not read explicitly (skip() after a read is a no-op): consume() alone
          // would skip the wrong value
          for (ColumnReader reader : distinct) {
            if (reader != times
                && reader.getCurrentDefinitionLevel()
                    == reader.getDescriptor().getMaxDefinitionLevel()) {
              reader.skip();
            }
          }
        }
        for (ColumnReader reader : distinct) {
          reader.consume();
        }
      }
    }

    /** Adds every row as key-only: the key column alone is read. */
    void readKeys(long count, ColumnReader keys) {
      int keyDefined = keys.getDescriptor().getMaxDefinitionLevel();
      boolean intKey =
          keys.getDescriptor().getPrimitiveType().getPrimitiveTypeName() == PrimitiveTypeName.INT32;
      for (long row = 0; row < count; row++) {
        if (keys.getCurrentDefinitionLevel() < keyDefined) {
          throw new IllegalStateException("a NULL key in the lake");
        }
        long key = intKey ? keys.getInteger() : keys.getLong();
        if (deletes == null || !deletes.deleted(firstPosition + row, key)) {
          text.clear();
          text.appendLong(key);
          crc.reset();
          crc.update(text.bytes, 0, text.length);
          sink.add(key, crc.getValue());
        }
        keys.consume();
      }
    }
  }

  /** The number of boundaries at or below the key: the index of its slice. */
  static int sliceOf(long[] boundaries, long key) {
    int low = 0;
    int high = boundaries.length;
    while (low < high) {
      int middle = (low + high) >>> 1;
      if (boundaries[middle] <= key) {
        low = middle + 1;
      } else {
        high = middle;
      }
    }
    return low;
  }

  /** A growable byte buffer holding one row's UTF-8 text. */
  static final class TextBuffer {
    private byte[] bytes = new byte[256];
    private int length;
    private final byte[] digits = new byte[20];

    void clear() {
      length = 0;
    }

    void append(char ascii) {
      ensure(1);
      bytes[length++] = (byte) ascii;
    }

    void append(byte[] more) {
      append(more, 0, more.length);
    }

    void append(byte[] more, int offset, int count) {
      ensure(count);
      System.arraycopy(more, offset, bytes, length, count);
      length += count;
    }

    /** The decimal text of a long, as {@link Long#toString(long)}. */
    void appendLong(long value) {
      if (value == Long.MIN_VALUE) {
        append(Long.toString(value).getBytes(StandardCharsets.US_ASCII));
        return;
      }
      long rest = value;
      if (rest < 0) {
        append('-');
        rest = -rest;
      }
      int start = digits.length;
      do {
        digits[--start] = (byte) ('0' + rest % 10);
        rest /= 10;
      } while (rest != 0);
      append(digits, start, digits.length - start);
    }

    /** {@code value} as exactly {@code width} digits, zero-padded (value >= 0). */
    void appendPadded(long value, int width) {
      ensure(width);
      long rest = value;
      for (int i = width - 1; i >= 0; i--) {
        bytes[length + i] = (byte) ('0' + rest % 10);
        rest /= 10;
      }
      length += width;
    }

    /** The text of a decimal with this unscaled value and scale, as BigDecimal.toPlainString. */
    void appendDecimal(long unscaled, int scale) {
      if (unscaled == Long.MIN_VALUE) {
        append(
            BigDecimal.valueOf(unscaled, scale)
                .toPlainString()
                .getBytes(StandardCharsets.US_ASCII));
        return;
      }
      long magnitude = Math.abs(unscaled);
      if (unscaled < 0) {
        append('-');
      }
      if (scale == 0) {
        appendLong(magnitude);
        return;
      }
      long factor = 1;
      for (int i = 0; i < scale; i++) {
        factor *= 10;
      }
      appendLong(magnitude / factor);
      append('.');
      appendPadded(magnitude % factor, scale);
    }

    private void ensure(int more) {
      if (length + more > bytes.length) {
        bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, length + more));
      }
    }

    byte[] bytes() {
      return Arrays.copyOf(bytes, length);
    }
  }

  /** Appends the normalized text of one non-null value of a column. */
  interface ValueText {
    void append(ColumnReader reader, TextBuffer text);
  }

  /**
   * The text builder of a column, when its MySQL kind, lake type and Parquet type are ones this
   * class formats; else null.
   */
  static ValueText valueText(
      VerifyColumn column, Types.NestedField field, ColumnDescriptor descriptor) {
    if (descriptor.getMaxRepetitionLevel() != 0) {
      return null;
    }
    PrimitiveType primitive = descriptor.getPrimitiveType();
    PrimitiveTypeName physical = primitive.getPrimitiveTypeName();
    LogicalTypeAnnotation logical = primitive.getLogicalTypeAnnotation();
    Type type = field.type();
    switch (column.kind()) {
      case INTEGER:
        if ((type.typeId() == Type.TypeID.INTEGER || type.typeId() == Type.TypeID.LONG)
            && isInteger(descriptor)) {
          return physical == PrimitiveTypeName.INT32
              ? (reader, text) -> text.appendLong(reader.getInteger())
              : (reader, text) -> text.appendLong(reader.getLong());
        }
        return null;
      case DECIMAL:
        if (type.typeId() != Type.TypeID.DECIMAL
            || ((Types.DecimalType) type).scale() != column.scale()
            || !(logical instanceof LogicalTypeAnnotation.DecimalLogicalTypeAnnotation decimal)
            || decimal.getScale() != column.scale()) {
          return null;
        }
        int scale = column.scale();
        switch (physical) {
          case INT32:
            return (reader, text) -> text.appendDecimal(reader.getInteger(), scale);
          case INT64:
            return (reader, text) -> text.appendDecimal(reader.getLong(), scale);
          case FIXED_LEN_BYTE_ARRAY:
          case BINARY:
            return (reader, text) ->
                text.append(
                    new BigDecimal(new BigInteger(reader.getBinary().getBytes()), scale)
                        .toPlainString()
                        .getBytes(StandardCharsets.US_ASCII));
          default:
            return null;
        }
      case STRING:
        if (type.typeId() != Type.TypeID.STRING
            || physical != PrimitiveTypeName.BINARY
            || !(logical instanceof LogicalTypeAnnotation.StringLogicalTypeAnnotation)) {
          return null;
        }
        return (reader, text) -> {
          Binary binary = reader.getBinary();
          byte[] bytes = binary.getBytesUnsafe();
          int offset = 0;
          int length = bytes.length;
          int characters = 0;
          for (int i = offset; i < offset + length; i++) {
            // every UTF-8 byte but a continuation byte starts a code point
            if ((bytes[i] & 0xC0) != 0x80) {
              characters++;
            }
          }
          text.appendLong(characters);
          text.append(':');
          text.append(bytes, offset, length);
        };
      case DATETIME:
      case TIMESTAMP:
        if (type.typeId() == Type.TypeID.TIMESTAMP && isTimestampMicros(descriptor)) {
          return (reader, text) -> appendDateTime(reader.getLong(), text);
        }
        return null;
      case DATE:
        if (type.typeId() == Type.TypeID.DATE
            && physical == PrimitiveTypeName.INT32
            && logical instanceof LogicalTypeAnnotation.DateLogicalTypeAnnotation) {
          return (reader, text) -> appendDay(reader.getInteger(), text);
        }
        return null;
      default:
        return null;
    }
  }

  /** {@code YYYY-MM-DD HH:MM:SS.ffffff} of microseconds since the epoch, read as UTC. */
  static void appendDateTime(long micros, TextBuffer text) {
    long seconds = Math.floorDiv(micros, 1_000_000L);
    int fraction = (int) Math.floorMod(micros, 1_000_000L);
    long days = Math.floorDiv(seconds, 86_400L);
    int secondOfDay = (int) Math.floorMod(seconds, 86_400L);
    if (!appendDate(days, text)) {
      LocalDateTime time = LocalDateTime.ofEpochSecond(seconds, fraction * 1_000, ZoneOffset.UTC);
      text.append(ColumnKind.DATETIME.text(time, 0).getBytes(StandardCharsets.US_ASCII));
      return;
    }
    text.append(' ');
    text.appendPadded(secondOfDay / 3600, 2);
    text.append(':');
    text.appendPadded(secondOfDay / 60 % 60, 2);
    text.append(':');
    text.appendPadded(secondOfDay % 60, 2);
    text.append('.');
    text.appendPadded(fraction, 6);
  }

  /** {@code YYYY-MM-DD} of days since the epoch, as {@link LocalDate#toString()}. */
  static void appendDay(long days, TextBuffer text) {
    if (!appendDate(days, text)) {
      text.append(LocalDate.ofEpochDay(days).toString().getBytes(StandardCharsets.US_ASCII));
    }
  }

  /**
   * Appends {@code YYYY-MM-DD} of days since the epoch (proleptic Gregorian, the civil-from-days
   * arithmetic of {@link LocalDate#ofEpochDay} without the object) when the year is 0..9999;
   * returns false (nothing appended) for any other year.
   */
  private static boolean appendDate(long epochDay, TextBuffer text) {
    long zeroDay = epochDay + 719_468L; // days since 0000-03-01
    long era = Math.floorDiv(zeroDay, 146_097L);
    long dayOfEra = zeroDay - era * 146_097L;
    long yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365;
    long dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100);
    long monthFromMarch = (5 * dayOfYear + 2) / 153;
    long day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1;
    long month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9;
    long year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
    if (year < 0 || year > 9999) {
      return false;
    }
    text.appendPadded(year, 4);
    text.append('-');
    text.appendPadded(month, 2);
    text.append('-');
    text.appendPadded(day, 2);
    return true;
  }

  private static boolean isInteger(ColumnDescriptor column) {
    PrimitiveType type = column.getPrimitiveType();
    PrimitiveTypeName physical = type.getPrimitiveTypeName();
    LogicalTypeAnnotation logical = type.getLogicalTypeAnnotation();
    boolean plain =
        logical == null
            || (logical instanceof LogicalTypeAnnotation.IntLogicalTypeAnnotation integer
                && integer.isSigned());
    return column.getMaxRepetitionLevel() == 0
        && plain
        && (physical == PrimitiveTypeName.INT64 || physical == PrimitiveTypeName.INT32);
  }

  private static boolean isTimestampMicros(ColumnDescriptor column) {
    PrimitiveType type = column.getPrimitiveType();
    return type.getPrimitiveTypeName() == PrimitiveTypeName.INT64
        && type.getLogicalTypeAnnotation()
            instanceof LogicalTypeAnnotation.TimestampLogicalTypeAnnotation timestamp
        && timestamp.getUnit() == LogicalTypeAnnotation.TimeUnit.MICROS;
  }

  private boolean timeReadable(ColumnDescriptor column) {
    if (column.getMaxRepetitionLevel() != 0) {
      return false;
    }
    if (timeIsDate) {
      PrimitiveType type = column.getPrimitiveType();
      return type.getPrimitiveTypeName() == PrimitiveTypeName.INT32
          && type.getLogicalTypeAnnotation()
              instanceof LogicalTypeAnnotation.DateLogicalTypeAnnotation;
    }
    return isTimestampMicros(column);
  }

  /** The top-level primitive column with this Iceberg field id, or null. */
  private static ColumnDescriptor column(MessageType schema, int fieldId) {
    for (ColumnDescriptor column : schema.getColumns()) {
      if (column.getPath().length != 1) {
        continue;
      }
      org.apache.parquet.schema.Type field = schema.getType(column.getPath()[0]);
      if (field.getId() != null && field.getId().intValue() == fieldId) {
        return column;
      }
    }
    return null;
  }

  /** Microseconds since the epoch of a wall-clock time read as UTC (as Iceberg stores it). */
  private static long micros(LocalDateTime time) {
    return Math.addExact(
        Math.multiplyExact(time.toEpochSecond(ZoneOffset.UTC), 1_000_000L), time.getNano() / 1_000);
  }

  private static org.apache.parquet.io.InputFile parquetFile(InputFile input) {
    requireNonNull(input, "input is null");
    return new org.apache.parquet.io.InputFile() {
      @Override
      public long getLength() {
        return input.getLength();
      }

      @Override
      public SeekableInputStream newStream() {
        org.apache.iceberg.io.SeekableInputStream stream = input.newStream();
        return new DelegatingSeekableInputStream(stream) {
          @Override
          public long getPos() throws IOException {
            return stream.getPos();
          }

          @Override
          public void seek(long newPos) throws IOException {
            stream.seek(newPos);
          }
        };
      }
    };
  }
}

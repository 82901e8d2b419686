package dev.floe.iceberg.optimize;

import static java.util.Objects.requireNonNull;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.PriorityQueue;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.SortOrderComparators;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.data.GenericAppenderFactory;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.formats.FormatModelRegistry;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileAppender;

/**
 * Sorts whole rows by the table's sort order in bounded memory: rows collect in a buffer of about
 * {@code memoryBytes} (by an estimate of each row's heap size), a full buffer is sorted and spilled
 * to a local Avro run file, and reading merges the runs ({@link ExternalSorter#MAX_MERGE_WIDTH} at
 * a time, in passes). Not thread-safe; close it to delete its run files.
 */
final class RowSorter implements Closeable {

  private final Schema schema;
  private final Comparator<StructLike> order;
  private final Path spillDirectory;
  private final long memoryBytes;
  private final List<Record> buffer = new ArrayList<>();
  private final List<Path> runs = new ArrayList<>();
  private final List<CloseableIterable<Record>> open = new ArrayList<>();
  private long bufferedBytes;
  private int spills;

  RowSorter(Schema schema, SortOrder sortOrder, Path spillDirectory, long memoryBytes) {
    this.schema = requireNonNull(schema, "schema is null");
    this.order = SortOrderComparators.forSchema(schema, sortOrder);
    this.spillDirectory = requireNonNull(spillDirectory, "spillDirectory is null");
    this.memoryBytes = memoryBytes;
  }

  /**
   * @param estimatedBytes the row's estimated heap size
   */
  void add(Record row, long estimatedBytes) {
    buffer.add(row);
    bufferedBytes += estimatedBytes;
    if (bufferedBytes >= memoryBytes) {
      spill(buffer);
    }
  }

  int spilledRuns() {
    return spills;
  }

  /** The rows in sort order; call once, after the last {@link #add}. */
  Iterator<Record> sorted() {
    buffer.sort(order);
    if (runs.isEmpty()) {
      return buffer.iterator();
    }
    if (!buffer.isEmpty()) {
      spill(buffer);
    }
    while (runs.size() > ExternalSorter.MAX_MERGE_WIDTH) {
      List<Path> batch = new ArrayList<>(runs.subList(0, ExternalSorter.MAX_MERGE_WIDTH));
      runs.subList(0, ExternalSorter.MAX_MERGE_WIDTH).clear();
      Path merged = newRunFile();
      try (FileAppender<Record> out = appender(merged)) {
        merge(batch).forEachRemaining(out::add);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot merge row runs in " + spillDirectory, e);
      }
      closeOpen();
      batch.forEach(RowSorter::deleteQuietly);
      runs.add(merged);
    }
    return merge(runs);
  }

  private Iterator<Record> merge(List<Path> files) {
    record Head(Record row, Iterator<Record> rest) {}
    PriorityQueue<Head> queue =
        new PriorityQueue<>((left, right) -> order.compare(left.row, right.row));
    for (Path file : files) {
      CloseableIterable<Record> rows =
          FormatModelRegistry.<Record, Schema>readBuilder(
                  FileFormat.AVRO, Record.class, org.apache.iceberg.Files.localInput(file.toFile()))
              .project(schema)
              .build();
      open.add(rows);
      Iterator<Record> iterator = rows.iterator();
      if (iterator.hasNext()) {
        queue.add(new Head(iterator.next(), iterator));
      }
    }
    return new Iterator<>() {
      @Override
      public boolean hasNext() {
        return !queue.isEmpty();
      }

      @Override
      public Record next() {
        Head head = queue.poll();
        if (head == null) {
          throw new NoSuchElementException();
        }
        if (head.rest.hasNext()) {
          queue.add(new Head(head.rest.next(), head.rest));
        }
        return head.row;
      }
    };
  }

  private void spill(List<Record> rows) {
    rows.sort(order);
    Path run = newRunFile();
    try (FileAppender<Record> out = appender(run)) {
      out.addAll(rows);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot spill sorted rows to " + run, e);
    }
    runs.add(run);
    spills++;
    rows.clear();
    bufferedBytes = 0;
  }

  private FileAppender<Record> appender(Path file) {
    return new GenericAppenderFactory(schema)
        .newAppender(org.apache.iceberg.Files.localOutput(file.toFile()), FileFormat.AVRO);
  }

  private Path newRunFile() {
    try {
      Files.createDirectories(spillDirectory);
      Path file = Files.createTempFile(spillDirectory, "row-run-", ".avro");
      Files.delete(file); // the appender creates it
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a row run in " + spillDirectory, e);
    }
  }

  private void closeOpen() {
    for (CloseableIterable<Record> rows : open) {
      try {
        rows.close();
      } catch (IOException e) {
        // closing a local read-only file cannot lose data
      }
    }
    open.clear();
  }

  @Override
  public void close() {
    closeOpen();
    buffer.clear();
    runs.forEach(RowSorter::deleteQuietly);
    runs.clear();
  }

  private static void deleteQuietly(Path file) {
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      // a leftover run file in the spill directory is harmless; the directory is temporary
    }
  }
}

package dev.floe.iceberg.optimize;

import static java.util.Objects.requireNonNull;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.PriorityQueue;

/**
 * Sorts entries {@code (key bytes, a, b)} by key (unsigned bytes), then {@code a}, then {@code b},
 * in bounded memory: entries collect in a buffer of about {@code memoryBytes}; a full buffer is
 * sorted and spilled to a run file in the spill directory; reading merges the runs (at most {@link
 * #MAX_MERGE_WIDTH} at a time, in passes). Heap use: the buffer plus a 64 KiB read buffer per
 * merged run. Not thread-safe; close it to delete its run files.
 */
final class ExternalSorter implements Closeable {

  /** One sorted entry. */
  record Entry(byte[] key, long a, long b) {}

  static final int MAX_MERGE_WIDTH = 64;
  private static final int IO_BUFFER = 64 * 1024;

  /** Heap of an entry beyond its key bytes: object headers, the array header, two longs. */
  private static final int ENTRY_OVERHEAD = 64;

  static final Comparator<Entry> ORDER =
      (left, right) -> {
        int byKey = Arrays.compareUnsigned(left.key, right.key);
        if (byKey != 0) {
          return byKey;
        }
        int byA = Long.compare(left.a, right.a);
        return byA != 0 ? byA : Long.compare(left.b, right.b);
      };

  private final Path spillDirectory;
  private final long memoryBytes;
  private final List<Entry> buffer = new ArrayList<>();
  private final List<Path> runs = new ArrayList<>();
  private long bufferedBytes;
  private long entries;
  private int spills;
  private boolean finished;

  ExternalSorter(Path spillDirectory, long memoryBytes) {
    this.spillDirectory = requireNonNull(spillDirectory, "spillDirectory is null");
    this.memoryBytes = memoryBytes;
  }

  void add(byte[] key, long a, long b) {
    if (finished) {
      throw new IllegalStateException("the sorter is already being read");
    }
    buffer.add(new Entry(key, a, b));
    entries++;
    bufferedBytes += key.length + ENTRY_OVERHEAD;
    if (bufferedBytes >= memoryBytes) {
      spill();
    }
  }

  long size() {
    return entries;
  }

  /** How many run files were written (0 when everything fit in memory). */
  int spilledRuns() {
    return spills;
  }

  /** The entries in order; call once, after the last {@link #add}. */
  CloseableIterator sorted() {
    finished = true;
    if (runs.isEmpty()) {
      buffer.sort(ORDER);
      Iterator<Entry> iterator = buffer.iterator();
      return new CloseableIterator() {
        @Override
        public boolean hasNext() {
          return iterator.hasNext();
        }

        @Override
        public Entry next() {
          return iterator.next();
        }

        @Override
        public void close() {}
      };
    }
    if (!buffer.isEmpty()) {
      spill();
    }
    while (runs.size() > MAX_MERGE_WIDTH) {
      List<Path> batch = new ArrayList<>(runs.subList(0, MAX_MERGE_WIDTH));
      runs.subList(0, MAX_MERGE_WIDTH).clear();
      Path merged = newRunFile();
      try (MergingIterator merging = new MergingIterator(batch);
          DataOutputStream out = output(merged)) {
        while (merging.hasNext()) {
          write(out, merging.next());
        }
      } catch (IOException e) {
        throw new UncheckedIOException("cannot merge sort runs in " + spillDirectory, e);
      }
      batch.forEach(ExternalSorter::deleteQuietly);
      runs.add(merged);
    }
    return new MergingIterator(runs);
  }

  private void spill() {
    buffer.sort(ORDER);
    Path run = newRunFile();
    try (DataOutputStream out = output(run)) {
      for (Entry entry : buffer) {
        write(out, entry);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot spill a sort run to " + run, e);
    }
    runs.add(run);
    spills++;
    buffer.clear();
    bufferedBytes = 0;
  }

  private Path newRunFile() {
    try {
      Files.createDirectories(spillDirectory);
      return Files.createTempFile(spillDirectory, "sort-run-", ".bin");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a sort run in " + spillDirectory, e);
    }
  }

  private static DataOutputStream output(Path file) throws IOException {
    return new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(file), IO_BUFFER));
  }

  private static void write(DataOutputStream out, Entry entry) throws IOException {
    out.writeInt(entry.key.length);
    out.write(entry.key);
    out.writeLong(entry.a);
    out.writeLong(entry.b);
  }

  @Override
  public void close() {
    buffer.clear();
    runs.forEach(ExternalSorter::deleteQuietly);
    runs.clear();
  }

  private static void deleteQuietly(Path file) {
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      // a leftover run file in the spill directory is harmless; the directory is temporary
    }
  }

  /** An iterator over sorted entries that holds files open until closed. */
  interface CloseableIterator extends Iterator<Entry>, Closeable {
    @Override
    void close();
  }

  /** k-way merge of run files. */
  private static final class MergingIterator implements CloseableIterator {
    private final List<RunReader> readers = new ArrayList<>();
    private final PriorityQueue<RunReader> queue =
        new PriorityQueue<>((left, right) -> ORDER.compare(left.current, right.current));

    MergingIterator(List<Path> runs) {
      try {
        for (Path run : runs) {
          RunReader reader = new RunReader(run);
          readers.add(reader);
          if (reader.advance()) {
            queue.add(reader);
          }
        }
      } catch (IOException e) {
        close();
        throw new UncheckedIOException("cannot read sort runs", e);
      }
    }

    @Override
    public boolean hasNext() {
      return !queue.isEmpty();
    }

    @Override
    public Entry next() {
      RunReader reader = queue.poll();
      if (reader == null) {
        throw new NoSuchElementException();
      }
      Entry entry = reader.current;
      try {
        if (reader.advance()) {
          queue.add(reader);
        }
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read sort run " + reader.file, e);
      }
      return entry;
    }

    @Override
    public void close() {
      for (RunReader reader : readers) {
        try {
          reader.in.close();
        } catch (IOException e) {
          // closing a local read-only file cannot lose data
        }
      }
    }
  }

  private static final class RunReader {
    final Path file;
    final DataInputStream in;
    Entry current;

    RunReader(Path file) throws IOException {
      this.file = file;
      this.in = new DataInputStream(new BufferedInputStream(Files.newInputStream(file), IO_BUFFER));
    }

    boolean advance() throws IOException {
      int length;
      try {
        length = in.readInt();
      } catch (EOFException e) {
        current = null;
        return false;
      }
      byte[] key = new byte[length];
      in.readFully(key);
      current = new Entry(key, in.readLong(), in.readLong());
      return true;
    }
  }
}

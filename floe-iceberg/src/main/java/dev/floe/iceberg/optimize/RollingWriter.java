package dev.floe.iceberg.optimize;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericAppenderFactory;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;

/**
 * Writes rows of one partition to Parquet data files of about the target size: a new file starts
 * once the current one reaches it. Not thread-safe. On failure, {@link #abort()} deletes what was
 * written.
 */
final class RollingWriter implements Closeable {

  private static final int CHECK_EVERY_ROWS = 1000;

  private final Table table;
  private final GenericAppenderFactory appenders;
  private final OutputFileFactory files;
  private final PartitionSpec spec;
  private final StructLike partition;
  private final long targetFileSize;
  private final List<DataFile> written = new ArrayList<>();
  private DataWriter<Record> current;
  private long currentRows;

  RollingWriter(
      Table table,
      GenericAppenderFactory appenders,
      OutputFileFactory files,
      PartitionSpec spec,
      StructLike partition,
      long targetFileSize) {
    this.table = table;
    this.appenders = appenders;
    this.files = files;
    this.spec = spec;
    this.partition = partition;
    this.targetFileSize = targetFileSize;
  }

  void write(Record row) {
    if (current == null) {
      current =
          appenders.newDataWriter(
              newOutputFile(files, spec, partition), FileFormat.PARQUET, partition);
      currentRows = 0;
    }
    current.write(row);
    currentRows++;
    if (currentRows % CHECK_EVERY_ROWS == 0 && current.length() >= targetFileSize) {
      closeCurrent();
    }
  }

  private void closeCurrent() {
    try {
      current.close();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot close data file " + current, e);
    }
    written.add(current.toDataFile());
    current = null;
  }

  /** The files written; closes the open one. */
  List<DataFile> finish() {
    if (current != null) {
      closeCurrent();
    }
    return List.copyOf(written);
  }

  /**
   * A new file in the partition's data directory. An unpartitioned table's files go straight into
   * {@code data/}: Iceberg's location provider joins an empty partition path as {@code data//NAME},
   * which a file system reads as {@code data/NAME} but object stores keep as another key (and
   * S3-compatible servers may refuse as an ambiguous URI).
   */
  static EncryptedOutputFile newOutputFile(
      OutputFileFactory files, PartitionSpec spec, StructLike partition) {
    return spec.isUnpartitioned() ? files.newOutputFile() : files.newOutputFile(spec, partition);
  }

  /** Deletes every file written so far. */
  void abort() {
    if (current != null) {
      try {
        current.close();
        written.add(current.toDataFile());
      } catch (IOException | RuntimeException e) {
        // the file may be partial; it is deleted below by path when known
      }
      current = null;
    }
    for (DataFile file : written) {
      table.io().deleteFile(file.location());
    }
    written.clear();
  }

  @Override
  public void close() {
    finish();
  }
}

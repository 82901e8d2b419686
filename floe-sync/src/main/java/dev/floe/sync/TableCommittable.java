package dev.floe.sync;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.Optional;
import org.apache.iceberg.io.WriteResult;

/**
 * What a writer subtask hands the committer for one checkpoint: the files it wrote for one table
 * and schema version (none for a progress-only message) and how far in the binlog it had read.
 */
final class TableCommittable implements Serializable {

  private static final long serialVersionUID = 1L;

  private final long checkpointId;
  private final String table;
  private final int schemaVersion;
  private final String tableUuid;
  private final boolean truncate;
  private final byte[] writeResult;
  private final String binlogFile;
  private final long binlogPosition;
  private final long sourceMillis;

  private TableCommittable(
      long checkpointId,
      String table,
      int schemaVersion,
      String tableUuid,
      boolean truncate,
      byte[] writeResult,
      String binlogFile,
      long binlogPosition,
      long sourceMillis) {
    this.checkpointId = checkpointId;
    this.table = table;
    this.schemaVersion = schemaVersion;
    this.tableUuid = tableUuid;
    this.truncate = truncate;
    this.writeResult = writeResult;
    this.binlogFile = binlogFile;
    this.binlogPosition = binlogPosition;
    this.sourceMillis = sourceMillis;
  }

  /**
   * Files of one table and schema version, closed but not yet handed on; or, with {@code truncate}
   * and no result, a TRUNCATE TABLE that empties the table before the files of that version.
   */
  record Pending(
      String table, int schemaVersion, String tableUuid, WriteResult result, boolean truncate) {
    Pending(String table, int schemaVersion, String tableUuid, WriteResult result) {
      this(table, schemaVersion, tableUuid, result, false);
    }
  }

  static TableCommittable files(
      long checkpointId, Pending files, BinlogPosition position, long sourceMillis) {
    return new TableCommittable(
        checkpointId,
        files.table(),
        files.schemaVersion(),
        files.tableUuid(),
        files.truncate(),
        files.truncate() ? new byte[0] : serialize(files.result()),
        position.file(),
        position.position(),
        sourceMillis);
  }

  static TableCommittable progress(long checkpointId, BinlogPosition position, long sourceMillis) {
    return new TableCommittable(
        checkpointId,
        "",
        0,
        "",
        false,
        new byte[0],
        position.file(),
        position.position(),
        sourceMillis);
  }

  long checkpointId() {
    return checkpointId;
  }

  /** Whether this empties the table (a TRUNCATE TABLE) before the files of its version. */
  boolean truncate() {
    return truncate;
  }

  /** The Iceberg table ({@code namespace.table}), empty for progress-only messages. */
  Optional<String> table() {
    return table.isEmpty() ? Optional.empty() : Optional.of(table);
  }

  /** The table's schema version the files were written with. */
  int schemaVersion() {
    return schemaVersion;
  }

  /** The UUID of the Iceberg table the files were written for. */
  String tableUuid() {
    return tableUuid;
  }

  WriteResult writeResult() {
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(writeResult))) {
      return (WriteResult) in.readObject();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read a write result", e);
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException("cannot read a write result", e);
    }
  }

  BinlogPosition binlogPosition() {
    return new BinlogPosition(binlogFile, binlogPosition);
  }

  long sourceMillis() {
    return sourceMillis;
  }

  private static byte[] serialize(WriteResult result) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(result);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot serialize a write result", e);
    }
    return bytes.toByteArray();
  }
}

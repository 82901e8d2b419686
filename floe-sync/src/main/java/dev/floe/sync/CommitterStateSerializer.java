package dev.floe.sync;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * The committer's state in Floe's own binary format (docs/sync.md, "State format"). {@link #write}
 * frames it as {@code MAGIC, VERSION, payload}; {@link #read} reads every version up to {@link
 * #VERSION}. State version 0 (Java serialization, before this format) is read by {@link
 * LegacyCommitterState}. Stateless and thread-safe.
 *
 * <p>Version 2 payload (the Kafka sync's offsets), big-endian, strings as a length and UTF-8 bytes;
 * progress in {@link SourceProgressFormat} (a tag byte, then a binlog position or Kafka offsets):
 *
 * <pre>
 * syncId, committed progress, checkpoint count, per checkpoint (ascending id):
 *   id (long), progress, source millis (long), table count,
 *   per table: as in version 1
 * </pre>
 *
 * <p>Version 1 payload (binlog positions only), still read:
 *
 * <pre>
 * syncId, checkpoint count, per checkpoint (ascending id):
 *   id (long), binlog file, binlog position (long), source millis (long), table count,
 *   per table (sorted): name, has uuid (boolean), uuid if so,
 *     truncated schema versions (count, ints),
 *     schema version count, per version: version (int), result count,
 *       per result: data files, delete files, referenced data files (count, strings each;
 *       files in Iceberg's content-file JSON, see {@link PendingFiles})
 * </pre>
 */
final class CommitterStateSerializer implements SimpleVersionedSerializer<CommitterState> {

  static final CommitterStateSerializer INSTANCE = new CommitterStateSerializer();

  /** "FLCS": Floe committer state; Java serialization begins with 0xACED instead. */
  static final int MAGIC = 0x464C4353;

  /** The version this Floe writes and the newest it reads. */
  static final int VERSION = 2;

  private CommitterStateSerializer() {}

  @Override
  public int getVersion() {
    return VERSION;
  }

  /** The state framed with {@link #MAGIC} and {@link #VERSION}, as the committer keeps it. */
  static byte[] write(CommitterState state) {
    try {
      byte[] payload = INSTANCE.serialize(state);
      ByteArrayOutputStream bytes = new ByteArrayOutputStream(payload.length + 8);
      DataOutputStream out = new DataOutputStream(bytes);
      out.writeInt(MAGIC);
      out.writeInt(VERSION);
      out.write(payload);
      out.flush();
      return bytes.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the committer state", e);
    }
  }

  /** Whether the bytes are state version 0 (Java serialization). */
  static boolean isJavaSerialized(byte[] bytes) {
    return bytes.length >= 2 && (bytes[0] & 0xFF) == 0xAC && (bytes[1] & 0xFF) == 0xED;
  }

  /**
   * @throws IllegalStateException when the bytes are not Floe's committer state, or are of a newer
   *     version than this Floe reads
   */
  static CommitterState read(byte[] bytes) {
    if (bytes.length < 8) {
      throw new IllegalStateException(
          "the committer state in this checkpoint has " + bytes.length + " bytes, too few");
    }
    int magic =
        ((bytes[0] & 0xFF) << 24)
            | ((bytes[1] & 0xFF) << 16)
            | ((bytes[2] & 0xFF) << 8)
            | (bytes[3] & 0xFF);
    if (magic != MAGIC) {
      throw new IllegalStateException(
          "the committer state in this checkpoint is not Floe's: it begins with 0x"
              + Integer.toHexString(magic)
              + ", not 0x"
              + Integer.toHexString(MAGIC));
    }
    int version =
        ((bytes[4] & 0xFF) << 24)
            | ((bytes[5] & 0xFF) << 16)
            | ((bytes[6] & 0xFF) << 8)
            | (bytes[7] & 0xFF);
    try {
      return INSTANCE.deserialize(version, java.util.Arrays.copyOfRange(bytes, 8, bytes.length));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the committer state in this checkpoint", e);
    }
  }

  @Override
  public byte[] serialize(CommitterState state) throws IOException {
    return serialize(state, VERSION);
  }

  /** The payload in a given version (1 only for tests of reading it; it holds binlog positions). */
  static byte[] serialize(CommitterState state, int format) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    writeString(out, state.syncId());
    if (format >= 2) {
      SourceProgressFormat.write(state.committed(), out);
    }
    out.writeInt(state.checkpoints().size());
    for (Map.Entry<Long, PendingCheckpoint> entry : state.checkpoints().entrySet()) {
      PendingCheckpoint checkpoint = entry.getValue();
      out.writeLong(entry.getKey());
      if (format >= 2) {
        SourceProgressFormat.write(checkpoint.position, out);
      } else {
        BinlogPosition binlog = (BinlogPosition) checkpoint.position;
        writeString(out, binlog.file());
        out.writeLong(binlog.position());
      }
      out.writeLong(checkpoint.sourceMillis);
      TreeSet<String> tables = new TreeSet<>(checkpoint.results.keySet());
      tables.addAll(checkpoint.tableUuids.keySet());
      tables.addAll(checkpoint.truncations.keySet());
      out.writeInt(tables.size());
      for (String table : tables) {
        writeString(out, table);
        String uuid = checkpoint.tableUuids.get(table);
        out.writeBoolean(uuid != null);
        if (uuid != null) {
          writeString(out, uuid);
        }
        TreeSet<Integer> truncated = checkpoint.truncations.getOrDefault(table, new TreeSet<>());
        out.writeInt(truncated.size());
        for (int version : truncated) {
          out.writeInt(version);
        }
        TreeMap<Integer, List<PendingFiles>> versions =
            checkpoint.results.getOrDefault(table, new TreeMap<>());
        out.writeInt(versions.size());
        for (Map.Entry<Integer, List<PendingFiles>> version : versions.entrySet()) {
          out.writeInt(version.getKey());
          out.writeInt(version.getValue().size());
          for (PendingFiles files : version.getValue()) {
            writeStrings(out, files.dataFiles());
            writeStrings(out, files.deleteFiles());
            writeStrings(out, files.referencedDataFiles());
          }
        }
      }
    }
    out.flush();
    return bytes.toByteArray();
  }

  @Override
  public CommitterState deserialize(int version, byte[] serialized) throws IOException {
    if (version < 1 || version > VERSION) {
      throw new IllegalStateException(
          "the committer state in this checkpoint has state version "
              + version
              + "; this Floe reads versions 0 to "
              + VERSION
              + ". Restore it with the Floe that wrote it (or a newer one).");
    }
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized));
    String syncId = readString(in);
    SourceProgress committed = version >= 2 ? SourceProgressFormat.read(in) : SourceProgress.NONE;
    NavigableMap<Long, PendingCheckpoint> checkpoints = new TreeMap<>();
    int checkpointCount = in.readInt();
    for (int c = 0; c < checkpointCount; c++) {
      long id = in.readLong();
      PendingCheckpoint checkpoint = new PendingCheckpoint();
      checkpoint.position =
          version >= 2
              ? SourceProgressFormat.read(in)
              : new BinlogPosition(readString(in), in.readLong());
      checkpoint.sourceMillis = in.readLong();
      int tableCount = in.readInt();
      for (int t = 0; t < tableCount; t++) {
        String table = readString(in);
        if (in.readBoolean()) {
          checkpoint.tableUuids.put(table, readString(in));
        }
        int truncations = in.readInt();
        for (int i = 0; i < truncations; i++) {
          checkpoint.addTruncation(table, in.readInt());
        }
        int versions = in.readInt();
        for (int v = 0; v < versions; v++) {
          int schemaVersion = in.readInt();
          int results = in.readInt();
          for (int r = 0; r < results; r++) {
            checkpoint.addFiles(
                table,
                schemaVersion,
                new PendingFiles(readStrings(in), readStrings(in), readStrings(in)));
          }
        }
      }
      checkpoints.put(id, checkpoint);
    }
    if (in.available() > 0) {
      throw new IOException(
          "the committer state has " + in.available() + " bytes after its last checkpoint");
    }
    return new CommitterState(syncId, committed, checkpoints);
  }

  private static void writeString(DataOutputStream out, String value) throws IOException {
    byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
    out.writeInt(bytes.length);
    out.write(bytes);
  }

  private static String readString(DataInputStream in) throws IOException {
    int length = in.readInt();
    if (length < 0 || length > in.available()) {
      throw new IOException("a string of " + length + " bytes in the committer state is cut off");
    }
    byte[] bytes = new byte[length];
    in.readFully(bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }

  private static void writeStrings(DataOutputStream out, List<String> values) throws IOException {
    out.writeInt(values.size());
    for (String value : values) {
      writeString(out, value);
    }
  }

  private static List<String> readStrings(DataInputStream in) throws IOException {
    int count = in.readInt();
    if (count < 0 || count > in.available()) {
      throw new IOException("a list of " + count + " strings in the committer state is cut off");
    }
    List<String> values = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      values.add(readString(in));
    }
    return values;
  }
}

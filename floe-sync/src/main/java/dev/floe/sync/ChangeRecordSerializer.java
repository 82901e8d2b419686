package dev.floe.sync;

import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.TypeSerializerSingleton;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.types.StringValue;

/**
 * Serializes {@link ChangeRecord}s between Flink operators (and in unaligned checkpoints' in-flight
 * data): every field explicitly and a tag byte per value for exactly the Java types {@link
 * ValueConverter} produces, so nothing depends on Kryo or on reflection over JDK classes.
 *
 * <p>Format 2 (this one, snapshot {@link SnapshotV2}) writes the source position with a tag byte
 * (binlog file and position, or Kafka topic, partition and offset); format 1 (snapshot {@link
 * Snapshot}, before the Kafka sync) wrote a binlog file and position, and is still read by {@link
 * #FORMAT_1}, which Flink migrates from. A change of this format needs a new snapshot class.
 */
public final class ChangeRecordSerializer extends TypeSerializerSingleton<ChangeRecord> {

  private static final long serialVersionUID = 1L;

  public static final ChangeRecordSerializer INSTANCE = new ChangeRecordSerializer(2);

  /** Reads (and writes) format 1: binlog positions only. */
  static final ChangeRecordSerializer FORMAT_1 = new ChangeRecordSerializer(1);

  private static final byte BINLOG = 0;
  private static final byte KAFKA = 1;

  private final int format;

  private ChangeRecordSerializer(int format) {
    this.format = format;
  }

  /** Format 1's snapshot, kept to restore it: its serializer reads binlog positions only. */
  public static final class Snapshot extends SimpleTypeSerializerSnapshot<ChangeRecord> {
    public Snapshot() {
      super(() -> FORMAT_1);
    }
  }

  /** What Flink keeps of this serializer (format 2) in a checkpoint, to restore it. */
  public static final class SnapshotV2 extends SimpleTypeSerializerSnapshot<ChangeRecord> {
    public SnapshotV2() {
      super(() -> INSTANCE);
    }

    @Override
    public org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility<ChangeRecord>
        resolveSchemaCompatibility(TypeSerializerSnapshot<ChangeRecord> old) {
      return old instanceof Snapshot
          ? org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility
              .compatibleAfterMigration()
          : super.resolveSchemaCompatibility(old);
    }
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof ChangeRecordSerializer that && format == that.format;
  }

  @Override
  public int hashCode() {
    return format;
  }

  private static final byte NULL = 0;
  private static final byte INTEGER = 1;
  private static final byte LONG = 2;
  private static final byte FLOAT = 3;
  private static final byte DOUBLE = 4;
  private static final byte BOOLEAN = 5;
  private static final byte STRING = 6;
  private static final byte DECIMAL = 7;
  private static final byte DATE = 8;
  private static final byte TIME = 9;
  private static final byte TIMESTAMP = 10;
  private static final byte TIMESTAMP_TZ = 11;
  private static final byte BINARY = 12;

  @Override
  public boolean isImmutableType() {
    return true; // never changed once made (its values are not copied, and not modified)
  }

  @Override
  public ChangeRecord createInstance() {
    return new ChangeRecord(
        "", ChangeRecord.Operation.INSERT, new Object[0], "", 0, 0, BinlogPosition.NONE, 0);
  }

  @Override
  public ChangeRecord copy(ChangeRecord from) {
    return from;
  }

  @Override
  public ChangeRecord copy(ChangeRecord from, ChangeRecord reuse) {
    return from;
  }

  @Override
  public int getLength() {
    return -1;
  }

  @Override
  public void serialize(ChangeRecord record, DataOutputView output) throws IOException {
    StringValue.writeString(record.table(), output);
    output.writeByte(record.operation().ordinal());
    StringValue.writeString(record.key(), output);
    output.writeInt(record.schemaId());
    output.writeInt(record.schemaVersion());
    writePosition(record.position(), output);
    output.writeLong(record.sourceMillis());
    Object[] values = record.values();
    output.writeInt(values.length);
    for (Object value : values) {
      writeValue(output, value);
    }
  }

  @Override
  public ChangeRecord deserialize(DataInputView input) throws IOException {
    String table = StringValue.readString(input);
    ChangeRecord.Operation operation = ChangeRecord.Operation.values()[input.readByte()];
    String key = StringValue.readString(input);
    int schemaId = input.readInt();
    int schemaVersion = input.readInt();
    SourcePosition position = readPosition(input);
    long sourceMillis = input.readLong();
    Object[] values = new Object[input.readInt()];
    for (int i = 0; i < values.length; i++) {
      values[i] = readValue(input);
    }
    return new ChangeRecord(
        table, operation, values, key, schemaId, schemaVersion, position, sourceMillis);
  }

  @Override
  public ChangeRecord deserialize(ChangeRecord reuse, DataInputView input) throws IOException {
    return deserialize(input);
  }

  @Override
  public void copy(DataInputView source, DataOutputView target) throws IOException {
    serialize(deserialize(source), target);
  }

  @Override
  public TypeSerializerSnapshot<ChangeRecord> snapshotConfiguration() {
    return format == 1 ? new Snapshot() : new SnapshotV2();
  }

  private void writePosition(SourcePosition position, DataOutputView output) throws IOException {
    if (position instanceof KafkaPosition kafka) {
      if (format == 1) {
        throw new IllegalStateException("format 1 holds no Kafka position");
      }
      output.writeByte(KAFKA);
      StringValue.writeString(kafka.topic(), output);
      output.writeInt(kafka.partition());
      output.writeLong(kafka.offset());
      return;
    }
    BinlogPosition binlog = (BinlogPosition) position;
    if (format > 1) {
      output.writeByte(BINLOG);
    }
    StringValue.writeString(binlog.file(), output);
    output.writeLong(binlog.position());
  }

  private SourcePosition readPosition(DataInputView input) throws IOException {
    byte kind = format == 1 ? BINLOG : input.readByte();
    return switch (kind) {
      case BINLOG -> new BinlogPosition(StringValue.readString(input), input.readLong());
      case KAFKA ->
          new KafkaPosition(StringValue.readString(input), input.readInt(), input.readLong());
      default -> throw new IllegalStateException("unknown source position tag " + kind);
    };
  }

  private static void writeValue(DataOutputView output, Object value) throws IOException {
    if (value == null) {
      output.writeByte(NULL);
    } else if (value instanceof Integer number) {
      output.writeByte(INTEGER);
      output.writeInt(number);
    } else if (value instanceof Long number) {
      output.writeByte(LONG);
      output.writeLong(number);
    } else if (value instanceof Float number) {
      output.writeByte(FLOAT);
      output.writeFloat(number);
    } else if (value instanceof Double number) {
      output.writeByte(DOUBLE);
      output.writeDouble(number);
    } else if (value instanceof Boolean bool) {
      output.writeByte(BOOLEAN);
      output.writeBoolean(bool);
    } else if (value instanceof String text) {
      output.writeByte(STRING);
      StringValue.writeString(text, output);
    } else if (value instanceof BigDecimal decimal) {
      output.writeByte(DECIMAL);
      output.writeInt(decimal.scale());
      byte[] unscaled = decimal.unscaledValue().toByteArray();
      output.writeInt(unscaled.length);
      output.write(unscaled);
    } else if (value instanceof LocalDate date) {
      output.writeByte(DATE);
      output.writeLong(date.toEpochDay());
    } else if (value instanceof LocalTime time) {
      output.writeByte(TIME);
      output.writeLong(time.toNanoOfDay());
    } else if (value instanceof LocalDateTime timestamp) {
      output.writeByte(TIMESTAMP);
      output.writeLong(timestamp.toEpochSecond(ZoneOffset.UTC));
      output.writeInt(timestamp.getNano());
    } else if (value instanceof OffsetDateTime timestamp) {
      output.writeByte(TIMESTAMP_TZ);
      output.writeLong(timestamp.toEpochSecond());
      output.writeInt(timestamp.getNano());
    } else if (value instanceof ByteBuffer buffer) {
      output.writeByte(BINARY);
      ByteBuffer copy = buffer.duplicate();
      byte[] bytes = new byte[copy.remaining()];
      copy.get(bytes);
      output.writeInt(bytes.length);
      output.write(bytes);
    } else {
      throw new IllegalArgumentException("cannot serialize a " + value.getClass().getName());
    }
  }

  private static Object readValue(DataInputView input) throws IOException {
    byte tag = input.readByte();
    return switch (tag) {
      case NULL -> null;
      case INTEGER -> input.readInt();
      case LONG -> input.readLong();
      case FLOAT -> input.readFloat();
      case DOUBLE -> input.readDouble();
      case BOOLEAN -> input.readBoolean();
      case STRING -> StringValue.readString(input);
      case DECIMAL -> {
        int scale = input.readInt();
        byte[] unscaled = bytes(input);
        yield new BigDecimal(new BigInteger(unscaled), scale);
      }
      case DATE -> LocalDate.ofEpochDay(input.readLong());
      case TIME -> LocalTime.ofNanoOfDay(input.readLong());
      case TIMESTAMP ->
          LocalDateTime.ofEpochSecond(input.readLong(), input.readInt(), ZoneOffset.UTC);
      case TIMESTAMP_TZ -> {
        long seconds = input.readLong();
        int nanos = input.readInt();
        yield OffsetDateTime.ofInstant(
            java.time.Instant.ofEpochSecond(seconds, nanos), ZoneOffset.UTC);
      }
      case BINARY -> ByteBuffer.wrap(bytes(input));
      default -> throw new IllegalStateException("unknown value tag " + tag);
    };
  }

  private static byte[] bytes(DataInputView input) throws IOException {
    byte[] bytes = new byte[input.readInt()];
    input.readFully(bytes);
    return bytes;
  }
}

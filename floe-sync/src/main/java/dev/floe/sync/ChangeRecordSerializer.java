package dev.floe.sync;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/**
 * Serializes {@link ChangeRecord}s between Flink operators: a tag byte per value for exactly the
 * Java types {@link ValueConverter} produces, so nothing depends on Kryo's reflection over JDK
 * classes.
 */
public final class ChangeRecordSerializer extends Serializer<ChangeRecord> {

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
  public void write(Kryo kryo, Output output, ChangeRecord record) {
    output.writeString(record.table());
    output.writeByte(record.operation().ordinal());
    output.writeString(record.key());
    output.writeInt(record.schemaId(), true);
    output.writeInt(record.schemaVersion(), true);
    output.writeString(record.binlogFile());
    output.writeLong(record.binlogPosition());
    output.writeLong(record.sourceMillis());
    Object[] values = record.values();
    output.writeInt(values.length, true);
    for (Object value : values) {
      writeValue(output, value);
    }
  }

  @Override
  public ChangeRecord read(Kryo kryo, Input input, Class<ChangeRecord> type) {
    String table = input.readString();
    ChangeRecord.Operation operation = ChangeRecord.Operation.values()[input.readByte()];
    String key = input.readString();
    int schemaId = input.readInt(true);
    int schemaVersion = input.readInt(true);
    String binlogFile = input.readString();
    long binlogPosition = input.readLong();
    long sourceMillis = input.readLong();
    Object[] values = new Object[input.readInt(true)];
    for (int i = 0; i < values.length; i++) {
      values[i] = readValue(input);
    }
    return new ChangeRecord(
        table,
        operation,
        values,
        key,
        schemaId,
        schemaVersion,
        binlogFile,
        binlogPosition,
        sourceMillis);
  }

  private static void writeValue(Output output, Object value) {
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
      output.writeString(text);
    } else if (value instanceof BigDecimal decimal) {
      output.writeByte(DECIMAL);
      output.writeInt(decimal.scale(), false);
      byte[] unscaled = decimal.unscaledValue().toByteArray();
      output.writeInt(unscaled.length, true);
      output.writeBytes(unscaled);
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
      output.writeInt(bytes.length, true);
      output.writeBytes(bytes);
    } else {
      throw new IllegalArgumentException("cannot serialize a " + value.getClass().getName());
    }
  }

  private static Object readValue(Input input) {
    byte tag = input.readByte();
    return switch (tag) {
      case NULL -> null;
      case INTEGER -> input.readInt();
      case LONG -> input.readLong();
      case FLOAT -> input.readFloat();
      case DOUBLE -> input.readDouble();
      case BOOLEAN -> input.readBoolean();
      case STRING -> input.readString();
      case DECIMAL -> {
        int scale = input.readInt(false);
        byte[] unscaled = input.readBytes(input.readInt(true));
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
      case BINARY -> ByteBuffer.wrap(input.readBytes(input.readInt(true)));
      default -> throw new IllegalStateException("unknown value tag " + tag);
    };
  }
}

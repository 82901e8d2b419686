package dev.floe.iceberg.optimize;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.UUID;
import org.apache.iceberg.StructLike;

/**
 * Encodes the key columns of a row as bytes, so that equal keys give equal bytes: a type tag, then
 * the value (fixed-width numbers, length-prefixed UTF-8 and bytes). Null has its own tag, because
 * an equality delete matches null to null. Values of the same Iceberg type read by the same reader
 * always take the same branch, so a data row and a delete row with the same key meet.
 */
final class KeyEncoder {

  private KeyEncoder() {}

  static byte[] encode(StructLike row, int fields) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(16 * fields);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      for (int i = 0; i < fields; i++) {
        write(out, row.get(i, Object.class));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  private static void write(DataOutputStream out, Object value) throws IOException {
    if (value == null) {
      out.writeByte(0);
    } else if (value instanceof Integer number) {
      out.writeByte(1);
      out.writeInt(number);
    } else if (value instanceof Long number) {
      out.writeByte(2);
      out.writeLong(number);
    } else if (value instanceof CharSequence text) {
      byte[] utf8 = text.toString().getBytes(StandardCharsets.UTF_8);
      out.writeByte(3);
      out.writeInt(utf8.length);
      out.write(utf8);
    } else if (value instanceof Boolean flag) {
      out.writeByte(4);
      out.writeBoolean(flag);
    } else if (value instanceof Float number) {
      out.writeByte(5);
      out.writeInt(Float.floatToIntBits(number));
    } else if (value instanceof Double number) {
      out.writeByte(6);
      out.writeLong(Double.doubleToLongBits(number));
    } else if (value instanceof BigDecimal decimal) {
      byte[] unscaled = decimal.unscaledValue().toByteArray();
      out.writeByte(7);
      out.writeInt(decimal.scale());
      out.writeInt(unscaled.length);
      out.write(unscaled);
    } else if (value instanceof LocalDate date) {
      out.writeByte(8);
      out.writeLong(date.toEpochDay());
    } else if (value instanceof LocalTime time) {
      out.writeByte(9);
      out.writeLong(time.toNanoOfDay());
    } else if (value instanceof LocalDateTime timestamp) {
      out.writeByte(10);
      out.writeLong(timestamp.toEpochSecond(ZoneOffset.UTC));
      out.writeInt(timestamp.getNano());
    } else if (value instanceof OffsetDateTime timestamp) {
      out.writeByte(11);
      out.writeLong(timestamp.toEpochSecond());
      out.writeInt(timestamp.getNano());
    } else if (value instanceof UUID uuid) {
      out.writeByte(12);
      out.writeLong(uuid.getMostSignificantBits());
      out.writeLong(uuid.getLeastSignificantBits());
    } else if (value instanceof ByteBuffer buffer) {
      ByteBuffer view = buffer.duplicate();
      byte[] content = new byte[view.remaining()];
      view.get(content);
      out.writeByte(13);
      out.writeInt(content.length);
      out.write(content);
    } else if (value instanceof byte[] content) {
      out.writeByte(13);
      out.writeInt(content.length);
      out.write(content);
    } else {
      throw new IllegalArgumentException(
          "unsupported identifier column value type " + value.getClass().getName());
    }
  }
}

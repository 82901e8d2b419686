package dev.floe.sync;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.TreeMap;

/**
 * The binary form of a {@link SourceProgress} in Floe's state and between operators: a tag byte,
 * then for a binlog position ({@code 0}) the file (modified UTF-8, {@link DataOutput#writeUTF}) and
 * the position (long); for Kafka offsets ({@code 1}) the partition count (int) and per partition,
 * in order, the topic (modified UTF-8), the partition (int) and the next offset (long). Stateless.
 */
final class SourceProgressFormat {

  static final byte BINLOG = 0;
  static final byte KAFKA = 1;

  private SourceProgressFormat() {}

  static void write(SourceProgress progress, DataOutput out) throws IOException {
    if (progress instanceof KafkaOffsets kafka) {
      out.writeByte(KAFKA);
      out.writeInt(kafka.next().size());
      for (java.util.Map.Entry<KafkaOffsets.Partition, Long> entry : kafka.next().entrySet()) {
        out.writeUTF(entry.getKey().topic());
        out.writeInt(entry.getKey().partition());
        out.writeLong(entry.getValue());
      }
      return;
    }
    BinlogPosition binlog = (BinlogPosition) progress;
    out.writeByte(BINLOG);
    out.writeUTF(binlog.file());
    out.writeLong(binlog.position());
  }

  /**
   * @throws IOException for an unknown tag or a negative count
   */
  static SourceProgress read(DataInput in) throws IOException {
    byte tag = in.readByte();
    switch (tag) {
      case BINLOG:
        return new BinlogPosition(in.readUTF(), in.readLong());
      case KAFKA:
        int count = in.readInt();
        if (count < 0) {
          throw new IOException("Kafka offsets of " + count + " partitions");
        }
        TreeMap<KafkaOffsets.Partition, Long> next = new TreeMap<>();
        for (int i = 0; i < count; i++) {
          next.put(new KafkaOffsets.Partition(in.readUTF(), in.readInt()), in.readLong());
        }
        return new KafkaOffsets(next);
      default:
        throw new IOException("unknown source progress tag " + tag);
    }
  }
}

package dev.floe.sync;

import java.io.Serializable;
import java.util.Comparator;

/**
 * A position in a MySQL binlog: file name and offset. Files of one server share a base name and
 * carry an increasing numeric suffix ({@code mysql-bin.000042}).
 */
record BinlogPosition(String file, long position)
    implements Serializable, Comparable<BinlogPosition> {

  static final BinlogPosition NONE = new BinlogPosition("", 0);

  private static final Comparator<BinlogPosition> ORDER =
      Comparator.comparingLong((BinlogPosition binlog) -> binlog.fileNumber())
          .thenComparing(BinlogPosition::file)
          .thenComparingLong(BinlogPosition::position);

  long fileNumber() {
    int dot = file.lastIndexOf('.');
    try {
      return dot < 0 ? -1 : Long.parseLong(file.substring(dot + 1));
    } catch (NumberFormatException notNumbered) {
      return -1;
    }
  }

  @Override
  public int compareTo(BinlogPosition other) {
    return ORDER.compare(this, other);
  }

  BinlogPosition max(BinlogPosition other) {
    return compareTo(other) >= 0 ? this : other;
  }
}

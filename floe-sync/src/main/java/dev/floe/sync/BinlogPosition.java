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

  /** {@code file:offset}, as table properties store it; empty for {@link #NONE}. */
  String text() {
    return file.isEmpty() ? "" : file + ":" + position;
  }

  /** Reads {@link #text()}. */
  static BinlogPosition parse(String text) {
    int colon = text.lastIndexOf(':');
    if (text.isEmpty() || colon < 0) {
      return NONE;
    }
    return new BinlogPosition(text.substring(0, colon), Long.parseLong(text.substring(colon + 1)));
  }

  BinlogPosition max(BinlogPosition other) {
    return compareTo(other) >= 0 ? this : other;
  }
}

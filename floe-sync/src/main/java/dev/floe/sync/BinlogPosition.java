package dev.floe.sync;

import java.io.Serializable;
import java.util.Comparator;

/**
 * A position in a MySQL binlog: file name and offset. Files of one server share a base name and
 * carry an increasing numeric suffix ({@code mysql-bin.000042}).
 */
record BinlogPosition(String file, long position)
    implements Serializable, Comparable<BinlogPosition>, SourcePosition, SourceProgress {

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

  /** A binlog is one stream. */
  @Override
  public Object stream() {
    return BinlogPosition.class;
  }

  @Override
  public BinlogPosition progress() {
    return this;
  }

  @Override
  public boolean isEmpty() {
    return file.isEmpty();
  }

  @Override
  public SourceProgress merge(SourceProgress other) {
    if (other instanceof BinlogPosition binlog) {
      return max(binlog);
    }
    if (isEmpty()) {
      return other;
    }
    if (other.isEmpty()) {
      return this;
    }
    throw new IllegalArgumentException("cannot merge binlog position " + text() + " with " + other);
  }

  /** {@code floe.binlog-file} and {@code floe.binlog-position}; nothing for {@link #NONE}. */
  @Override
  public java.util.Map<String, String> summary() {
    return isEmpty()
        ? java.util.Map.of()
        : java.util.Map.of(
            dev.floe.core.sync.SyncSummary.BINLOG_FILE,
            file,
            dev.floe.core.sync.SyncSummary.BINLOG_POSITION,
            Long.toString(position));
  }
}

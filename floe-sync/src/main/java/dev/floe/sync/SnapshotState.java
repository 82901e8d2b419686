package dev.floe.sync;

import static java.util.Objects.requireNonNull;

import dev.floe.core.error.FloeException;
import dev.floe.core.sync.SourceColumn;
import dev.floe.core.sync.SourceTable;
import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import java.util.UUID;

/**
 * What a sync remembers outside Flink, in {@code <state dir>/snapshot.properties}: its id, the
 * binlog position read before the initial snapshot's first chunk (the binlog phase starts there),
 * and, once every table is copied, the position read after the last chunk (inserts up to it may
 * overlap copied rows and are applied as upserts). Written atomically.
 *
 * <p>Format 2 (key {@code format=2}) adds {@code definition.<database.table>}: a fingerprint of
 * each table's definition when the copy began ({@link #fingerprint}). The binlog phase reads from
 * before the copy, with the definitions the CDC source reads when it starts; a sync stopped before
 * its binlog phase's first checkpoint starts that source again, so a table altered since the copy
 * began must be refused then. Format 1 (no {@code format} key, no fingerprints) is still read.
 *
 * @param syncId the sync's id, recorded in every commit
 * @param start where the binlog phase starts reading
 * @param end set once the copy is complete
 * @param tables the source tables ({@code database.table}) to copy; empty = all (a {@code
 *     --resnapshot} of some tables copies only those)
 * @param recopies tables copied again while the others keep their binlog position ({@code
 *     --resnapshot TABLE...} with the sync's checkpoint still readable), with their own window
 * @param definitions each source table's {@link #fingerprint} when the copy began; empty in a
 *     format-1 file
 */
record SnapshotState(
    String syncId,
    BinlogPosition start,
    Optional<BinlogPosition> end,
    List<String> tables,
    Map<String, Window> recopies,
    Map<String, String> definitions) {

  /**
   * The binlog window of a table copied again: its events up to {@code start} are in the copy and
   * skipped, those up to {@code end} may overlap copied rows and are applied as upserts.
   */
  record Window(BinlogPosition start, Optional<BinlogPosition> end) {
    BinlogPosition overlapBound() {
      return end.orElse(start);
    }
  }

  static final String FILE_NAME = "snapshot.properties";

  /** The format this Floe writes; it reads this one and every older one. */
  static final int FORMAT = 2;

  SnapshotState {
    requireNonNull(syncId, "syncId is null");
    requireNonNull(start, "start is null");
    requireNonNull(end, "end is null");
    tables = List.copyOf(requireNonNull(tables, "tables is null"));
    recopies = Map.copyOf(requireNonNull(recopies, "recopies is null"));
    definitions = Map.copyOf(requireNonNull(definitions, "definitions is null"));
  }

  /**
   * A copy that begins at {@code start}.
   *
   * @param definitions the source tables as read before {@code start}: their fingerprints are kept
   */
  static SnapshotState begin(
      BinlogPosition start, List<String> tables, List<SourceTable> definitions) {
    Map<String, String> fingerprints = new TreeMap<>();
    definitions.forEach(table -> fingerprints.put(table.qualifiedName(), fingerprint(table)));
    return new SnapshotState(
        UUID.randomUUID().toString(), start, Optional.empty(), tables, Map.of(), fingerprints);
  }

  /**
   * What of a table's definition the CDC source decodes rows with, as a SHA-256 in hex: the columns
   * in order (name, MySQL column type, nullability) and the primary key.
   */
  static String fingerprint(SourceTable table) {
    StringBuilder text = new StringBuilder();
    for (SourceColumn column : table.columns()) {
      text.append(column.name())
          .append('\u0000')
          .append(column.columnType())
          .append('\u0000')
          .append(column.nullable())
          .append('\u0001');
    }
    text.append("key\u0000").append(String.join("\u0000", table.primaryKey()));
    try {
      return java.util.HexFormat.of()
          .formatHex(
              java.security.MessageDigest.getInstance("SHA-256")
                  .digest(text.toString().getBytes(StandardCharsets.UTF_8)));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every JDK", e);
    }
  }

  /**
   * The tables the sync still selects whose definition now differs from the one recorded when the
   * copy began, or that are gone, in name order. A table left out of a narrowed selection is not
   * read, so not compared; tables without a recorded definition (format 1, or created later)
   * neither.
   *
   * @param now the selected tables as MySQL defines them now
   * @param selected whether the sync selects a {@code database.table} now
   */
  List<String> alteredSinceBegin(
      List<SourceTable> now, java.util.function.Predicate<String> selected) {
    Map<String, String> current = new TreeMap<>();
    now.forEach(table -> current.put(table.qualifiedName(), fingerprint(table)));
    return new TreeMap<>(definitions)
        .entrySet().stream()
            .filter(entry -> selected.test(entry.getKey()))
            .filter(entry -> !entry.getValue().equals(current.get(entry.getKey())))
            .map(Map.Entry::getKey)
            .toList();
  }

  SnapshotState complete(BinlogPosition endPosition) {
    return new SnapshotState(
        syncId, start, Optional.of(endPosition), tables, recopies, definitions);
  }

  /** These tables are copied again from {@code head} on; the others keep their position. */
  SnapshotState recopy(List<String> names, BinlogPosition head) {
    Map<String, Window> windows = new TreeMap<>(recopies);
    for (String name : names) {
      windows.put(name, new Window(head, Optional.empty()));
    }
    return new SnapshotState(syncId, start, end, tables, windows, definitions);
  }

  /** The tables being copied again whose copy is not complete. */
  List<String> pendingRecopies() {
    return recopies.entrySet().stream()
        .filter(entry -> entry.getValue().end().isEmpty())
        .map(Map.Entry::getKey)
        .toList();
  }

  /** Marks the pending copies complete at {@code endPosition}. */
  SnapshotState recopiesComplete(BinlogPosition endPosition) {
    Map<String, Window> windows = new TreeMap<>();
    recopies.forEach(
        (name, window) ->
            windows.put(
                name,
                window.end().isPresent()
                    ? window
                    : new Window(window.start(), Optional.of(endPosition))));
    return new SnapshotState(syncId, start, end, tables, windows, definitions);
  }

  /** Whether the initial snapshot copies this source table. */
  boolean copies(String table) {
    return tables.isEmpty() || tables.contains(table);
  }

  static Optional<SnapshotState> load(StateDirectory stateDirectory) {
    String file = stateDirectory + "/" + FILE_NAME;
    Optional<String> text;
    try {
      text = stateDirectory.readReplaced(FILE_NAME);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
    if (text.isEmpty()) {
      return Optional.empty();
    }
    Properties properties = new Properties();
    try (Reader reader = new StringReader(text.get())) {
      properties.load(reader);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
    String format = properties.getProperty("format", "1");
    if (!format.equals("1") && !format.equals(String.valueOf(FORMAT))) {
      throw FloeException.badInput(
          file
              + " is sync state format "
              + format
              + ", written by a newer Floe; this Floe reads formats 1 to "
              + FORMAT
              + ". Run the sync with that newer Floe, or start it over with --resnapshot.");
    }
    Map<String, String> definitions = new TreeMap<>();
    for (String key : properties.stringPropertyNames()) {
      if (key.startsWith("definition.")) {
        definitions.put(key.substring("definition.".length()), properties.getProperty(key));
      }
    }
    String endFile = properties.getProperty("end-file");
    return Optional.of(
        new SnapshotState(
            properties.getProperty("sync-id"),
            new BinlogPosition(
                properties.getProperty("start-file"),
                Long.parseLong(properties.getProperty("start-position"))),
            endFile == null
                ? Optional.empty()
                : Optional.of(
                    new BinlogPosition(
                        endFile, Long.parseLong(properties.getProperty("end-position")))),
            properties.getProperty("tables", "").isEmpty()
                ? List.of()
                : List.of(properties.getProperty("tables").split(",")),
            recopies(properties),
            definitions));
  }

  private static Map<String, Window> recopies(Properties properties) {
    Map<String, Window> windows = new TreeMap<>();
    for (String key : properties.stringPropertyNames()) {
      if (key.startsWith("recopy.") && key.endsWith(".start")) {
        String table = key.substring("recopy.".length(), key.length() - ".start".length());
        String end = properties.getProperty("recopy." + table + ".end");
        windows.put(
            table,
            new Window(
                BinlogPosition.parse(properties.getProperty(key)),
                end == null ? Optional.empty() : Optional.of(BinlogPosition.parse(end))));
      }
    }
    return windows;
  }

  void save(StateDirectory stateDirectory) {
    Properties properties = new Properties();
    properties.setProperty("format", String.valueOf(FORMAT));
    properties.setProperty("sync-id", syncId);
    properties.setProperty("start-file", start.file());
    properties.setProperty("start-position", Long.toString(start.position()));
    properties.setProperty("tables", String.join(",", tables));
    recopies.forEach(
        (table, window) -> {
          properties.setProperty("recopy." + table + ".start", window.start().text());
          window
              .end()
              .ifPresent(
                  position -> properties.setProperty("recopy." + table + ".end", position.text()));
        });
    definitions.forEach(
        (table, fingerprint) -> properties.setProperty("definition." + table, fingerprint));
    end.ifPresent(
        position -> {
          properties.setProperty("end-file", position.file());
          properties.setProperty("end-position", Long.toString(position.position()));
        });
    try {
      StringWriter text = new StringWriter();
      properties.store(text, "floe sync state; do not edit");
      stateDirectory.replace(FILE_NAME, text.toString());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + stateDirectory + "/" + FILE_NAME, e);
    }
  }
}

package dev.floe.sync;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
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
 * @param syncId the sync's id, recorded in every commit
 * @param start where the binlog phase starts reading
 * @param end set once the copy is complete
 * @param tables the source tables ({@code database.table}) to copy; empty = all (a {@code
 *     --resnapshot} of some tables copies only those)
 * @param recopies tables copied again while the others keep their binlog position ({@code
 *     --resnapshot TABLE...} with the sync's checkpoint still readable), with their own window
 */
record SnapshotState(
    String syncId,
    BinlogPosition start,
    Optional<BinlogPosition> end,
    List<String> tables,
    Map<String, Window> recopies) {

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

  SnapshotState {
    requireNonNull(syncId, "syncId is null");
    requireNonNull(start, "start is null");
    requireNonNull(end, "end is null");
    tables = List.copyOf(requireNonNull(tables, "tables is null"));
    recopies = Map.copyOf(requireNonNull(recopies, "recopies is null"));
  }

  static SnapshotState begin(BinlogPosition start, List<String> tables) {
    return new SnapshotState(
        UUID.randomUUID().toString(), start, Optional.empty(), tables, Map.of());
  }

  SnapshotState complete(BinlogPosition endPosition) {
    return new SnapshotState(syncId, start, Optional.of(endPosition), tables, recopies);
  }

  /** These tables are copied again from {@code head} on; the others keep their position. */
  SnapshotState recopy(List<String> names, BinlogPosition head) {
    Map<String, Window> windows = new TreeMap<>(recopies);
    for (String name : names) {
      windows.put(name, new Window(head, Optional.empty()));
    }
    return new SnapshotState(syncId, start, end, tables, windows);
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
    return new SnapshotState(syncId, start, end, tables, windows);
  }

  /** Whether the initial snapshot copies this source table. */
  boolean copies(String table) {
    return tables.isEmpty() || tables.contains(table);
  }

  static Optional<SnapshotState> load(Path stateDirectory) {
    Path file = stateDirectory.resolve(FILE_NAME);
    if (!Files.exists(file)) {
      return Optional.empty();
    }
    Properties properties = new Properties();
    try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      properties.load(reader);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
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
            recopies(properties)));
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

  void save(Path stateDirectory) {
    Properties properties = new Properties();
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
    end.ifPresent(
        position -> {
          properties.setProperty("end-file", position.file());
          properties.setProperty("end-position", Long.toString(position.position()));
        });
    try {
      Files.createDirectories(stateDirectory);
      Path temporary = Files.createTempFile(stateDirectory, FILE_NAME, ".tmp");
      try (Writer writer = Files.newBufferedWriter(temporary, StandardCharsets.UTF_8)) {
        properties.store(writer, "floe sync state; do not edit");
      }
      Files.move(
          temporary,
          stateDirectory.resolve(FILE_NAME),
          StandardCopyOption.ATOMIC_MOVE,
          StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + stateDirectory.resolve(FILE_NAME), e);
    }
  }
}

package dev.floe.iceberg.state;

import static java.util.Objects.requireNonNull;

import dev.floe.core.error.FloeException;
import dev.floe.core.maintenance.HistoryObservation;
import dev.floe.core.maintenance.HistoryObservationFormat;
import dev.floe.core.optimize.OptimizeFailures;
import dev.floe.core.optimize.OptimizeFailuresFormat;
import dev.floe.core.state.TableKey;
import dev.floe.core.state.TableStateStore;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Optional;

/**
 * The table state store of the CLI: one small text file per table and kind of state under {@code
 * <data-dir>/state/} (layout and formats in docs/maintenance.md and docs/optimize.md):
 *
 * <ul>
 *   <li>{@code state/history/<catalog>/<table>.history}: the last history observation ({@code
 *       floe-history 1});
 *   <li>{@code state/optimize/<catalog>/<table>.failures}: the optimize failures ({@code
 *       floe-optimize-failures 1}). Floe 0.1 kept them, without the catalog, in {@code
 *       state/optimize/<table>.properties}; that file is read while the new one is missing and
 *       removed by the next save.
 * </ul>
 *
 * Catalog and table names are URL-encoded into file names, so every key has its own file. Each
 * write goes to a temporary file in the same directory that is then atomically renamed over the old
 * one: a crash leaves the old state or the new one. Safe for several threads and processes; for one
 * table, the last rename wins.
 */
public final class FileTableStateStore implements TableStateStore {

  private final Path history;
  private final Path optimize;

  public FileTableStateStore(Path dataDirectory) {
    Path state = requireNonNull(dataDirectory, "dataDirectory is null").resolve("state");
    this.history = state.resolve("history");
    this.optimize = state.resolve("optimize");
  }

  /** The history file of a table. */
  public Path historyFile(TableKey key) {
    return history.resolve(encode(key.catalog())).resolve(encode(key.table()) + ".history");
  }

  /** The optimize failures file of a table. */
  public Path optimizeFailuresFile(TableKey key) {
    return optimize.resolve(encode(key.catalog())).resolve(encode(key.table()) + ".failures");
  }

  /** Where Floe 0.1 kept a table's optimize failures, whatever its catalog. */
  Path legacyOptimizeFailuresFile(TableKey key) {
    return optimize.resolve(key.table().replaceAll("[^A-Za-z0-9._-]", "_") + ".properties");
  }

  @Override
  public OptimizeFailures optimizeFailures(TableKey key) {
    Path file = optimizeFailuresFile(key);
    Optional<String> text = read(file, "optimize state file");
    if (text.isEmpty()) {
      file = legacyOptimizeFailuresFile(key);
      text = read(file, "optimize state file");
    }
    Path source = file;
    return text.map(found -> OptimizeFailuresFormat.parse(found, source.toString()))
        .orElse(OptimizeFailures.none());
  }

  @Override
  public void saveOptimizeFailures(TableKey key, OptimizeFailures failures) {
    requireNonNull(failures, "failures is null");
    Path file = optimizeFailuresFile(key);
    if (failures.failures().isEmpty()) {
      delete(file, "optimize state file");
    } else {
      write(file, OptimizeFailuresFormat.write(key.table(), failures), "optimize state file");
    }
    // Migrated: the new file (or its absence) is the truth now. The old file was shared by the
    // tables of that name in every catalog; dropping it forgets at most a backoff of theirs.
    delete(legacyOptimizeFailuresFile(key), "optimize state file");
  }

  @Override
  public Optional<HistoryObservation> history(TableKey key) {
    Path file = historyFile(key);
    return read(file, "history state file")
        .map(text -> HistoryObservationFormat.parse(text, file.toString()));
  }

  @Override
  public void saveHistory(TableKey key, HistoryObservation observation) {
    requireNonNull(observation, "observation is null");
    if (!observation.table().equals(key.table())) {
      throw new IllegalArgumentException(
          "observation of " + observation.table() + " saved for " + key.table());
    }
    write(historyFile(key), HistoryObservationFormat.write(observation), "history state file");
  }

  @Override
  public String historyLocation(TableKey key) {
    return historyFile(key).toString();
  }

  private static Optional<String> read(Path file, String kind) {
    try {
      return Optional.of(Files.readString(file, StandardCharsets.UTF_8));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException e) {
      throw FloeException.sourceUnavailable(
          "Cannot read the " + kind + " " + file + ": " + e.getMessage() + ".", e);
    }
  }

  private static void write(Path file, String text, String kind) {
    Path temporary = null;
    try {
      Files.createDirectories(file.getParent());
      temporary = Files.createTempFile(file.getParent(), file.getFileName().toString(), ".tmp");
      Files.writeString(temporary, text, StandardCharsets.UTF_8);
      try {
        Files.move(
            temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING);
      }
    } catch (IOException e) {
      FloeException failure = cannotWrite(file, kind, e);
      if (temporary != null) {
        try {
          Files.deleteIfExists(temporary);
        } catch (IOException cleanup) {
          failure.addSuppressed(cleanup);
        }
      }
      throw failure;
    }
  }

  private static void delete(Path file, String kind) {
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      throw cannotWrite(file, kind, e);
    }
  }

  private static FloeException cannotWrite(Path file, String kind, IOException e) {
    return FloeException.sourceUnavailable(
        "Cannot write the "
            + kind
            + " "
            + file
            + ": "
            + e.getMessage()
            + ". Check that the data directory is writable.",
        e);
  }

  /** URL encoding keeps names distinct; "." and ".." would name directories, so dots go too. */
  private static String encode(String name) {
    String encoded = URLEncoder.encode(name, StandardCharsets.UTF_8);
    return encoded.equals(".") || encoded.equals("..") ? encoded.replace(".", "%2E") : encoded;
  }
}

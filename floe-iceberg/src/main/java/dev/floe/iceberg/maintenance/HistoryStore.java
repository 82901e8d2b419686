package dev.floe.iceberg.maintenance;

import static java.util.Objects.requireNonNull;

import dev.floe.core.error.FloeException;
import dev.floe.core.maintenance.HistoryObservation;
import dev.floe.core.maintenance.HistoryObservationFormat;
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
 * Keeps the last history observation of each table in one small text file under {@code
 * <data-dir>/state/history/<catalog>/<table>.history} (format: docs/maintenance.md). Writes go to a
 * temporary file that is atomically renamed, so a crash leaves the old or the new observation. Not
 * safe for two processes writing the same table's file at once (the last rename wins).
 */
public final class HistoryStore {

  private final Path directory;

  public HistoryStore(Path dataDirectory) {
    this.directory =
        requireNonNull(dataDirectory, "dataDirectory is null").resolve("state").resolve("history");
  }

  public Path fileFor(String catalog, String table) {
    return directory.resolve(encode(catalog)).resolve(encode(table) + ".history");
  }

  public Optional<HistoryObservation> read(String catalog, String table) {
    Path file = fileFor(catalog, table);
    try {
      return Optional.of(HistoryObservationFormat.parse(Files.readString(file), file.toString()));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException e) {
      throw FloeException.sourceUnavailable(
          "Cannot read the history state file " + file + ": " + e.getMessage() + ".", e);
    }
  }

  public void write(String catalog, HistoryObservation observation) {
    Path file = fileFor(catalog, observation.table());
    try {
      Files.createDirectories(file.getParent());
      Path temporary =
          Files.createTempFile(file.getParent(), file.getFileName().toString(), ".tmp");
      Files.writeString(temporary, HistoryObservationFormat.write(observation));
      try {
        Files.move(
            temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING);
      }
    } catch (IOException e) {
      throw FloeException.sourceUnavailable(
          "Cannot write the history state file "
              + file
              + ": "
              + e.getMessage()
              + ". Check that the data directory is writable.",
          e);
    }
  }

  private static String encode(String name) {
    return URLEncoder.encode(name, StandardCharsets.UTF_8);
  }
}

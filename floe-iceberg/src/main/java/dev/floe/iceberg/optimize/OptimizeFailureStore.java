package dev.floe.iceberg.optimize;

import static java.util.Objects.requireNonNull;

import dev.floe.core.optimize.OptimizeFailures;
import dev.floe.core.optimize.PartitionKey;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

/**
 * Keeps each table's {@link OptimizeFailures} in a small properties file under a state directory
 * ({@code <data-dir>/state/optimize/<table>.properties}), so one-shot runs of {@code floe optimize}
 * back off a failing partition too. Writes are atomic (write, then rename). Not for concurrent
 * writers of the same table.
 */
public final class OptimizeFailureStore {

  private final Path directory;

  public OptimizeFailureStore(Path directory) {
    this.directory = requireNonNull(directory, "directory is null");
  }

  public OptimizeFailures load(String table) {
    Path file = file(table);
    if (!Files.exists(file)) {
      return OptimizeFailures.none();
    }
    Properties properties = new Properties();
    try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      properties.load(reader);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
    Map<PartitionKey, OptimizeFailures.Failure> failures = new HashMap<>();
    for (String key : properties.stringPropertyNames()) {
      int bar = key.indexOf('|');
      String[] value = properties.getProperty(key).split(",");
      if (bar < 0 || value.length != 2) {
        continue; // written by a newer version; ignoring it only forgets a backoff
      }
      failures.put(
          new PartitionKey(Integer.parseInt(key.substring(0, bar)), key.substring(bar + 1)),
          new OptimizeFailures.Failure(
              Integer.parseInt(value[0]), Instant.ofEpochMilli(Long.parseLong(value[1]))));
    }
    return new OptimizeFailures(failures);
  }

  public void save(String table, OptimizeFailures failures) {
    Path file = file(table);
    try {
      Files.createDirectories(directory);
      if (failures.failures().isEmpty()) {
        Files.deleteIfExists(file);
        return;
      }
      Properties properties = new Properties();
      failures
          .failures()
          .forEach(
              (partition, failure) ->
                  properties.setProperty(
                      partition.specId() + "|" + partition.path(),
                      failure.count() + "," + failure.last().toEpochMilli()));
      Path temporary = Files.createTempFile(directory, "failures-", ".tmp");
      try (Writer writer = Files.newBufferedWriter(temporary, StandardCharsets.UTF_8)) {
        properties.store(writer, "floe optimize failures of " + table);
      }
      Files.move(
          temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }

  private Path file(String table) {
    return directory.resolve(table.replaceAll("[^A-Za-z0-9._-]", "_") + ".properties");
  }
}

package dev.floe.iceberg.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.floe.core.error.ErrorCategory;
import dev.floe.core.error.FloeException;
import dev.floe.core.maintenance.HistoryObservation;
import dev.floe.core.maintenance.ObservedSnapshot;
import dev.floe.core.optimize.OptimizeFailures;
import dev.floe.core.optimize.PartitionKey;
import dev.floe.core.state.TableKey;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileTableStateStoreTest {

  private static final TableKey ORDERS = new TableKey("floe", "shop.orders");
  private static final Instant NOW = Instant.parse("2026-11-29T09:00:00Z");

  @TempDir Path dataDirectory;

  private FileTableStateStore store() {
    return new FileTableStateStore(dataDirectory);
  }

  private static OptimizeFailures failures(String path, int count) {
    return new OptimizeFailures(
        Map.of(new PartitionKey(0, path), new OptimizeFailures.Failure(count, NOW)));
  }

  private static HistoryObservation observation(String table, long snapshot) {
    return new HistoryObservation(
        table,
        NOW,
        "file:/lake/metadata/00001.metadata.json",
        OptionalLong.of(snapshot),
        List.of(new ObservedSnapshot(snapshot, 1, NOW, 5, 5)),
        false);
  }

  @Test
  void bothKindsOfStateAreKeyedByCatalogAndTableTheSameWay() {
    FileTableStateStore store = store();

    assertThat(store.historyFile(ORDERS))
        .isEqualTo(dataDirectory.resolve("state/history/floe/shop.orders.history"));
    assertThat(store.optimizeFailuresFile(ORDERS))
        .isEqualTo(dataDirectory.resolve("state/optimize/floe/shop.orders.failures"));
    assertThat(store.historyLocation(ORDERS)).isEqualTo(store.historyFile(ORDERS).toString());
    TableKey odd = new TableKey("..", "a b.c/d");
    assertThat(store.historyFile(odd))
        .isEqualTo(dataDirectory.resolve("state/history/%2E%2E/a+b.c%2Fd.history"));
    assertThat(store.optimizeFailuresFile(odd))
        .isEqualTo(dataDirectory.resolve("state/optimize/%2E%2E/a+b.c%2Fd.failures"));
  }

  @Test
  void optimizeFailuresRoundTripPerCatalogInAVersionedFile() throws Exception {
    FileTableStateStore store = store();
    TableKey otherCatalog = new TableKey("other", "shop.orders");

    store.saveOptimizeFailures(ORDERS, failures("day=1", 2));
    store.saveOptimizeFailures(otherCatalog, failures("day=2", 1));

    assertThat(store.optimizeFailures(ORDERS)).isEqualTo(failures("day=1", 2));
    assertThat(store.optimizeFailures(otherCatalog)).isEqualTo(failures("day=2", 1));
    assertThat(Files.readString(store.optimizeFailuresFile(ORDERS)))
        .isEqualTo(
            "floe-optimize-failures 1\ntable shop.orders\npartition 0 2 "
                + NOW.toEpochMilli()
                + " day=1\n");
    assertThat(store.optimizeFailures(new TableKey("floe", "shop.other")))
        .isEqualTo(OptimizeFailures.none());

    store.saveOptimizeFailures(ORDERS, OptimizeFailures.none());
    assertThat(store.optimizeFailuresFile(ORDERS)).doesNotExist();
    assertThat(store.optimizeFailures(ORDERS)).isEqualTo(OptimizeFailures.none());
    assertThat(leftOverTemporaryFiles()).isEmpty();
  }

  /** Writes the file exactly as Floe 0.1's OptimizeFailureStore did, at its old location. */
  private Path writeFloe01File(String table, String partition, int count) throws Exception {
    Path directory = dataDirectory.resolve("state/optimize");
    Files.createDirectories(directory);
    Path file = directory.resolve(table.replaceAll("[^A-Za-z0-9._-]", "_") + ".properties");
    Properties properties = new Properties();
    properties.setProperty("0|" + partition, count + "," + NOW.toEpochMilli());
    try (Writer writer = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      properties.store(writer, "floe optimize failures of " + table);
    }
    return file;
  }

  @Test
  void theOptimizeFailuresOfFloe01AreReadFromTheirOldLocationUntilTheNextSave() throws Exception {
    Path legacy = writeFloe01File("shop.orders", "day=2026-11-29", 3);
    FileTableStateStore store = store();

    assertThat(store.optimizeFailures(ORDERS)).isEqualTo(failures("day=2026-11-29", 3));
    assertThat(store.optimizeFailures(new TableKey("other", "shop.orders")))
        .as("the old file had no catalog: every catalog's table of that name sees it")
        .isEqualTo(failures("day=2026-11-29", 3));

    store.saveOptimizeFailures(ORDERS, failures("day=2026-11-29", 4));

    assertThat(legacy).doesNotExist();
    assertThat(store.optimizeFailures(ORDERS)).isEqualTo(failures("day=2026-11-29", 4));
    store.saveOptimizeFailures(ORDERS, OptimizeFailures.none());
    assertThat(store.optimizeFailures(ORDERS)).isEqualTo(OptimizeFailures.none());
  }

  @Test
  void theNewOptimizeFailuresFileWinsOverAnOldOne() throws Exception {
    FileTableStateStore store = store();
    store.saveOptimizeFailures(ORDERS, failures("day=1", 1));
    writeFloe01File("shop.orders", "day=9", 9);

    assertThat(store.optimizeFailures(ORDERS)).isEqualTo(failures("day=1", 1));
  }

  @Test
  void historyRoundTripsPerCatalog() throws Exception {
    FileTableStateStore store = store();
    TableKey otherCatalog = new TableKey("other", "shop.orders");

    assertThat(store.history(ORDERS)).isEmpty();
    store.saveHistory(ORDERS, observation("shop.orders", 1));
    store.saveHistory(otherCatalog, observation("shop.orders", 2));
    store.saveHistory(ORDERS, observation("shop.orders", 3));

    assertThat(store.history(ORDERS)).contains(observation("shop.orders", 3));
    assertThat(store.history(otherCatalog)).contains(observation("shop.orders", 2));
    assertThat(Files.readString(store.historyFile(ORDERS)))
        .startsWith("floe-history 1\ntable shop.orders\n");
    assertThat(leftOverTemporaryFiles()).isEmpty();
    assertThatThrownBy(() -> store.saveHistory(ORDERS, observation("shop.other", 1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("observation of shop.other saved for shop.orders");
  }

  @Test
  void aDamagedFileNamesItselfAndTheFix() throws Exception {
    FileTableStateStore store = store();
    Path file = store.historyFile(ORDERS);
    Files.createDirectories(file.getParent());
    Files.writeString(file, "something else\n");

    assertThatThrownBy(() -> store.history(ORDERS))
        .isInstanceOf(FloeException.class)
        .hasMessageStartingWith("The history state file " + file + " is damaged at line 1")
        .extracting(e -> ((FloeException) e).category())
        .isEqualTo(ErrorCategory.INTERNAL);
  }

  @Test
  void anUnwritableStateDirectoryIsSourceUnavailable() throws Exception {
    Files.writeString(dataDirectory.resolve("state"), "a file where the directory should be");

    assertThatThrownBy(() -> store().saveOptimizeFailures(ORDERS, failures("day=1", 1)))
        .isInstanceOf(FloeException.class)
        .hasMessageStartingWith(
            "Cannot write the optimize state file " + store().optimizeFailuresFile(ORDERS) + ": ")
        .hasMessageEndingWith(". Check that the data directory is writable.")
        .extracting(e -> ((FloeException) e).category())
        .isEqualTo(ErrorCategory.SOURCE_UNAVAILABLE);
  }

  private List<Path> leftOverTemporaryFiles() throws Exception {
    try (Stream<Path> files = Files.walk(dataDirectory)) {
      return files.filter(file -> file.toString().endsWith(".tmp")).toList();
    }
  }
}

package dev.floe.sync;

import dev.floe.core.source.MySqlSourceAddress;
import dev.floe.core.sync.SyncSummary;
import dev.floe.core.sync.TableSelection;
import dev.floe.iceberg.FloeCatalog;
import dev.floe.testing.MariaDbServer;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import java.util.zip.ZipOutputStream;
import org.apache.flink.runtime.checkpoint.Checkpoints;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.util.SnapshotUtil;

/**
 * The sync-state fixtures: a checkpoint and a savepoint of the binlog job, written by one state
 * version and restored by the next ({@link SyncStateRestoreITCase}), produced by {@link
 * SyncStateFixtureWriter}.
 *
 * <p>A fixture is a zip of a sync's data directory (embedded catalog, warehouse, the sync's state
 * directory with one checkpoint or savepoint) under the fixed {@link #ROOT}: Iceberg metadata and
 * the committer's pending files hold absolute paths, so a fixture is only valid there. The MySQL
 * side is {@code sync-state/source.sql}, run statement by statement on a fresh MariaDB server: the
 * same statements on a fresh server give the same binlog file and positions, which the source's
 * checkpointed offset points into ({@code fixture.properties} records the head to check that).
 */
final class SyncStateFixture {

  /** Where every fixture lives while it is written or restored. */
  static final Path ROOT = Path.of("/tmp/floe-sync-state-fixture");

  static final String DATABASE = "state_fixture";
  static final List<String> TABLES = List.of("customers", "orders");
  static final String SYNC_NAME = "state-fixture";
  static final String RESOURCES = "sync-state/";

  /** The script's sections, in order: the fixtures hold the binlog of all but the last. */
  static final List<String> FIXTURE_SECTIONS =
      List.of("create", "binlog", "before-checkpoint", "before-savepoint");

  static final String AFTER_RESTORE = "after-restore";

  private SyncStateFixture() {}

  static Path data() {
    return ROOT.resolve("data");
  }

  static Path stateDirectory() {
    return data().resolve("sync").resolve(SYNC_NAME);
  }

  static SyncOptions options(MariaDbServer server) {
    return new SyncOptions(
        SYNC_NAME,
        MySqlSourceAddress.parse(server.sourceUrl("root", "", ""), "--source"),
        TableSelection.of(List.of(DATABASE + "\\..*"), List.of(), Optional.empty()),
        Duration.ofSeconds(1),
        2,
        stateDirectory(),
        Optional.of("UTC"),
        20,
        0,
        Map.of());
  }

  /** The statements of {@code source.sql}, by section. */
  static Map<String, List<String>> script() {
    Map<String, List<String>> sections = new LinkedHashMap<>();
    List<String> current = null;
    for (String line : resourceText("source.sql").split("\n")) {
      if (line.startsWith("-- section ")) {
        current = new ArrayList<>();
        sections.put(line.substring("-- section ".length()).trim(), current);
      } else if (!line.isBlank() && !line.startsWith("--")) {
        current.add(line.substring(0, line.lastIndexOf(';')));
      }
    }
    return sections;
  }

  /** Takes the fixture root for this JVM's test or writer; other worktrees' tests wait. */
  static FileLock lockRoot() throws IOException {
    Files.createDirectories(ROOT.getParent());
    FileChannel channel =
        FileChannel.open(
            ROOT.resolveSibling(ROOT.getFileName() + ".lock"),
            StandardOpenOption.CREATE,
            StandardOpenOption.WRITE);
    return channel.lock();
  }

  static void clearRoot() throws IOException {
    if (Files.exists(ROOT)) {
      try (Stream<Path> files = Files.walk(ROOT)) {
        for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(file);
        }
      }
    }
    Files.createDirectories(ROOT);
  }

  /** {@code file:position} of the server's binlog head. */
  static String binlogHead(MariaDbServer server) throws Exception {
    try (Connection connection = server.rootConnection();
        Statement statement = connection.createStatement();
        ResultSet row = statement.executeQuery("SHOW MASTER STATUS")) {
      row.next();
      return row.getString(1) + ":" + row.getLong(2);
    }
  }

  /** How the synced tables differ from MySQL, or empty when they are equal. */
  static Optional<String> difference(MariaDbServer server, FloeCatalog catalog) throws Exception {
    for (String table : TABLES) {
      TableIdentifier identifier = TableIdentifier.of(DATABASE, table);
      if (!catalog.catalog().tableExists(identifier)) {
        return Optional.of(table + " is missing");
      }
      Optional<String> difference =
          LakeComparison.difference(
                  server, DATABASE, table, catalog.catalog().loadTable(identifier))
              .map(text -> table + ": " + text);
      if (difference.isPresent()) {
        return difference;
      }
    }
    return Optional.empty();
  }

  /** MySQL's rows of the synced tables, as {@code table<TAB>key<TAB>row} lines. */
  static String mysqlRows(MariaDbServer server, FloeCatalog catalog) throws Exception {
    StringBuilder text = new StringBuilder();
    for (String table : TABLES) {
      Table lake = catalog.catalog().loadTable(TableIdentifier.of(DATABASE, table));
      TreeMap<String, String> rows =
          LakeComparison.mysqlRows(server, DATABASE, table, lake.schema());
      rows.forEach(
          (key, row) ->
              text.append(table).append('\t').append(key).append('\t').append(row).append('\n'));
    }
    return text.toString();
  }

  /** The id of the checkpoint (or savepoint) in a restore point directory. */
  static long checkpointId(Path restorePoint) throws IOException {
    try (InputStream file = Files.newInputStream(restorePoint.resolve("_metadata"));
        DataInputStream in = new DataInputStream(file)) {
      return Checkpoints.loadCheckpointMetadata(
              in, SyncStateFixture.class.getClassLoader(), restorePoint.toUri().toString())
          .getCheckpointId();
    }
  }

  /**
   * The version of the committer state in a checkpoint or savepoint: 0 for Java serialization, else
   * the version after {@link CommitterStateSerializer#MAGIC}; empty when it holds none.
   */
  static Optional<Integer> committerStateVersion(Path restorePoint) throws IOException {
    return CheckpointedCommitterState.read(new org.apache.flink.core.fs.Path(restorePoint.toUri()))
        .stream()
        .findFirst()
        .map(
            bytes ->
                CommitterStateSerializer.isJavaSerialized(bytes)
                    ? 0
                    : java.nio.ByteBuffer.wrap(bytes).getInt(4));
  }

  /** The binlog-phase commits at or after a checkpoint, over all tables. */
  static int commitsFrom(FloeCatalog catalog, long checkpointId) {
    return commits(catalog, id -> id >= checkpointId);
  }

  /**
   * The binlog-phase commits in the tables' current histories of checkpoints that {@code which}
   * accepts.
   */
  static int commits(FloeCatalog catalog, java.util.function.LongPredicate which) {
    int commits = 0;
    for (String table : TABLES) {
      Table lake = catalog.catalog().loadTable(TableIdentifier.of(DATABASE, table));
      if (lake.currentSnapshot() == null) {
        continue;
      }
      for (Snapshot snapshot :
          SnapshotUtil.ancestorsOf(lake.currentSnapshot().snapshotId(), lake::snapshot)) {
        String checkpoint = snapshot.summary().get(SyncSummary.CHECKPOINT_ID);
        if (checkpoint != null && which.test(Long.parseLong(checkpoint))) {
          commits++;
        }
      }
    }
    return commits;
  }

  /** Zips the files under {@link #ROOT} that {@code include} accepts (paths relative to it). */
  static void zipRoot(Path zip, Predicate<String> include) throws IOException {
    Files.createDirectories(zip.getParent());
    try (OutputStream file = Files.newOutputStream(zip);
        ZipOutputStream out = new ZipOutputStream(file);
        Stream<Path> files = Files.walk(ROOT)) {
      for (Path path : files.filter(Files::isRegularFile).sorted().toList()) {
        String name = ROOT.relativize(path).toString();
        if (include.test(name)) {
          out.putNextEntry(new ZipEntry(name));
          Files.copy(path, out);
          out.closeEntry();
        }
      }
    }
  }

  /** Unpacks a fixture's zip (a test resource) into {@link #ROOT}. */
  static void unzipToRoot(String resource) throws IOException {
    try (InputStream file = resource(resource);
        ZipInputStream in = new ZipInputStream(file)) {
      for (ZipEntry entry = in.getNextEntry(); entry != null; entry = in.getNextEntry()) {
        Path target = ROOT.resolve(entry.getName()).normalize();
        if (!target.startsWith(ROOT)) {
          throw new IOException("zip entry outside the fixture root: " + entry.getName());
        }
        Files.createDirectories(target.getParent());
        Files.copy(in, target);
      }
    }
  }

  static InputStream resource(String name) {
    InputStream in = SyncStateFixture.class.getClassLoader().getResourceAsStream(RESOURCES + name);
    if (in == null) {
      throw new IllegalStateException("no test resource " + RESOURCES + name);
    }
    return in;
  }

  static String resourceText(String name) {
    try (InputStream in = resource(name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}

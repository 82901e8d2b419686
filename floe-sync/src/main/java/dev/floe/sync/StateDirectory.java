package dev.floe.sync;

import static java.util.Objects.requireNonNull;

import dev.floe.core.error.FloeException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.FileSystem.WriteMode;
import org.apache.flink.core.fs.Path;
import org.apache.flink.core.fs.UnsupportedFileSystemSchemeException;

/**
 * Where one sync keeps its state: Flink's checkpoints ({@code checkpoints/}) and savepoints ({@code
 * savepoints/}) and the snapshot state file ({@link SnapshotState#FILE_NAME}). A local directory or
 * a directory on a shared file system ({@code hdfs://NAMENODE:PORT/PATH}), read, written, listed
 * and deleted through Flink's file-system API ({@link FileSystem}), the same API the job writes its
 * checkpoints with; local paths through Flink's local file system, {@code hdfs:} through Flink's
 * Hadoop file system (Hadoop's client is on Floe's classpath).
 *
 * <p>S3 ({@code s3://BUCKET/PATH}, {@code s3a://BUCKET/PATH}) goes through Hadoop's S3A file system
 * under Flink's Hadoop fallback (Flink's own S3 file systems are plugins that bundle their own
 * Hadoop and AWS classes and cannot share Floe's classpath), configured from the catalog's S3
 * settings by {@link #useHadoopSettings}. Other object stores are refused by {@link #of}.
 *
 * <p>Immutable; the file-system operations block on I/O and may be called from any thread.
 */
public final class StateDirectory {

  /** Schemes of object stores whose Flink file systems are plugins Floe does not load. */
  private static final Set<String> OBJECT_STORES = Set.of("s3n", "s3p", "gs", "oss");

  /** S3, through Hadoop's S3A file system. */
  private static final Set<String> S3 = Set.of("s3", "s3a");

  /** How deep below the directory Flink's {@code _metadata} files lie (checkpoints/JOB/chk-N/). */
  private static final int RESTORE_POINT_DEPTH = 4;

  private static final String METADATA = "_metadata";

  private final URI location;

  private StateDirectory(URI location) {
    this.location = location;
  }

  /** A local directory. */
  public static StateDirectory local(java.nio.file.Path directory) {
    requireNonNull(directory, "directory is null");
    return new StateDirectory(withoutTrailingSlash(directory.toAbsolutePath().normalize().toUri()));
  }

  /**
   * A directory given as floe.yaml or a flag writes it: a local path (relative ones against the
   * working directory), a {@code file:} URI, an {@code hdfs://NAMENODE[:PORT]/PATH} or an {@code
   * s3://BUCKET/PATH} URI.
   *
   * @param key how messages name the setting, e.g. {@code sync.state-dir}
   * @throws FloeException BAD_INPUT when the location is not a path or URI, has no absolute path,
   *     or is on an object store other than S3 (see the class comment)
   */
  public static StateDirectory of(String location, String key) {
    requireNonNull(location, "location is null");
    requireNonNull(key, "key is null");
    String text = location.trim();
    int colon = text.indexOf("://");
    if (colon < 0 && !text.startsWith("file:")) {
      return local(java.nio.file.Path.of(text.isEmpty() ? "." : text));
    }
    URI uri;
    try {
      uri = new URI(text);
    } catch (URISyntaxException e) {
      throw FloeException.badInput(
          key
              + " '"
              + location
              + "' is not a path or a URI ("
              + e.getReason()
              + "). Write it as a path, e.g. /var/lib/floe/sync, or as hdfs://NAMENODE:PORT/PATH.");
    }
    String scheme = uri.getScheme().toLowerCase(Locale.ROOT);
    if (OBJECT_STORES.contains(scheme)) {
      throw FloeException.badInput(
          key
              + " '"
              + location
              + "' is on an object store ("
              + scheme
              + "://), where Floe cannot keep a sync's checkpoints: Flink writes to object"
              + " stores only through its file-system plugins, which carry their own Hadoop and"
              + " AWS classes and cannot share Floe's classpath. Put the state on S3"
              + " (s3://BUCKET/PATH), on HDFS (hdfs://NAMENODE:PORT/PATH) or on a directory every"
              + " machine mounts at the same path.");
    }
    if (S3.contains(scheme) && (uri.getHost() == null || uri.getHost().isEmpty())) {
      throw FloeException.badInput(
          key
              + " '"
              + location
              + "' names no bucket. Write it as "
              + scheme
              + "://BUCKET/PATH, e.g. s3://lake/floe/sync.");
    }
    if (uri.getPath() == null || !uri.getPath().startsWith("/") || uri.getPath().equals("/")) {
      throw FloeException.badInput(
          key
              + " '"
              + location
              + "' has no "
              + (S3.contains(scheme) ? "path in its bucket" : "absolute path")
              + ". Write it as "
              + (S3.contains(scheme)
                  ? scheme + "://BUCKET/PATH, e.g. s3://lake/floe/sync."
                  : scheme + "://HOST:PORT/PATH, e.g. hdfs://namenode:8020/floe/sync."));
    }
    if (scheme.equals("file")) {
      return local(java.nio.file.Path.of(uri.getPath()));
    }
    return new StateDirectory(withoutTrailingSlash(uri.normalize()));
  }

  /**
   * Gives Flink's Hadoop file system (the one {@code hdfs:} and {@code s3:} state directories and
   * the job's checkpoints are written with, in this process and its local MiniCluster) the
   * catalog's settings: each {@code hadoop.KEY} catalog property as Flink's {@code
   * flink.hadoop.KEY}, and the catalog's S3 settings (S3FileIO's {@code s3.endpoint}, {@code
   * client.region}, {@code s3.path-style-access}, {@code s3.access-key-id}, {@code
   * s3.secret-access-key}) as Hadoop S3A's, unless a {@code hadoop.fs.s3a.*} property sets them.
   * {@code s3://} and {@code s3a://} are both S3A, through Flink's Hadoop fallback. Flink keeps its
   * file systems in static state, so this (re)initialises them for the whole process. A Flink
   * cluster's own processes take their file-system settings from the cluster's configuration
   * instead (docs/deploy.md).
   */
  public static void useHadoopSettings(java.util.Map<String, String> catalogProperties) {
    FileSystem.initialize(flinkFileSystemSettings(catalogProperties), null);
  }

  /** The Flink configuration {@link #useHadoopSettings} initialises Flink's file systems with. */
  static org.apache.flink.configuration.Configuration flinkFileSystemSettings(
      java.util.Map<String, String> catalogProperties) {
    org.apache.flink.configuration.Configuration configuration =
        new org.apache.flink.configuration.Configuration();
    configuration.setString("fs.allowed-fallback-filesystems", "s3;s3a");
    configuration.setString("flink.hadoop.fs.s3.impl", "org.apache.hadoop.fs.s3a.S3AFileSystem");
    S3A_SETTINGS.forEach(
        (property, s3a) -> {
          String value = catalogProperties.get(property);
          if (value != null) {
            configuration.setString("flink.hadoop." + s3a, value);
          }
        });
    catalogProperties.forEach(
        (key, value) -> {
          if (key.startsWith("hadoop.") && key.length() > "hadoop.".length()) {
            configuration.setString("flink." + key, value);
          }
        });
    return configuration;
  }

  /** S3FileIO's property -> Hadoop S3A's, for the same setting. */
  private static final java.util.Map<String, String> S3A_SETTINGS =
      java.util.Map.of(
          "s3.endpoint", "fs.s3a.endpoint",
          "client.region", "fs.s3a.endpoint.region",
          "s3.path-style-access", "fs.s3a.path.style.access",
          "s3.access-key-id", "fs.s3a.access.key",
          "s3.secret-access-key", "fs.s3a.secret.key");

  /** The directory {@code name} below this one. */
  public StateDirectory resolve(String name) {
    requireNonNull(name, "name is null");
    if (name.isEmpty() || name.contains("/")) {
      throw new IllegalArgumentException("not a single directory name: " + name);
    }
    return new StateDirectory(URI.create(location + "/" + encode(name)));
  }

  /** The directory's URI, e.g. {@code file:/var/lib/floe/sync/x} or {@code hdfs://nn:8020/x}. */
  public URI uri() {
    return location;
  }

  /** The directory as a Flink path. */
  public Path path() {
    return new Path(location);
  }

  /** A file or directory below this one, as a Flink path. */
  public Path path(String relative) {
    return new Path(location + "/" + relative);
  }

  /** Whether it is on this machine's file system. */
  public boolean isLocal() {
    return "file".equals(location.getScheme());
  }

  /** The local directory, when {@link #isLocal()}. */
  public Optional<java.nio.file.Path> localPath() {
    return isLocal() ? Optional.of(java.nio.file.Path.of(location)) : Optional.empty();
  }

  /**
   * How messages show a location below this directory: a local path as a plain path, others as
   * their URI.
   */
  public static String display(Path path) {
    URI uri = path.toUri();
    return "file".equals(uri.getScheme()) ? uri.getPath() : uri.toString();
  }

  /**
   * Checks that the file system answers, before a sync does any work: the directory (or, while it
   * does not exist yet, its file system's root) is looked up once.
   *
   * @param key how messages name the setting, e.g. {@code sync.state-dir}
   * @throws FloeException BAD_INPUT when Flink has no file system for the scheme;
   *     SOURCE_UNAVAILABLE when the file system cannot be reached (e.g. no NameNode answers)
   */
  public void requireReachable(String key) {
    try {
      FileSystem fileSystem = fileSystem();
      fileSystem.exists(path());
    } catch (UnsupportedFileSystemSchemeException e) {
      throw FloeException.badInput(
          key
              + " '"
              + this
              + "': Flink has no file system for "
              + location.getScheme()
              + ":// here ("
              + e.getMessage()
              + "). Use a local path, hdfs://NAMENODE:PORT/PATH or s3://BUCKET/PATH.");
    } catch (IOException | RuntimeException e) {
      throw FloeException.sourceUnavailable(
          "Cannot reach the sync's state directory "
              + this
              + " ("
              + key
              + "): "
              + causes(e)
              + ". Check "
              + key
              + " in floe.yaml and that "
              + (isLocal()
                  ? "the directory is readable and is reachable from this machine"
                  : S3.contains(location.getScheme())
                      ? "its bucket exists, the S3 endpoint (catalog.s3-endpoint) is reachable from"
                          + " this machine and accepts the credentials (catalog.s3-access-key-id,"
                          + " catalog.s3-secret-access-key)"
                      : "its file system (the NameNode) runs and is reachable from this machine")
              + ". Nothing was changed.",
          e);
    }
  }

  /**
   * Orders {@code _metadata} files by modification time; on a tie a savepoint is newer than a
   * checkpoint (a stop's savepoint is the last thing its job writes) and a checkpoint of a higher
   * number newer than a lower one. S3 gives modification times to the second, so the savepoint a
   * stop takes often has the time of the checkpoint just before it.
   */
  private static final java.util.Comparator<FileStatus> NEWEST_RESTORE_POINT =
      java.util.Comparator.comparingLong(FileStatus::getModificationTime)
          .thenComparing(
              file -> file.getPath().getParent().getParent().getName().equals("savepoints"))
          .thenComparingLong(StateDirectory::checkpointNumber);

  /** N of a {@code chk-N/_metadata} file; -1 for anything else. */
  private static long checkpointNumber(FileStatus metadata) {
    String name = metadata.getPath().getParent().getName();
    if (name.startsWith("chk-")) {
      try {
        return Long.parseLong(name.substring("chk-".length()));
      } catch (NumberFormatException notACheckpoint) {
        return -1;
      }
    }
    return -1;
  }

  /**
   * The newest completed checkpoint or savepoint below this directory (a directory holding {@code
   * _metadata}, by that file's modification time, ties broken by {@link #NEWEST_RESTORE_POINT}).
   * Directories that vanish while they are listed (Flink removes older checkpoints) are skipped.
   *
   * @throws UncheckedIOException when the directory cannot be listed
   */
  public Optional<Path> latestRestorePoint() {
    try {
      FileSystem fileSystem = fileSystem();
      if (!fileSystem.exists(path())) {
        return Optional.empty();
      }
      List<FileStatus> metadata = new ArrayList<>();
      collectMetadata(fileSystem, path(), RESTORE_POINT_DEPTH, metadata);
      return metadata.stream().max(NEWEST_RESTORE_POINT).map(file -> file.getPath().getParent());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot look for checkpoints in " + this, e);
    }
  }

  private static void collectMetadata(
      FileSystem fileSystem, Path directory, int depth, List<FileStatus> found) throws IOException {
    FileStatus[] entries;
    try {
      entries = fileSystem.listStatus(directory);
    } catch (FileNotFoundException vanished) {
      return;
    }
    if (entries == null) {
      return; // Flink's local file system: the directory vanished
    }
    for (FileStatus entry : entries) {
      if (entry.isDir()) {
        if (depth > 1) {
          collectMetadata(fileSystem, entry.getPath(), depth - 1, found);
        }
      } else if (entry.getPath().getName().equals(METADATA)) {
        found.add(entry);
      }
    }
  }

  /** The text of a file directly in this directory; empty when there is none. */
  Optional<String> read(String name) throws IOException {
    FileSystem fileSystem = fileSystem();
    Path file = path(name);
    if (!fileSystem.exists(file)) {
      return Optional.empty();
    }
    try (InputStream in = fileSystem.open(file)) {
      return Optional.of(new String(in.readAllBytes(), StandardCharsets.UTF_8));
    } catch (FileNotFoundException vanished) {
      return Optional.empty();
    }
  }

  /**
   * Replaces a file directly in this directory (creating the directory): the text is written to
   * {@code NAME.next}, which then replaces {@code NAME}. A rename onto an existing file replaces it
   * in one step on a local disk; HDFS and S3 refuse it, so there the old file is deleted first, and
   * a crash between the two leaves only {@code NAME.next}, which {@link #readReplaced} then reads.
   */
  void replace(String name, String text) throws IOException {
    FileSystem fileSystem = fileSystem();
    fileSystem.mkdirs(path());
    Path next = path(name + ".next");
    Path file = path(name);
    try (OutputStream out = fileSystem.create(next, WriteMode.OVERWRITE)) {
      out.write(text.getBytes(StandardCharsets.UTF_8));
    }
    IOException refused = null;
    try {
      if (fileSystem.rename(next, file)) {
        return;
      }
    } catch (IOException e) {
      // S3A refuses a rename onto an existing file with an exception where HDFS returns false
      refused = e;
    }
    fileSystem.delete(file, false);
    if (!fileSystem.rename(next, file)) {
      IOException failed =
          new IOException("cannot rename " + display(next) + " to " + display(file));
      if (refused != null) {
        failed.addSuppressed(refused);
      }
      throw failed;
    }
  }

  /**
   * The text of a file written by {@link #replace}: the file, or the complete {@code NAME.next}
   * when a crash came after the old file was deleted and before the rename.
   */
  Optional<String> readReplaced(String name) throws IOException {
    Optional<String> text = read(name);
    return text.isPresent() ? text : read(name + ".next");
  }

  /** Deletes a file or directory (with everything below it) directly in this directory. */
  void delete(String name) throws IOException {
    FileSystem fileSystem = fileSystem();
    Path target = path(name);
    if (fileSystem.exists(target) && !fileSystem.delete(target, true)) {
      throw new IOException("cannot delete " + display(target));
    }
  }

  private FileSystem fileSystem() throws IOException {
    return FileSystem.get(location);
  }

  private static String causes(Throwable failure) {
    StringBuilder text = new StringBuilder(String.valueOf(failure.getMessage()));
    Throwable cause = failure.getCause();
    for (int depth = 0; cause != null && depth < 4; depth++, cause = cause.getCause()) {
      String message = cause.getMessage();
      if (message != null && !message.isBlank() && text.indexOf(message) < 0) {
        text.append(": ").append(message.strip());
      }
    }
    return text.toString();
  }

  private static String encode(String name) {
    try {
      return new URI(null, null, name, null).getRawPath();
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("not a usable directory name: " + name, e);
    }
  }

  private static URI withoutTrailingSlash(URI uri) {
    String text = uri.toString();
    while (text.endsWith("/") && uri.getPath() != null && uri.getPath().length() > 1) {
      text = text.substring(0, text.length() - 1);
      uri = URI.create(text);
    }
    return uri;
  }

  /** A local directory as a plain path, others as their URI. */
  @Override
  public String toString() {
    return isLocal() ? location.getPath() : location.toString();
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof StateDirectory that && location.equals(that.location);
  }

  @Override
  public int hashCode() {
    return location.hashCode();
  }
}

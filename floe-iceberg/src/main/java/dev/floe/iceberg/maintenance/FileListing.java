package dev.floe.iceberg.maintenance;

import dev.floe.core.error.FloeException;
import dev.floe.core.maintenance.ListedFile;
import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.SupportsPrefixOperations;

/**
 * Lists every file under a location: a local one ({@code file:}) straight from the file system,
 * others through the table's own FileIO.
 */
final class FileListing {

  private static final int LIST_ATTEMPTS = 3;

  private FileListing() {}

  /**
   * @throws FloeException BAD_INPUT when the table's FileIO cannot list, SOURCE_UNAVAILABLE when
   *     the listing fails (nothing is deleted on a partial listing)
   */
  static List<ListedFile> list(String table, FileIO io, String location) {
    Optional<Path> local = localPath(location);
    if (local.isPresent()) {
      return listLocal(table, location, local.get());
    }
    if (!(io instanceof SupportsPrefixOperations prefixes)) {
      throw FloeException.badInput(
          "Table "
              + table
              + " uses "
              + io.getClass().getName()
              + ", which cannot list files, so orphan files cannot be found. Nothing was changed."
              + " Configure a FileIO that supports listing (HadoopFileIO, S3FileIO, ...).");
    }
    // A writer may delete its own files while the listing runs (a retried commit removes the
    // manifest list it wrote first); some FileIOs then fail the whole listing. Such a file is no
    // orphan candidate anyway, so list again; after three failures, give up and delete nothing.
    RuntimeException failure = null;
    for (int attempt = 1; attempt <= LIST_ATTEMPTS; attempt++) {
      try {
        List<ListedFile> files = new ArrayList<>();
        for (FileInfo file : prefixes.listPrefix(location)) {
          files.add(
              new ListedFile(
                  file.location(), file.size(), Instant.ofEpochMilli(file.createdAtMillis())));
        }
        return files;
      } catch (RuntimeException e) {
        failure = e;
      }
    }
    throw FloeException.sourceUnavailable(
        "Cannot list "
            + location
            + " of table "
            + table
            + " ("
            + LIST_ATTEMPTS
            + " attempts): "
            + failure.getMessage()
            + ". Nothing was changed.",
        failure);
  }

  /**
   * The path of a {@code file:} location (or of a plain absolute path); empty for other schemes.
   */
  static Optional<Path> localPath(String location) {
    if (location.startsWith("/")) {
      return Optional.of(Path.of(location));
    }
    if (!location.regionMatches(true, 0, "file:", 0, "file:".length())) {
      return Optional.empty();
    }
    String path = location.substring("file:".length());
    if (path.startsWith("//")) {
      // file:///path, or file://localhost/path
      int slash = path.indexOf('/', 2);
      String authority = slash < 0 ? path.substring(2) : path.substring(2, slash);
      if (!authority.isEmpty() && !authority.equalsIgnoreCase("localhost")) {
        return Optional.empty();
      }
      path = slash < 0 ? "/" : path.substring(slash);
    }
    // Locations name local files by their literal path (a partition value's %XX is part of the
    // file name), so nothing is decoded.
    return path.startsWith("/") ? Optional.of(Path.of(path)) : Optional.empty();
  }

  /**
   * Hadoop's local file system keeps a {@code .NAME.crc} beside each file it writes, hides it from
   * listings and deletes it with its file; so does this listing.
   */
  private static boolean isChecksum(Path file) {
    String name = file.getFileName().toString();
    return name.startsWith(".") && name.endsWith(".crc");
  }

  /**
   * Walks a local directory. Hadoop's local listing runs {@code ls} once per file for its
   * permissions and fails the whole listing when a file goes between the directory read and that
   * call, which a streaming writer's metadata directory does all the time (old metadata files are
   * deleted after each commit); here a file or directory that goes while the walk runs is simply
   * not listed: it is no orphan candidate anyway. A directory that does not exist holds nothing.
   */
  private static List<ListedFile> listLocal(String table, String location, Path directory) {
    List<ListedFile> files = new ArrayList<>();
    if (!Files.isDirectory(directory)) {
      return files;
    }
    try {
      Files.walkFileTree(
          directory,
          new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
              if (attributes.isRegularFile() && !isChecksum(file)) {
                files.add(
                    new ListedFile(
                        "file:" + file.toAbsolutePath(),
                        attributes.size(),
                        attributes.lastModifiedTime().toInstant()));
              }
              return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
              if (e instanceof NoSuchFileException) {
                return FileVisitResult.CONTINUE; // removed while the walk ran
              }
              throw e;
            }
          });
      return files;
    } catch (IOException e) {
      throw FloeException.sourceUnavailable(
          "Cannot list "
              + location
              + " of table "
              + table
              + ": "
              + e.getMessage()
              + ". Nothing was changed.",
          e);
    }
  }
}

package dev.floe.sync;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/**
 * The jars a Flink cluster needs to run one of Floe's jobs: this process's classpath, in its order
 * (the CDC connector's jar patches Debezium classes and must come before Debezium's), without
 * Flink's own jars, which every cluster has (connectors, which clusters do not have, are kept), and
 * without what the job does not need. Class directories (a build's {@code target/classes}) are
 * packed into jars.
 */
public final class JobJars {

  private JobJars() {}

  /** The jars of this JVM's classpath; directories are packed into jars under {@code work}. */
  static List<Path> ofThisProcess(Path work) {
    return of(System.getProperty("java.class.path", ""), work);
  }

  static List<Path> of(String classpath, Path work) {
    return of(classpath, work, entry -> true);
  }

  /**
   * The entries of {@code classpath} that {@code keep} accepts (and Flink does not provide), in
   * order; directories are packed into jars under {@code work}.
   */
  public static List<Path> of(String classpath, Path work, Predicate<Path> keep) {
    List<Path> jars = new ArrayList<>();
    int directories = 0;
    for (String entry : classpath.split(File.pathSeparator)) {
      if (entry.isBlank()) {
        continue;
      }
      Path path = Path.of(entry).toAbsolutePath();
      if (!keep.test(path)) {
        continue;
      }
      if (Files.isDirectory(path)) {
        jars.add(pack(path, work.resolve("classes-" + directories++ + ".jar")));
      } else if (Files.isRegularFile(path)
          && path.getFileName().toString().endsWith(".jar")
          && !providedByFlink(path.getFileName().toString())) {
        jars.add(path);
      }
    }
    return List.copyOf(jars);
  }

  /** Flink's own modules are on every cluster (and loaded from there: parent-first). */
  static boolean providedByFlink(String jarName) {
    return jarName.startsWith("flink-")
        && !jarName.startsWith("flink-connector-")
        && !jarName.startsWith("flink-sql-connector-")
        && !jarName.startsWith("flink-cdc-");
  }

  private static Path pack(Path directory, Path jar) {
    try {
      Files.createDirectories(jar.getParent());
      try (OutputStream file = Files.newOutputStream(jar);
          JarOutputStream out = new JarOutputStream(file);
          Stream<Path> files = Files.walk(directory)) {
        for (Path path : files.sorted().toList()) {
          String name = directory.relativize(path).toString().replace(File.separatorChar, '/');
          if (name.isEmpty()) {
            continue;
          }
          if (Files.isDirectory(path)) {
            out.putNextEntry(new JarEntry(name + "/"));
          } else {
            out.putNextEntry(new JarEntry(name));
            Files.copy(path, out);
          }
          out.closeEntry();
        }
      }
      return jar;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot pack " + directory + " into " + jar, e);
    }
  }
}

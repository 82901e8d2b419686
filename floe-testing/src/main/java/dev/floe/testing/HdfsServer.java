package dev.floe.testing;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A private HDFS: Hadoop's MiniDFSCluster (one NameNode, one DataNode) in its own JVM, from the
 * jars module {@code floe-testing-hdfs} lists in {@code hdfs-classpath.txt}. Its storage lives in a
 * temporary directory; the NameNode listens on a loopback port the system picks, and clients reach
 * it at {@link #uri()} ({@code hdfs://127.0.0.1:PORT}) with no further configuration. New files get
 * one replica. {@link #close()} stops it and deletes its directory; a watchdog process does the
 * same when the JVM dies first. The cluster's jars (hadoop-client-minicluster, JUnit 4) never reach
 * the caller's classpath.
 *
 * <p>It takes about 15 s to start and about 300 MB of memory.
 */
public final class HdfsServer implements AutoCloseable {

  private static final String CLASSPATH_RESOURCE = "hdfs-classpath.txt";
  private static final String MAIN_CLASS = "dev.floe.testing.hdfs.HdfsServerMain";
  private static final String READY = "HDFS serving on ";
  private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);

  private final Path directory;
  private final String uri;
  private final Process process;
  private final Process watchdog;
  private volatile boolean closed;

  private HdfsServer(Path directory, String uri, Process process, Process watchdog) {
    this.directory = directory;
    this.uri = uri;
    this.process = process;
    this.watchdog = watchdog;
  }

  /**
   * Starts an empty, formatted file system and returns once it serves (out of safe mode).
   *
   * @throws IllegalStateException when it does not start within 90 s; the message holds its log
   */
  public static HdfsServer start() {
    List<Path> classpath = classpath();
    Path home;
    try {
      home = Files.createTempDirectory("floe-hdfs-");
      Files.writeString(
          home.resolve("log4j2.properties"),
          String.join(
              "\n",
              "rootLogger.level=INFO",
              "rootLogger.appenderRef.file.ref=file",
              "appender.file.type=File",
              "appender.file.name=file",
              "appender.file.fileName=" + home.resolve("hdfs.log"),
              "appender.file.layout.type=PatternLayout",
              "appender.file.layout.pattern=%d{HH:mm:ss,SSS} %-5p %c{1} - %m%n",
              ""),
          StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a directory for HDFS", e);
    }
    List<String> command = new ArrayList<>();
    command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(
        List.of(
            "-Xms64m",
            "-Xmx512m",
            "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1",
            "-Djava.awt.headless=true",
            "-Dlog4j2.configurationFile=file:" + home.resolve("log4j2.properties"),
            "-classpath",
            String.join(File.pathSeparator, classpath.stream().map(Path::toString).toList()),
            MAIN_CLASS,
            home.resolve("cluster").toString()));
    Path output = home.resolve("hdfs.out");
    Process process;
    try {
      process =
          new ProcessBuilder(command)
              .directory(home.toFile())
              .redirectErrorStream(true)
              .redirectOutput(output.toFile())
              .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
              .start();
    } catch (IOException e) {
      ServerProcesses.deleteRecursively(home);
      throw new IllegalStateException("cannot start HDFS: " + e.getMessage(), e);
    }
    Process watchdog = ServerProcesses.startWatchdog(process.pid(), "TERM", Optional.of(home));
    Instant deadline = Instant.now().plus(START_TIMEOUT);
    while (Instant.now().isBefore(deadline)) {
      String printed = read(output);
      int ready = printed.indexOf(READY);
      if (ready >= 0 && printed.indexOf('\n', ready) > 0) {
        String uri = printed.substring(ready + READY.length(), printed.indexOf('\n', ready)).trim();
        return new HdfsServer(home, uri, process, watchdog);
      }
      if (!process.isAlive()) {
        watchdog.destroy();
        String log = ServerProcesses.tail(home.resolve("hdfs.log"), 40);
        ServerProcesses.deleteRecursively(home);
        throw new IllegalStateException(
            "HDFS exited while starting (exit code "
                + process.exitValue()
                + "):\n"
                + printed
                + "\n"
                + log);
      }
      try {
        Thread.sleep(100); // poll interval while the cluster starts
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    process.destroyForcibly();
    watchdog.destroy();
    String log = ServerProcesses.tail(home.resolve("hdfs.log"), 40);
    ServerProcesses.deleteRecursively(home);
    throw new IllegalStateException(
        "HDFS did not serve within "
            + START_TIMEOUT.toSeconds()
            + " s. Its log ends with:\n"
            + log);
  }

  /** {@code hdfs://127.0.0.1:PORT}: the file system's URI (the NameNode's RPC address). */
  public String uri() {
    return uri;
  }

  /** The NameNode's RPC port. */
  public int port() {
    return URI.create(uri).getPort();
  }

  /** {@code hdfs://127.0.0.1:PORT/PATH} for an absolute {@code path} such as {@code /warehouse}. */
  public String uri(String path) {
    if (!path.startsWith("/")) {
      throw new IllegalArgumentException("not an absolute path: " + path);
    }
    return uri + path;
  }

  public Path directory() {
    return directory;
  }

  public long pid() {
    return process.pid();
  }

  /** The last lines of the cluster's log and output, for failure messages. */
  public String logTail() {
    return ServerProcesses.tail(directory.resolve("hdfs.log"), 40)
        + "\n"
        + ServerProcesses.tail(directory.resolve("hdfs.out"), 20);
  }

  /** Kills the cluster with SIGKILL (e.g. to test an unreachable NameNode); close() cleans up. */
  public void kill() {
    watchdog.destroy();
    process.destroyForcibly();
    try {
      process.waitFor(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Stops the cluster (SIGTERM, SIGKILL after 30 s) and deletes its directory. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    watchdog.destroy();
    process.destroy();
    try {
      if (!process.waitFor(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
    ServerProcesses.deleteRecursively(directory);
  }

  private static String read(Path file) {
    try {
      return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
    } catch (IOException e) {
      return "";
    }
  }

  /**
   * The cluster's classpath: the jar (or classes directory) that holds the classpath list and the
   * main class, then the jars it lists.
   */
  private static List<Path> classpath() {
    URL resource = HdfsServer.class.getResource(CLASSPATH_RESOURCE);
    if (resource == null) {
      throw new IllegalStateException(
          CLASSPATH_RESOURCE
              + " is missing from the classpath: build floe-testing-hdfs with Maven (it lists"
              + " the HDFS cluster's jars)");
    }
    List<Path> classpath = new ArrayList<>();
    classpath.add(ownLocation(resource));
    try (InputStream list = resource.openStream()) {
      String text = new String(list.readAllBytes(), StandardCharsets.UTF_8).trim();
      for (String entry : text.split(File.pathSeparator)) {
        Path jar = Paths.get(entry);
        if (!Files.isRegularFile(jar)) {
          throw new IllegalStateException(
              "the HDFS cluster's jar " + jar + " is missing: build floe-testing-hdfs again");
        }
        classpath.add(jar);
      }
      return classpath;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + CLASSPATH_RESOURCE, e);
    }
  }

  /** The jar or directory a resource of this package was found in. */
  private static Path ownLocation(URL resource) {
    String text = resource.toString();
    String suffix = "/dev/floe/testing/" + CLASSPATH_RESOURCE;
    try {
      if (text.startsWith("jar:")) {
        return Paths.get(new URI(text.substring("jar:".length(), text.indexOf("!/"))));
      }
      return Paths.get(new URI(text.substring(0, text.length() - suffix.length())));
    } catch (URISyntaxException e) {
      throw new IllegalStateException("cannot locate " + text, e);
    }
  }
}

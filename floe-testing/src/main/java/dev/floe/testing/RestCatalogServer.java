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
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A private Iceberg REST catalog: Iceberg's own REST catalog servlet for tests over a JdbcCatalog
 * (SQLite) in its own JVM, from the jars module {@code floe-testing-rest-catalog} lists in {@code
 * rest-catalog-classpath.txt}. It lives in a temporary directory (the backing catalog's file and
 * the warehouse, {@link #warehouse()}) and listens on a loopback port the system picks; {@link
 * #close()} stops it and deletes the directory, and a watchdog process does the same when the JVM
 * dies first. The server's jars (Iceberg's test classes, Jetty 12) never reach the caller's
 * classpath.
 *
 * <p>Clients reach it as an Iceberg {@code rest} catalog at {@link #uri()}; the server writes table
 * metadata into its warehouse itself, so clients need the same file system (a local path here).
 */
public final class RestCatalogServer implements AutoCloseable {

  private static final String CLASSPATH_RESOURCE = "rest-catalog-classpath.txt";
  private static final String MAIN_CLASS = "dev.floe.testing.restcatalog.RestCatalogServerMain";
  private static final String READY = "REST catalog serving on ";
  private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);

  private final Path directory;
  private final String uri;
  private final Process process;
  private final Process watchdog;
  private volatile boolean closed;

  private RestCatalogServer(Path directory, String uri, Process process, Process watchdog) {
    this.directory = directory;
    this.uri = uri;
    this.process = process;
    this.watchdog = watchdog;
  }

  /**
   * Starts a server with an empty catalog and returns once it serves.
   *
   * @throws IllegalStateException when it does not start within 60 s; the message holds its output
   */
  public static RestCatalogServer start() {
    return start(Map.of());
  }

  /**
   * As {@link #start()}, with further properties of the server's backing catalog (e.g. {@code
   * io-impl}).
   */
  public static RestCatalogServer start(Map<String, String> catalogProperties) {
    List<Path> classpath = classpath();
    Path home;
    try {
      home = Files.createTempDirectory("floe-rest-catalog-");
      Files.createDirectories(home.resolve("warehouse"));
      Files.writeString(
          home.resolve("log4j2.properties"),
          String.join(
              "\n",
              "rootLogger.level=INFO",
              "rootLogger.appenderRef.file.ref=file",
              "appender.file.type=File",
              "appender.file.name=file",
              "appender.file.fileName=" + home.resolve("server.log"),
              "appender.file.layout.type=PatternLayout",
              "appender.file.layout.pattern=%d{HH:mm:ss,SSS} %-5p %c{1} - %m%n",
              ""),
          StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a directory for the REST catalog", e);
    }
    List<String> command = new ArrayList<>();
    command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(
        List.of(
            "-Xms32m",
            "-Xmx384m",
            "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1",
            "-Djava.awt.headless=true",
            "-Dlog4j2.configurationFile=file:" + home.resolve("log4j2.properties"),
            "-classpath",
            String.join(File.pathSeparator, classpath.stream().map(Path::toString).toList()),
            MAIN_CLASS,
            "0",
            home.resolve("catalog.db").toString(),
            home.resolve("warehouse").toUri().toString()));
    catalogProperties.forEach((key, value) -> command.add(key + "=" + value));
    Path output = home.resolve("server.out");
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
      throw new IllegalStateException("cannot start the REST catalog: " + e.getMessage(), e);
    }
    Process watchdog = ServerProcesses.startWatchdog(process.pid(), "TERM", Optional.of(home));
    Instant deadline = Instant.now().plus(START_TIMEOUT);
    while (Instant.now().isBefore(deadline)) {
      String printed = read(output);
      int ready = printed.indexOf(READY);
      if (ready >= 0 && printed.indexOf('\n', ready) > 0) {
        String uri = printed.substring(ready + READY.length(), printed.indexOf('\n', ready)).trim();
        return new RestCatalogServer(home, uri, process, watchdog);
      }
      if (!process.isAlive()) {
        watchdog.destroy();
        String log = ServerProcesses.tail(home.resolve("server.log"), 30);
        ServerProcesses.deleteRecursively(home);
        throw new IllegalStateException(
            "the REST catalog exited while starting (exit code "
                + process.exitValue()
                + "):\n"
                + printed
                + "\n"
                + log);
      }
      try {
        Thread.sleep(50); // poll interval while the server starts
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    process.destroyForcibly();
    watchdog.destroy();
    String printed = read(output);
    ServerProcesses.deleteRecursively(home);
    throw new IllegalStateException(
        "the REST catalog did not serve within "
            + START_TIMEOUT.toSeconds()
            + " s. It printed:\n"
            + printed);
  }

  /** {@code http://127.0.0.1:PORT}: the catalog's {@code uri} for an Iceberg REST client. */
  public String uri() {
    return uri;
  }

  public int port() {
    return URI.create(uri).getPort();
  }

  /** The warehouse the server creates tables in, as a {@code file:} URI. */
  public String warehouse() {
    return directory.resolve("warehouse").toUri().toString();
  }

  public Path directory() {
    return directory;
  }

  public long pid() {
    return process.pid();
  }

  /** The last lines of the server's log and output, for failure messages. */
  public String logTail() {
    return ServerProcesses.tail(directory.resolve("server.log"), 30)
        + "\n"
        + ServerProcesses.tail(directory.resolve("server.out"), 30);
  }

  /**
   * Kills the server with SIGKILL (e.g. to test an unreachable catalog); close() still cleans up.
   */
  public void kill() {
    watchdog.destroy();
    process.destroyForcibly();
    try {
      process.waitFor(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Stops the server (SIGTERM, SIGKILL after 30 s) and deletes its directory. */
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
   * The server's classpath: the jar (or classes directory) that holds the classpath list and the
   * main class, then the jars it lists.
   */
  private static List<Path> classpath() {
    URL resource = RestCatalogServer.class.getResource(CLASSPATH_RESOURCE);
    if (resource == null) {
      throw new IllegalStateException(
          CLASSPATH_RESOURCE
              + " is missing from the classpath: build floe-testing-rest-catalog with Maven"
              + " (it lists the REST catalog server's jars)");
    }
    List<Path> classpath = new ArrayList<>();
    classpath.add(ownLocation(resource));
    try (InputStream list = resource.openStream()) {
      String text = new String(list.readAllBytes(), StandardCharsets.UTF_8).trim();
      for (String entry : text.split(File.pathSeparator)) {
        Path jar = Paths.get(entry);
        if (!Files.isRegularFile(jar)) {
          throw new IllegalStateException(
              "the REST catalog server's jar "
                  + jar
                  + " is missing: build floe-testing-rest-catalog again");
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

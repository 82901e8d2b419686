package dev.floe.testing;

import static java.util.Objects.requireNonNull;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A private S3-compatible server: s3proxy with its file-system backend ({@code filesystem-nio2}) in
 * its own JVM, from the jar module {@code floe-testing-s3proxy} lists in {@code
 * s3proxy-classpath.txt}. Buckets are directories under {@link #dataDirectory()}; requests must be
 * signed (AWS signature v2 or v4) with {@link #accessKeyId()} and {@link #secretAccessKey()},
 * random for each server. It listens on a free loopback port, path-style ({@code
 * http://127.0.0.1:PORT/BUCKET/KEY}), region {@link #REGION}. {@link #close()} stops it and deletes
 * its directory; a watchdog process does the same when the JVM dies first.
 */
public final class S3Server implements AutoCloseable {

  /** The region clients sign for; s3proxy accepts any. */
  public static final String REGION = "us-east-1";

  private static final String CLASSPATH_RESOURCE = "s3proxy-classpath.txt";
  private static final String MAIN_CLASS = "org.gaul.s3proxy.Main";
  private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);
  private static final int START_ATTEMPTS = 3;
  private static final SecureRandom RANDOM = new SecureRandom();

  private final Path directory;
  private final int port;
  private final String accessKeyId;
  private final String secretAccessKey;
  private final Process process;
  private final Process watchdog;
  private volatile boolean closed;

  private S3Server(
      Path directory,
      int port,
      String accessKeyId,
      String secretAccessKey,
      Process process,
      Process watchdog) {
    this.directory = directory;
    this.port = port;
    this.accessKeyId = accessKeyId;
    this.secretAccessKey = secretAccessKey;
    this.process = process;
    this.watchdog = watchdog;
  }

  /**
   * Starts a server with no buckets and returns once it listens.
   *
   * @throws IllegalStateException when it does not start within 60 s; the message holds its log
   */
  public static S3Server start() {
    List<Path> classpath = classpath();
    Path home;
    try {
      home = Files.createTempDirectory("floe-s3-");
      Files.createDirectories(home.resolve("data"));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a directory for the S3 server", e);
    }
    String accessKeyId = "FLOE" + random(8).toUpperCase(java.util.Locale.ROOT);
    String secretAccessKey = random(20);
    IllegalStateException lastFailure = null;
    for (int attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
      try {
        return launch(home, classpath, accessKeyId, secretAccessKey);
      } catch (IllegalStateException failure) {
        lastFailure = failure;
        if (!failure.getMessage().contains("Address already in use")) {
          break;
        }
      }
    }
    ServerProcesses.deleteRecursively(home);
    throw requireNonNull(lastFailure, "no start attempt was made");
  }

  /** {@code http://127.0.0.1:PORT}: the endpoint S3 clients take ({@code s3.endpoint}). */
  public String endpoint() {
    return "http://127.0.0.1:" + port;
  }

  public int port() {
    return port;
  }

  public String accessKeyId() {
    return accessKeyId;
  }

  public String secretAccessKey() {
    return secretAccessKey;
  }

  public Path directory() {
    return directory;
  }

  /** Where the buckets live: bucket {@code B}'s object {@code K} is the file {@code B/K} here. */
  public Path dataDirectory() {
    return directory.resolve("data");
  }

  public long pid() {
    return process.pid();
  }

  /** Creates an empty bucket (a directory of the file-system backend). */
  public void createBucket(String bucket) {
    try {
      Files.createDirectories(dataDirectory().resolve(bucket));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create bucket " + bucket, e);
    }
  }

  /** The last lines of the server's output, for failure messages. */
  public String logTail() {
    return ServerProcesses.tail(directory.resolve("s3proxy.log"), 40);
  }

  /** Kills the server with SIGKILL (e.g. to test an unreachable endpoint); close() cleans up. */
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

  private static S3Server launch(
      Path home, List<Path> classpath, String accessKeyId, String secretAccessKey) {
    int port = ServerProcesses.freePort();
    Path properties = home.resolve("s3proxy.properties");
    Path log = home.resolve("s3proxy.log");
    try {
      Files.writeString(
          properties,
          String.join(
              "\n",
              "s3proxy.endpoint=http://127.0.0.1:" + port,
              "s3proxy.authorization=aws-v2-or-v4",
              "s3proxy.identity=" + accessKeyId,
              "s3proxy.credential=" + secretAccessKey,
              "jclouds.provider=filesystem-nio2",
              "jclouds.filesystem.basedir=" + home.resolve("data"),
              ""),
          StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the S3 server's configuration", e);
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
            "-classpath",
            String.join(File.pathSeparator, classpath.stream().map(Path::toString).toList()),
            MAIN_CLASS,
            "--properties",
            properties.toString()));
    Process process;
    try {
      ProcessBuilder builder =
          new ProcessBuilder(command)
              .directory(home.toFile())
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
      builder.environment().put("LOG_LEVEL", "info");
      process = builder.start();
    } catch (IOException e) {
      throw new IllegalStateException("cannot start the S3 server: " + e.getMessage(), e);
    }
    Process watchdog = ServerProcesses.startWatchdog(process.pid(), "TERM", Optional.of(home));
    Instant deadline = Instant.now().plus(START_TIMEOUT);
    String listening = "ServerConnector";
    while (Instant.now().isBefore(deadline)) {
      String printed = read(log);
      if (printed.lines().anyMatch(line -> line.contains("Started") && line.contains(listening))) {
        return new S3Server(home, port, accessKeyId, secretAccessKey, process, watchdog);
      }
      if (!process.isAlive()) {
        watchdog.destroy();
        throw new IllegalStateException(
            "the S3 server exited while starting on port "
                + port
                + " (exit code "
                + process.exitValue()
                + "). Its log ends with:\n"
                + ServerProcesses.tail(log, 40));
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
    throw new IllegalStateException(
        "the S3 server did not listen on port "
            + port
            + " within "
            + START_TIMEOUT.toSeconds()
            + " s. Its log ends with:\n"
            + ServerProcesses.tail(log, 40));
  }

  private static String read(Path file) {
    try {
      return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
    } catch (IOException e) {
      return "";
    }
  }

  private static String random(int bytes) {
    byte[] value = new byte[bytes];
    RANDOM.nextBytes(value);
    return HexFormat.of().formatHex(value);
  }

  private static List<Path> classpath() {
    try (InputStream list = S3Server.class.getResourceAsStream(CLASSPATH_RESOURCE)) {
      if (list == null) {
        throw new IllegalStateException(
            CLASSPATH_RESOURCE
                + " is missing from the classpath: build floe-testing-s3proxy with Maven (it"
                + " lists the S3 server's jar)");
      }
      String text = new String(list.readAllBytes(), StandardCharsets.UTF_8).trim();
      List<Path> classpath = new ArrayList<>();
      for (String entry : text.split(File.pathSeparator)) {
        Path jar = Paths.get(entry);
        if (!Files.isRegularFile(jar)) {
          throw new IllegalStateException(
              "the S3 server's jar " + jar + " is missing: build floe-testing-s3proxy again");
        }
        classpath.add(jar);
      }
      return classpath;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + CLASSPATH_RESOURCE, e);
    }
  }
}

package dev.floe.spark;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Apache Spark 3.5 with Iceberg's Spark runtime in local mode, in a JVM of its own (module {@code
 * floe-testing-spark}'s {@code SparkSqlMain} and the jars its {@code spark-classpath.txt} lists),
 * driven statement by statement. One driver with {@code local[2]}, no UI, two shuffle partitions,
 * bound to 127.0.0.1; dates and times come back as {@code java.time} text, in UTC.
 *
 * <p>Not thread-safe: one statement at a time. {@link #close()} ends the session; the session also
 * ends when this JVM dies, since it stops at the end of its input.
 */
final class SparkSql implements AutoCloseable {

  /** A statement Spark refused or failed; the message is Spark's, causes included. */
  static final class SparkSqlException extends RuntimeException {
    SparkSqlException(String message) {
      super(message);
    }
  }

  private static final String CLASSPATH_RESOURCE = "/dev/floe/testing/spark-classpath.txt";
  private static final String MAIN_CLASS = "dev.floe.testing.spark.SparkSqlMain";
  private static final String NULL = "\\N";
  private static final Duration START_TIMEOUT = Duration.ofMinutes(2);
  private static final Duration STATEMENT_TIMEOUT = Duration.ofMinutes(3);

  /**
   * The module options Spark's own launcher adds on Java 17 ({@code
   * org.apache.spark.launcher.JavaModuleOptions}).
   */
  private static final List<String> JAVA_OPTIONS =
      List.of(
          "-XX:+IgnoreUnrecognizedVMOptions",
          "--add-opens=java.base/java.lang=ALL-UNNAMED",
          "--add-opens=java.base/java.lang.invoke=ALL-UNNAMED",
          "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
          "--add-opens=java.base/java.io=ALL-UNNAMED",
          "--add-opens=java.base/java.net=ALL-UNNAMED",
          "--add-opens=java.base/java.nio=ALL-UNNAMED",
          "--add-opens=java.base/java.util=ALL-UNNAMED",
          "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
          "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED",
          "--add-opens=java.base/jdk.internal.ref=ALL-UNNAMED",
          "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
          "--add-opens=java.base/sun.nio.cs=ALL-UNNAMED",
          "--add-opens=java.base/sun.security.action=ALL-UNNAMED",
          "--add-opens=java.base/sun.util.calendar=ALL-UNNAMED",
          "-Djdk.reflect.useDirectMethodHandle=false");

  private final Process process;
  private final Writer statements;
  private final BlockingQueue<String> answers = new LinkedBlockingQueue<>();
  private final Path log;

  private SparkSql(Process process, Path log) {
    this.process = process;
    this.log = log;
    this.statements = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader lines =
                  new BufferedReader(
                      new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                  answers.add(line);
                }
              } catch (IOException e) {
                answers.add("ERROR reading Spark's answers: " + e.getMessage());
              }
              answers.add("EXIT");
            },
            "spark-sql-answers");
    reader.setDaemon(true);
    reader.start();
  }

  /**
   * Starts a session with an Iceberg {@code SparkCatalog} named {@code catalogName} of these
   * Iceberg catalog properties (e.g. {@code type=jdbc}, {@code uri}, {@code warehouse}); Spark's
   * log and scratch files go to {@code directory}. Returns once the session takes statements.
   */
  static SparkSql start(Path directory, String catalogName, Map<String, String> catalog)
      throws IOException, InterruptedException {
    Files.createDirectories(directory);
    Map<String, String> conf = new LinkedHashMap<>();
    conf.put("spark.master", "local[2]");
    conf.put("spark.ui.enabled", "false");
    conf.put("spark.sql.shuffle.partitions", "2");
    conf.put("spark.default.parallelism", "2");
    conf.put("spark.driver.host", "127.0.0.1");
    conf.put("spark.driver.bindAddress", "127.0.0.1");
    conf.put("spark.local.dir", directory.resolve("local").toString());
    conf.put("spark.sql.warehouse.dir", directory.resolve("spark-warehouse").toUri().toString());
    conf.put("spark.sql.session.timeZone", "UTC");
    conf.put("spark.sql.datetime.java8API.enabled", "true");
    conf.put(
        "spark.sql.extensions",
        "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions");
    conf.put("spark.sql.catalog." + catalogName, "org.apache.iceberg.spark.SparkCatalog");
    // Iceberg's SparkCatalog caches a table until it goes unused for 30 s, so a session that keeps
    // reading it never sees another process's commits (Floe's sync, the keeper) without REFRESH.
    conf.put("spark.sql.catalog." + catalogName + ".cache-enabled", "false");
    catalog.forEach(
        (key, value) -> conf.put("spark.sql.catalog." + catalogName + "." + key, value));

    Path log = directory.resolve("spark.log");
    Path log4j = directory.resolve("log4j2.properties");
    Files.writeString(
        log4j,
        String.join(
            "\n",
            "rootLogger.level=INFO",
            "rootLogger.appenderRef.file.ref=file",
            "appender.file.type=File",
            "appender.file.name=file",
            "appender.file.fileName=" + log,
            "appender.file.layout.type=PatternLayout",
            "appender.file.layout.pattern=%d{HH:mm:ss,SSS} %-5p %c{1} - %m%n",
            ""),
        StandardCharsets.UTF_8);
    List<String> command = new ArrayList<>();
    command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx1g");
    command.addAll(JAVA_OPTIONS);
    command.add("-Dlog4j2.configurationFile=file:" + log4j);
    command.add("-classpath");
    command.add(String.join(File.pathSeparator, classpath().stream().map(Path::toString).toList()));
    command.add(MAIN_CLASS);
    conf.forEach((key, value) -> command.add(key + "=" + value));
    Process process =
        new ProcessBuilder(command)
            .directory(directory.toFile())
            .redirectError(log.resolveSibling("spark.err").toFile())
            .start();
    SparkSql spark = new SparkSql(process, log);
    String first = spark.answers.poll(START_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    if (!"READY".equals(first)) {
      String why = first == null ? "no answer within " + START_TIMEOUT : first;
      spark.close();
      throw new IllegalStateException("Spark did not start (" + why + "):\n" + spark.logTail());
    }
    return spark;
  }

  /**
   * Runs one statement and returns its rows, each value as text ({@code null} for SQL NULL).
   *
   * @throws SparkSqlException when Spark fails the statement
   */
  List<List<String>> sql(String statement) throws IOException, InterruptedException {
    if (statement.contains("\n") || statement.contains("\r")) {
      throw new IllegalArgumentException("one line per statement: " + statement);
    }
    statements.write(statement + "\n");
    statements.flush();
    List<List<String>> rows = new ArrayList<>();
    while (true) {
      String line = answers.poll(STATEMENT_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      if (line == null || line.equals("EXIT")) {
        throw new IllegalStateException(
            (line == null ? "no answer within " + STATEMENT_TIMEOUT : "Spark exited")
                + " to: "
                + statement
                + "\n"
                + logTail());
      }
      if (line.startsWith("ROW")) {
        rows.add(values(line));
      } else if (line.startsWith("OK ")) {
        return rows;
      } else if (line.startsWith("ERROR ")) {
        throw new SparkSqlException(line.substring("ERROR ".length()));
      }
    }
  }

  /** The one value of a one-row, one-column query. */
  String value(String query) throws IOException, InterruptedException {
    List<List<String>> rows = sql(query);
    if (rows.size() != 1 || rows.get(0).size() != 1) {
      throw new IllegalStateException("not one value: " + rows + " from " + query);
    }
    return rows.get(0).get(0);
  }

  /** The last lines of Spark's log, for failure messages. */
  String logTail() {
    StringBuilder tail = new StringBuilder();
    for (Path file : List.of(log, log.resolveSibling("spark.err"))) {
      try {
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        tail.append(String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size())))
            .append('\n');
      } catch (IOException e) {
        tail.append("(no ").append(file.getFileName()).append(")\n");
      }
    }
    return tail.toString();
  }

  /** Ends the session (end of input, then SIGTERM, then SIGKILL). */
  @Override
  public void close() throws InterruptedException {
    try {
      statements.close();
    } catch (IOException e) {
      // the process is gone already
    }
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroy();
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      }
    }
  }

  private static List<String> values(String line) {
    List<String> values = new ArrayList<>();
    if (line.equals("ROW")) {
      return values;
    }
    for (String field : line.substring("ROW\t".length()).split("\t", -1)) {
      values.add(field.equals(NULL) ? null : unescape(field));
    }
    return values;
  }

  private static String unescape(String field) {
    StringBuilder text = new StringBuilder(field.length());
    for (int i = 0; i < field.length(); i++) {
      char c = field.charAt(i);
      if (c == '\\' && i + 1 < field.length()) {
        char next = field.charAt(++i);
        text.append(next == 't' ? '\t' : next == 'n' ? '\n' : next);
      } else {
        text.append(c);
      }
    }
    return text.toString();
  }

  /** floe-testing-spark's jar (or classes directory), then the jars its classpath file lists. */
  private static List<Path> classpath() {
    URL resource = SparkSql.class.getResource(CLASSPATH_RESOURCE);
    if (resource == null) {
      throw new IllegalStateException(
          CLASSPATH_RESOURCE
              + " is missing from the classpath: build floe-testing-spark with Maven (it lists"
              + " Spark's jars)");
    }
    List<Path> classpath = new ArrayList<>();
    classpath.add(ownLocation(resource));
    try (InputStream list = resource.openStream()) {
      String text = new String(list.readAllBytes(), StandardCharsets.UTF_8).trim();
      for (String entry : text.split(File.pathSeparator)) {
        Path jar = Paths.get(entry);
        if (!Files.isRegularFile(jar)) {
          throw new IllegalStateException(
              "Spark's jar " + jar + " is missing: build floe-testing-spark again");
        }
        classpath.add(jar);
      }
      return classpath;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + CLASSPATH_RESOURCE, e);
    }
  }

  private static Path ownLocation(URL resource) {
    String text = resource.toString();
    try {
      if (text.startsWith("jar:")) {
        return Paths.get(new URI(text.substring("jar:".length(), text.indexOf("!/"))));
      }
      return Paths.get(new URI(text.substring(0, text.length() - CLASSPATH_RESOURCE.length())));
    } catch (URISyntaxException e) {
      throw new IllegalStateException("cannot locate " + text, e);
    }
  }
}

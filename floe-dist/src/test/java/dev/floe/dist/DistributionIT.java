package dev.floe.dist;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.testing.Poll;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Unpacks the built {@code floe-VERSION.tar.gz} and runs {@code bin/floe} from it the way a user
 * without Maven or the source would: another working directory, a HOME without a Maven repository,
 * and a PATH that holds only what the script itself calls (bash, dirname, readlink).
 */
class DistributionIT {

  private static final String VERSION = System.getProperty("floe.version");

  @TempDir static Path directory;
  private static Path home;
  private static Path path;

  @BeforeAll
  static void unpack() throws Exception {
    Path tarball = Path.of(System.getProperty("floe.distribution"));
    assertThat(tarball).exists();
    Process tar =
        new ProcessBuilder("tar", "-xzf", tarball.toString(), "-C", directory.toString())
            .inheritIO()
            .start();
    assertThat(tar.waitFor()).isZero();
    home = directory.resolve("floe-" + VERSION);
    path = Files.createDirectories(directory.resolve("path"));
    for (String tool : List.of("bash", "dirname", "readlink")) {
      Files.createSymbolicLink(path.resolve(tool), which(tool));
    }
  }

  @Test
  void holdsTheLauncherTheJarsInMavensOrderTheConfigAndTheImageDefinition() throws Exception {
    assertThat(Files.getPosixFilePermissions(home.resolve("bin/floe")))
        .contains(PosixFilePermission.OWNER_EXECUTE);
    assertThat(Files.readString(home.resolve("bin/floe")))
        .contains("--add-opens=java.base/java.lang=ALL-UNNAMED")
        .doesNotContain("${floe.jvm.opens}");
    assertThat(home.resolve("conf/floe.yaml")).isRegularFile();
    assertThat(Files.readString(home.resolve("Dockerfile"))).contains("ENTRYPOINT [\"floe\"]");

    String[] classpath = Files.readString(home.resolve("lib/classpath.txt")).trim().split(":");
    assertThat(classpath[0]).isEqualTo("lib/floe-cli-" + VERSION + ".jar");
    List<Path> listed = new ArrayList<>();
    for (String entry : classpath) {
      assertThat(entry).startsWith("lib/");
      Path jar = home.resolve(entry);
      assertThat(jar).as(entry).isRegularFile();
      listed.add(jar);
    }
    try (Stream<Path> jars = Files.list(home.resolve("lib"))) {
      assertThat(jars.filter(file -> file.toString().endsWith(".jar")))
          .as("every jar in lib/ is on the classpath")
          .containsExactlyInAnyOrderElementsOf(listed);
    }
    // The CDC connector patches Debezium's classes: its jar must come first.
    assertThat(indexOf(classpath, "flink-connector-mysql-cdc"))
        .isLessThan(indexOf(classpath, "debezium-connector-mysql"));
  }

  @Test
  void runsWithOnlyAJdk() throws Exception {
    Run version = floe("--version");
    assertThat(version.exitCode()).as(version.output()).isZero();
    assertThat(version.output()).contains("Floe " + VERSION);

    Run config = floe("--config", home.resolve("conf/floe.yaml").toString(), "config");
    assertThat(config.exitCode()).as(config.output()).isZero();
    assertThat(config.output()).contains("embedded").contains("127.0.0.1:8420");

    // Flink's SQL engine and the embedded Iceberg catalog, from the distribution's jars.
    Run sql =
        floe(
            "--data-dir",
            directory.resolve("data").toString(),
            "sql",
            "--format",
            "csv",
            "-e",
            "SELECT 6 * 7 AS answer; SHOW DATABASES");
    assertThat(sql.exitCode()).as(sql.output()).isZero();
    assertThat(sql.output()).contains("answer\n42\n");
  }

  @Test
  void servesTheKeeperUntilSigterm() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    Path log = directory.resolve("serve.log");
    Process serve =
        start(
            log,
            "--data-dir",
            directory.resolve("keeper").toString(),
            "serve",
            "--listen",
            "127.0.0.1:" + port);
    try {
      HttpClient client = HttpClient.newHttpClient();
      HttpRequest health =
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/v1/health")).build();
      Poll.until(
          "floe serve from the distribution answers /api/v1/health",
          Duration.ofSeconds(90),
          Duration.ofMillis(250),
          () -> {
            if (!serve.isAlive()) {
              throw new AssertionError("floe serve ended: " + Files.readString(log));
            }
            try {
              return client.send(health, HttpResponse.BodyHandlers.ofString()).statusCode() == 200;
            } catch (IOException notYet) {
              return false;
            }
          });
      serve.destroy(); // SIGTERM: a clean stop
      assertThat(serve.waitFor(60, TimeUnit.SECONDS)).as("stopped within 60 s").isTrue();
      assertThat(serve.exitValue()).as(Files.readString(log)).isZero();
    } finally {
      serve.destroyForcibly();
    }
  }

  private record Run(int exitCode, String output) {}

  private static Run floe(String... arguments) throws Exception {
    Path log = Files.createTempFile(directory, "floe-", ".log");
    Process process = start(log, arguments);
    if (!process.waitFor(5, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      throw new AssertionError("bin/floe did not end within 5 minutes: " + Files.readString(log));
    }
    return new Run(process.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
  }

  private static Process start(Path log, String... arguments) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(home.resolve("bin/floe").toString());
    command.addAll(List.of(arguments));
    Path work = Files.createDirectories(directory.resolve("work"));
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .directory(work.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    builder.environment().clear();
    builder.environment().put("PATH", path.toString());
    builder.environment().put("HOME", work.toString());
    builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
    return builder.start();
  }

  private static int indexOf(String[] classpath, String artifact) {
    for (int i = 0; i < classpath.length; i++) {
      if (classpath[i].startsWith("lib/" + artifact + "-")) {
        return i;
      }
    }
    throw new AssertionError(artifact + " is not on the classpath");
  }

  private static Path which(String tool) {
    for (String entry : System.getenv("PATH").split(":")) {
      Path candidate = Path.of(entry, tool);
      if (Files.isExecutable(candidate)) {
        return candidate;
      }
    }
    throw new AssertionError(tool + " is not on the PATH");
  }
}

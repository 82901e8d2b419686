package dev.floe.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.floe.testing.Poll;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.ConnectException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * {@code floe} commands in their own JVMs (this JVM's classpath and module options), so tests can
 * kill them with SIGKILL, and a client for the keeper's API. Close it to kill what is left.
 */
final class FloeProcess implements AutoCloseable {

  static final Duration WITHIN = Duration.ofMinutes(3);

  private final HttpClient client = HttpClient.newHttpClient();
  private final ObjectMapper json = new ObjectMapper();
  private final List<Process> processes = new ArrayList<>();
  private final Optional<String> token;

  /** A client of keepers without an API token. */
  FloeProcess() {
    this(Optional.empty());
  }

  /** A client that sends the keeper's API token. */
  FloeProcess(Optional<String> token) {
    this.token = token;
  }

  /** Starts {@code floe ARGS...} with its output in {@code log}. */
  Process start(Path log, List<String> arguments) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    for (String argument : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (argument.startsWith("--add-opens") || argument.startsWith("--add-exports")) {
        command.add(argument);
      }
    }
    // The product's logging, not the log4j2-test.xml a test jar on the classpath brings.
    command.addAll(
        List.of(
            "-Xmx1g",
            "-Dlog4j2.configurationFile=log4j2.xml",
            "-cp",
            System.getProperty("java.class.path"),
            FloeMain.class.getName()));
    command.addAll(arguments);
    Process process =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    processes.add(process);
    return process;
  }

  /**
   * Starts {@code floe --config CONFIG --data-dir DATA serve --listen 127.0.0.1:PORT} and waits
   * until it serves.
   */
  Process serve(Path config, Path dataDirectory, int port, Path log) throws Exception {
    Process serve =
        start(
            log,
            List.of(
                "--config",
                config.toString(),
                "--data-dir",
                dataDirectory.toString(),
                "serve",
                "--listen",
                "127.0.0.1:" + port));
    awaitOutput(serve, log, "Keeper serving "); // "Keeper serving CATALOG on URL"
    return serve;
  }

  /**
   * Waits until the keeper shows the table idle, optimized and above health 90; on timeout the
   * message holds the table's detail and {@code log}.
   */
  void awaitCompacted(int port, String table, String what, Path log) throws Exception {
    try {
      Poll.until(
          table + " " + what,
          WITHIN,
          Duration.ofMillis(100),
          () ->
              table(port, table)
                  .filter(entry -> entry.get("state").asText().equals("idle"))
                  .filter(entry -> entry.get("health").asInt() > 90)
                  .filter(entry -> !entry.get("last_optimized_at").isNull())
                  .isPresent());
    } catch (AssertionError e) {
      throw new AssertionError(
          e.getMessage()
              + "; now: "
              + get(port, "/api/v1/tables/" + table)
              + "\n"
              + log.getFileName()
              + ":\n"
              + Files.readString(log),
          e);
    }
  }

  /** Waits until the process printed {@code text}; fails at once when it exited. */
  static void awaitOutput(Process process, Path log, String text) throws Exception {
    Poll.until(
        "'" + text + "' in " + log.getFileName(),
        WITHIN,
        Duration.ofMillis(50),
        () -> {
          String output = Files.readString(log, StandardCharsets.UTF_8);
          if (!process.isAlive() && !output.contains(text)) {
            throw new AssertionError("the process exited " + process.exitValue() + ":\n" + output);
          }
          return output.contains(text);
        });
  }

  /** GET of the keeper's API on the port; fails unless 200. */
  JsonNode get(int port, String path) throws Exception {
    return json.readTree(text(port, path));
  }

  /** GET of a text the keeper serves (e.g. /metrics); fails unless 200. */
  String text(int port, String path) throws Exception {
    HttpRequest.Builder builder =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).GET();
    token.ifPresent(value -> builder.header("Authorization", "Bearer " + value));
    HttpRequest request = builder.build();
    HttpResponse<String> response;
    try {
      response = client.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (ConnectException e) {
      throw new AssertionError("floe serve does not answer on port " + port, e);
    }
    if (response.statusCode() != 200) {
      throw new AssertionError(path + " -> " + response.statusCode() + ": " + response.body());
    }
    return response.body();
  }

  /** The API's entry of a table; empty until the keeper lists it. */
  Optional<JsonNode> table(int port, String name) throws Exception {
    for (JsonNode table : get(port, "/api/v1/tables").get("tables")) {
      if (table.get("table").asText().equals(name)) {
        return Optional.of(table);
      }
    }
    return Optional.empty();
  }

  static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  @Override
  public void close() throws InterruptedException {
    for (Process process : processes) {
      process.destroyForcibly();
      process.waitFor(30, TimeUnit.SECONDS);
    }
  }
}

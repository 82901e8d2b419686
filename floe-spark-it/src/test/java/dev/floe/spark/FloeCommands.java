package dev.floe.spark;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.floe.cli.FloeMain;
import dev.floe.testing.Poll;
import java.io.IOException;
import java.lang.management.ManagementFactory;
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
 * {@code floe} commands in JVMs of their own, on this JVM's classpath (floe-cli's) and module
 * options, as a user runs them; and a client of the keeper's API. Close it to kill what is left.
 */
final class FloeCommands implements AutoCloseable {

  static final Duration WITHIN = Duration.ofMinutes(3);

  private final HttpClient client = HttpClient.newHttpClient();
  private final ObjectMapper json = new ObjectMapper();
  private final List<Process> processes = new ArrayList<>();

  /** Starts {@code floe ARGUMENTS...} with its output in {@code log}. */
  Process start(Path log, List<String> arguments) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    for (String argument : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (argument.startsWith("--add-opens") || argument.startsWith("--add-exports")) {
        command.add(argument);
      }
    }
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

  /** Waits until the process printed {@code text}; fails at once when it exited. */
  static void awaitOutput(Process process, Path log, String text) throws Exception {
    Poll.until(
        "'" + text + "' in " + log.getFileName(),
        WITHIN,
        Duration.ofMillis(100),
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
    HttpRequest request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).GET().build();
    HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new AssertionError(path + " -> " + response.statusCode() + ": " + response.body());
    }
    return json.readTree(response.body());
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

  /** The last lines of a log, for failure messages. */
  static String tail(Path log) {
    try {
      List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
    } catch (IOException e) {
      return "(no " + log.getFileName() + ")";
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

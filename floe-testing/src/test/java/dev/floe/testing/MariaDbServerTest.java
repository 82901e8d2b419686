package dev.floe.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(MariaDbExtension.class)
class MariaDbServerTest {

  @Test
  void sharedServerHasBinlogRowFull(MariaDbServer server) throws Exception {
    assertThat(variables(server))
        .containsEntry("log_bin", "ON")
        .containsEntry("binlog_format", "ROW")
        .containsEntry("binlog_row_image", "FULL")
        .containsEntry("server_id", String.valueOf(server.serverId()));
  }

  @Test
  void databasesAreUniquePerCall(MariaDbServer server) {
    String first = server.createDatabase("shop");
    String second = server.createDatabase("shop");

    assertThat(first).isNotEqualTo(second).startsWith("shop_");
  }

  @Test
  void serversStartedTogetherDoNotCollideAndCloseCleanly() throws Exception {
    CompletableFuture<MariaDbServer> first =
        CompletableFuture.supplyAsync(() -> MariaDbServer.builder().start());
    CompletableFuture<MariaDbServer> second =
        CompletableFuture.supplyAsync(() -> MariaDbServer.builder().binlog(false).start());
    MariaDbServer a = first.get(2, TimeUnit.MINUTES);
    MariaDbServer b = second.get(2, TimeUnit.MINUTES);
    Path directory;
    try (a;
        b) {
      assertThat(a.port()).isNotEqualTo(b.port());
      assertThat(a.directory()).isNotEqualTo(b.directory());
      assertThat(variables(a)).containsEntry("log_bin", "ON");
      assertThat(variables(b)).containsEntry("log_bin", "OFF");
      directory = a.directory();
    }
    assertThat(accepts(a.port())).isFalse();
    assertThat(accepts(b.port())).isFalse();
    assertThat(Files.exists(directory)).isFalse();
  }

  @Test
  void aServerWhoseJvmDiesIsStoppedAndRemoved() throws Exception {
    Process child =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                StartServerAndDie.class.getName())
            // Not merged: an install's progress, on stderr, would come before "started".
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    String line;
    try (BufferedReader output =
        new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
      line = output.readLine();
      assertThat(child.waitFor(2, TimeUnit.MINUTES)).isTrue();
    }
    assertThat(line).startsWith("started ");
    String[] parts = line.split(" ");
    int port = Integer.parseInt(parts[1]);
    Path directory = Path.of(parts[2]);

    Instant deadline = Instant.now().plus(Duration.ofSeconds(60));
    while ((accepts(port) || Files.exists(directory)) && Instant.now().isBefore(deadline)) {
      Thread.sleep(200); // polling for the watchdog, bounded by the deadline
    }
    assertThat(accepts(port)).as("server on port %d still accepts connections", port).isFalse();
    assertThat(Files.exists(directory)).as("directory %s still exists", directory).isFalse();
  }

  /** Run in a child JVM: starts a server, prints where, and exits without closing it. */
  public static final class StartServerAndDie {
    public static void main(String[] args) {
      MariaDbServer server = MariaDbServer.builder().start();
      System.out.println("started " + server.port() + " " + server.directory());
      System.out.flush();
      Runtime.getRuntime().halt(0);
    }
  }

  static Map<String, String> variables(MariaDbServer server) throws Exception {
    Map<String, String> variables = new LinkedHashMap<>();
    try (Connection connection = server.rootConnection();
        Statement statement = connection.createStatement();
        ResultSet rows =
            statement.executeQuery(
                "SHOW GLOBAL VARIABLES WHERE Variable_name IN"
                    + " ('log_bin','binlog_format','binlog_row_image','server_id')")) {
      while (rows.next()) {
        variables.put(rows.getString(1), rows.getString(2));
      }
    }
    return variables;
  }

  static boolean accepts(int port) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
      return true;
    } catch (Exception refused) {
      return false;
    }
  }
}

package dev.floe.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(PostgresExtension.class)
class PostgresServerTest {

  @Test
  void theUserLogsInWithItsPasswordAndReadsBackATable(PostgresServer server) throws Exception {
    String database = server.createDatabase("shop");
    List<String> rows = new ArrayList<>();
    try (Connection connection =
            DriverManager.getConnection(
                server.jdbcUrl(database), server.user(), server.password());
        Statement statement = connection.createStatement()) {
      statement.execute("CREATE TABLE item (id integer PRIMARY KEY, name text NOT NULL)");
      statement.execute("INSERT INTO item VALUES (1, 'kettle'), (2, 'teapot')");
      try (ResultSet result =
          statement.executeQuery("SELECT current_database(), id, name FROM item ORDER BY id")) {
        while (result.next()) {
          rows.add(result.getString(1) + " " + result.getInt(2) + " " + result.getString(3));
        }
      }
    }

    assertThat(server.jdbcUrl(database))
        .isEqualTo("jdbc:postgresql://127.0.0.1:" + server.port() + "/" + database);
    assertThat(rows).containsExactly(database + " 1 kettle", database + " 2 teapot");
  }

  @Test
  void aWrongPasswordIsRefused(PostgresServer server) {
    assertThatThrownBy(
            () ->
                DriverManager.getConnection(
                    server.jdbcUrl(), server.user(), server.password() + "-wrong"))
        .isInstanceOfSatisfying(
            SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("28P01"))
        .hasMessage("FATAL: password authentication failed for user \"floe\"");
  }

  @Test
  void databasesAreUniquePerCall(PostgresServer server) {
    String first = server.createDatabase("shop");
    String second = server.createDatabase("shop");

    assertThat(first).isNotEqualTo(second).startsWith("shop_");
  }

  @Test
  void aDatabaseNameLongerThanPostgresAllowsIsRefused(PostgresServer server) {
    String prefix = "p".repeat(60);

    assertThatThrownBy(() -> server.createDatabase(prefix))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("database prefix '" + prefix + "' is too long: '" + prefix + "_")
        .hasMessageEndingWith("' exceeds PostgreSQL's 63 bytes");
  }

  @Test
  void theServerListensOnLoopbackOnlyWithFsyncOff(PostgresServer server) throws Exception {
    assertThat(setting(server, "listen_addresses")).isEqualTo("127.0.0.1");
    assertThat(setting(server, "port")).isEqualTo(String.valueOf(server.port()));
    assertThat(setting(server, "fsync")).isEqualTo("off");
    assertThat(setting(server, "unix_socket_directories")).isEqualTo(server.directory().toString());
    assertThat(Path.of(setting(server, "data_directory")))
        .isEqualTo(server.directory().resolve("data"));
  }

  @Test
  void serversStartedTogetherDoNotCollideAndCloseCleanly(PostgresServer shared) throws Exception {
    CompletableFuture<PostgresServer> first =
        CompletableFuture.supplyAsync(() -> PostgresServer.builder().start());
    CompletableFuture<PostgresServer> second =
        CompletableFuture.supplyAsync(
            () -> PostgresServer.builder().setting("max_connections", "20").start());
    PostgresServer a = first.get(2, TimeUnit.MINUTES);
    PostgresServer b = second.get(2, TimeUnit.MINUTES);
    try (a;
        b) {
      assertThat(List.of(a.port(), b.port(), shared.port())).doesNotHaveDuplicates();
      assertThat(List.of(a.directory(), b.directory(), shared.directory())).doesNotHaveDuplicates();
      assertThat(a.password()).isNotEqualTo(b.password());
      assertThat(setting(a, "port")).isEqualTo(String.valueOf(a.port()));
      assertThat(setting(b, "port")).isEqualTo(String.valueOf(b.port()));
      assertThat(setting(a, "max_connections")).isEqualTo("100");
      assertThat(setting(b, "max_connections")).isEqualTo("20");
      assertThat(accepts(a.port())).isTrue();
    }

    for (PostgresServer closed : List.of(a, b)) {
      assertThat(accepts(closed.port())).as("port %d still accepts", closed.port()).isFalse();
      assertThat(canBind(closed.port())).as("port %d cannot be bound", closed.port()).isTrue();
      assertThat(Files.exists(closed.directory())).isFalse();
    }
    assertThat(setting(shared, "port")).isEqualTo(String.valueOf(shared.port()));
  }

  @Test
  void closeStopsAServerWithOpenSessionsPromptly() throws Exception {
    PostgresServer server = PostgresServer.builder().start();
    Connection leftOpen = server.connection();
    try {
      Instant before = Instant.now();
      server.close();

      // A smart shutdown would wait for leftOpen until the 30 s stop timeout.
      assertThat(Duration.between(before, Instant.now())).isLessThan(Duration.ofSeconds(10));
      assertThat(accepts(server.port())).isFalse();
      assertThat(Files.exists(server.directory())).isFalse();
    } finally {
      leftOpen.close();
    }
  }

  @Test
  void theInstallScriptIsPackagedAndExitsAtOnceWhenPostgresIsPresent() {
    assertThat(PostgresServer.PostgresBinaries.find()).isPresent();

    ServerProcesses.runInstallScript("install-postgresql.sh", "postgresql");
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
      PostgresServer server = PostgresServer.builder().start();
      System.out.println("started " + server.port() + " " + server.directory());
      System.out.flush();
      Runtime.getRuntime().halt(0);
    }
  }

  static String setting(PostgresServer server, String name) throws SQLException {
    try (Connection connection = server.connection();
        Statement statement = connection.createStatement();
        ResultSet result =
            statement.executeQuery("SELECT setting FROM pg_settings WHERE name = '" + name + "'")) {
      assertThat(result.next()).as("setting %s exists", name).isTrue();
      return result.getString(1);
    }
  }

  static boolean accepts(int port) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
      return true;
    } catch (IOException refused) {
      return false;
    }
  }

  static boolean canBind(int port) {
    try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
      return true;
    } catch (IOException taken) {
      return false;
    }
  }
}

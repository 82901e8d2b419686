package dev.floe.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class RestCatalogServerTest {

  private final HttpClient client = HttpClient.newHttpClient();

  @Test
  void aNamespaceCreatedOverTheRestApiIsListedInTheWarehouseAndCloseStopsTheServer()
      throws Exception {
    Path directory;
    int port;
    try (RestCatalogServer server = RestCatalogServer.start()) {
      directory = server.directory();
      port = server.port();
      assertThat(server.uri()).isEqualTo("http://127.0.0.1:" + port);
      assertThat(ProcessHandle.of(server.pid()).map(ProcessHandle::isAlive)).contains(true);

      HttpResponse<String> config = get(server, "/v1/config");
      assertThat(config.statusCode()).isEqualTo(200);
      assertThat(config.body()).contains("\"defaults\"");

      HttpResponse<String> created =
          client.send(
              HttpRequest.newBuilder(URI.create(server.uri() + "/v1/namespaces"))
                  .POST(HttpRequest.BodyPublishers.ofString("{\"namespace\": [\"shop\"]}"))
                  .header("Content-Type", "application/json")
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(created.statusCode()).as(created.body()).isEqualTo(200);
      assertThat(created.body()).contains("\"location\":\"" + server.warehouse() + "shop\"");
      assertThat(get(server, "/v1/namespaces").body()).contains("[\"shop\"]");
      assertThat(Listeners.addresses(port)).containsExactly("127.0.0.1");
    }
    assertThat(Listeners.accepts(port)).as("port %d still accepts", port).isFalse();
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

    Poll.until(
        "the REST catalog of a dead JVM stopped and removed",
        Duration.ofSeconds(60),
        Duration.ofMillis(200),
        () -> !Listeners.accepts(port) && !Files.exists(directory));
  }

  /** Run in a child JVM: starts a server, prints where, and exits without closing it. */
  public static final class StartServerAndDie {
    public static void main(String[] args) {
      RestCatalogServer server = RestCatalogServer.start();
      System.out.println("started " + server.port() + " " + server.directory());
      System.out.flush();
      Runtime.getRuntime().halt(0);
    }
  }

  private HttpResponse<String> get(RestCatalogServer server, String path) throws Exception {
    return client.send(
        HttpRequest.newBuilder(URI.create(server.uri() + path)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }
}

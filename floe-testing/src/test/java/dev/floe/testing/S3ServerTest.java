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
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class S3ServerTest {

  private final HttpClient client = HttpClient.newHttpClient();

  @Test
  void aBucketIsADirectoryABadSignatureIsRefusedAndCloseStopsTheServer() throws Exception {
    Path directory;
    int port;
    try (S3Server server = S3Server.start()) {
      directory = server.directory();
      port = server.port();
      assertThat(server.endpoint()).isEqualTo("http://127.0.0.1:" + port);
      assertThat(server.accessKeyId()).startsWith("FLOE").hasSize(20);
      assertThat(server.secretAccessKey()).hasSize(40);
      server.createBucket("lake");
      Files.writeString(server.dataDirectory().resolve("lake/hello.txt"), "hi");

      HttpResponse<String> badlySigned =
          client.send(
              HttpRequest.newBuilder(URI.create(server.endpoint() + "/lake/hello.txt"))
                  .header(
                      "Date",
                      DateTimeFormatter.RFC_1123_DATE_TIME.format(
                          ZonedDateTime.now(ZoneOffset.UTC)))
                  .header(
                      "Authorization", "AWS " + server.accessKeyId() + ":bm90LXRoZS1zaWduYXR1cmU=")
                  .GET()
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(badlySigned.statusCode()).isEqualTo(403);
      assertThat(badlySigned.body()).contains("<Code>SignatureDoesNotMatch</Code>");
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
        "the S3 server of a dead JVM stopped and removed",
        Duration.ofSeconds(60),
        Duration.ofMillis(200),
        () -> !Listeners.accepts(port) && !Files.exists(directory));
  }

  /** Run in a child JVM: starts a server, prints where, and exits without closing it. */
  public static final class StartServerAndDie {
    public static void main(String[] args) {
      S3Server server = S3Server.start();
      System.out.println("started " + server.port() + " " + server.directory());
      System.out.flush();
      Runtime.getRuntime().halt(0);
    }
  }
}

package dev.floe.sync;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.floe.core.Secret;
import dev.floe.core.config.CatalogSettings;
import dev.floe.core.error.FloeException;
import dev.floe.core.source.MySqlSourceAddress;
import dev.floe.iceberg.CatalogFactory;
import dev.floe.iceberg.FloeCatalog;
import dev.floe.mysql.MySqlConnections;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The reporter against a keeper that is not there, then answers errors, then takes reports: it
 * never throws into the sync, and sends the token and the contract's fields.
 */
class KeeperReporterTest {

  @TempDir Path directory;

  @Test
  void aKeeperThatIsDownOrFailingNeverStopsTheReports() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    try (FloeCatalog catalog =
        new CatalogFactory().open(CatalogSettings.embedded(), directory.resolve("data"))) {
      SyncProgress progress =
          new SyncProgress(
              catalog,
              Map.of(),
              new MySqlConnections(Duration.ofSeconds(1)),
              MySqlSourceAddress.parse("mysql://floe@127.0.0.1:1", "--source"));
      KeeperReporter reporter =
          new KeeperReporter(
              URI.create("http://127.0.0.1:" + port + "/"),
              Optional.of(Secret.of("report-token")),
              "shop sync",
              "mysql://floe@db:3306",
              progress,
              Clock.systemUTC());

      reporter.send(KeeperReporter.State.RUNNING, Optional.empty()); // nothing listens: no throw

      List<String> paths = new CopyOnWriteArrayList<>();
      List<String> tokens = new CopyOnWriteArrayList<>();
      List<JsonNode> bodies = new CopyOnWriteArrayList<>();
      AtomicInteger status = new AtomicInteger(500);
      HttpServer keeper = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 0);
      keeper.createContext(
          "/",
          exchange -> {
            paths.add(exchange.getRequestMethod() + " " + exchange.getRequestURI().getRawPath());
            tokens.add(exchange.getRequestHeaders().getFirst("Authorization"));
            bodies.add(new ObjectMapper().readTree(exchange.getRequestBody()));
            byte[] answer =
                "{\"error\": \"busy\"}".getBytes(java.nio.charset.StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(status.get(), answer.length);
            exchange.getResponseBody().write(answer);
            exchange.close();
          });
      keeper.start();
      try {
        reporter.send(KeeperReporter.State.RUNNING, Optional.empty()); // 500: no throw
        status.set(200);
        reporter.send(KeeperReporter.State.RUNNING, Optional.empty());
        reporter.finish(KeeperReporter.State.FAILED, Optional.of("the binlog job failed"));
        reporter.finish(KeeperReporter.State.STOPPED, Optional.empty()); // ignored: finished
      } finally {
        keeper.stop(0);
      }

      assertThat(paths).containsOnly("PUT /api/v1/syncs/shop+sync").hasSize(3);
      assertThat(tokens).containsOnly("Bearer report-token");
      JsonNode running = bodies.get(1);
      assertThat(running.get("source").asText()).isEqualTo("mysql://floe@db:3306");
      assertThat(running.get("state").asText()).isEqualTo("running");
      assertThat(running.get("started_at").asText()).isNotEmpty();
      assertThat(running.get("lag_ms").isNull()).isTrue();
      assertThat(running.get("error").isNull()).isTrue();
      assertThat(running.get("tables").isArray()).isTrue();
      JsonNode last = bodies.get(2);
      assertThat(last.get("state").asText()).isEqualTo("failed");
      assertThat(last.get("error").asText()).isEqualTo("the binlog job failed");
    }
  }

  @Test
  void aKeeperUrlThatIsNoHttpUrlIsRefusedNamingTheOption() {
    for (String bad : List.of("127.0.0.1:8420", "ftp://keeper:21", "http://user:pw@keeper:1")) {
      Assertions.assertThatThrownBy(() -> KeeperReporter.keeperUrl(bad, "keeper.url"))
          .isInstanceOf(FloeException.class)
          .hasMessage(
              "keeper.url must be the keeper's http(s) URL, e.g. http://127.0.0.1:8420; got '"
                  + bad
                  + "'.");
    }
    assertThat(KeeperReporter.keeperUrl("https://keeper.example:8443", "--keeper"))
        .isEqualTo(URI.create("https://keeper.example:8443"));
  }
}

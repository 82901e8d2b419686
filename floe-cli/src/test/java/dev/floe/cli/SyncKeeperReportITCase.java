package dev.floe.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.floe.testing.MariaDbExtension;
import dev.floe.testing.MariaDbServer;
import dev.floe.testing.Poll;
import dev.floe.testing.SampleShop;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code floe sync --keeper URL} reports to a real {@code floe serve} with its token: the keeper
 * shows the sync running with its tables in the binlog phase and a small lag, then stopped.
 */
@ExtendWith(MariaDbExtension.class)
class SyncKeeperReportITCase {

  private static final String TOKEN = "sync-report-token-0123456789";

  @TempDir Path directory;

  private final HttpClient client = HttpClient.newHttpClient();
  private final ObjectMapper json = new ObjectMapper();

  @Test
  void aSyncReportsRunningWithItsTablesThenStopped(MariaDbServer server) throws Exception {
    String database = server.createDatabase("reported");
    SampleShop.create(server, database, new SampleShop.Size(50, 10, 100, 2));
    Path config = directory.resolve("floe.yaml");
    Files.writeString(config, "keeper:\n  api-token: " + TOKEN + "\n");
    int port = FloeProcess.freePort();
    try (FloeProcess floe = new FloeProcess()) {
      floe.serve(config, directory.resolve("keeper-data"), port, directory.resolve("serve.log"));
      Path syncLog = directory.resolve("sync.log");
      Process sync =
          floe.start(
              syncLog,
              List.of(
                  "--config",
                  config.toString(),
                  "--data-dir",
                  directory.resolve("sync-data").toString(),
                  "sync",
                  "--source",
                  server.sourceUrl("root", "", ""),
                  "--tables",
                  database + "\\..*",
                  "--name",
                  "shop-sync",
                  "--checkpoint-interval",
                  "1",
                  "--heartbeat-interval",
                  "1",
                  "--keeper",
                  "http://127.0.0.1:" + port));
      FloeProcess.awaitOutput(sync, syncLog, "Reporting to the keeper at http://127.0.0.1:" + port);

      JsonNode running =
          awaitSync(
              port,
              "running with every table in its binlog phase",
              report ->
                  report.get("state").asText().equals("running")
                      && report.get("tables").size() == 4
                      && allInBinlog(report)
                      && report.get("lag_ms").isIntegralNumber()
                      && report.get("lag_ms").asLong() < 10_000);
      assertThat(running.get("source").asText())
          .isEqualTo("mysql://root@127.0.0.1:" + server.port());
      assertThat(running.get("stale").asBoolean()).isFalse();
      assertThat(running.get("started_at").asText()).isNotEmpty();
      List<String> tables = new ArrayList<>();
      running.get("tables").forEach(table -> tables.add(table.get("source_table").asText()));
      assertThat(tables)
          .containsExactlyInAnyOrder(
              database + ".customers",
              database + ".products",
              database + ".orders",
              database + ".order_items");
      JsonNode orders = table(running, database + ".orders");
      assertThat(orders.get("table").asText()).isEqualTo(database + ".orders");
      assertThat(orders.get("rows").asLong()).isEqualTo(100);
      assertThat(get(port, "/api/v1/syncs", Optional.of(TOKEN)).get("syncs"))
          .singleElement()
          .satisfies(listed -> assertThat(listed.get("name").asText()).isEqualTo("shop-sync"));
      assertThat(get(port, "/api/v1/overview", Optional.of(TOKEN)).get("syncs"))
          .singleElement()
          .satisfies(listed -> assertThat(listed.get("state").asText()).isEqualTo("running"));
      assertThat(status(port, "/api/v1/syncs/shop-sync", Optional.empty()))
          .as("no report without the token")
          .isEqualTo(401);

      sync.destroy(); // SIGTERM: stops with a savepoint and sends a last report
      assertThat(sync.waitFor(2, TimeUnit.MINUTES)).isTrue();
      JsonNode stopped =
          awaitSync(port, "stopped", report -> report.get("state").asText().equals("stopped"));
      assertThat(stopped.get("error").isNull()).isTrue();
      assertThat(Files.readString(syncLog)).doesNotContain("cannot report to the keeper");
    }
  }

  private static boolean allInBinlog(JsonNode report) {
    for (JsonNode table : report.get("tables")) {
      if (!table.get("phase").asText().equals("binlog")) {
        return false;
      }
    }
    return true;
  }

  private static JsonNode table(JsonNode report, String sourceTable) {
    for (JsonNode table : report.get("tables")) {
      if (table.get("source_table").asText().equals(sourceTable)) {
        return table;
      }
    }
    throw new AssertionError("no table " + sourceTable + " in " + report);
  }

  private JsonNode awaitSync(
      int port, String what, java.util.function.Predicate<JsonNode> condition) throws Exception {
    JsonNode[] last = new JsonNode[1];
    try {
      return Poll.until(
          "the keeper shows shop-sync " + what,
          FloeProcess.WITHIN,
          Duration.ofMillis(250),
          () -> {
            if (status(port, "/api/v1/syncs/shop-sync", Optional.of(TOKEN)) != 200) {
              return Optional.empty();
            }
            last[0] = get(port, "/api/v1/syncs/shop-sync", Optional.of(TOKEN));
            return condition.test(last[0]) ? Optional.of(last[0]) : Optional.empty();
          });
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "; last report: " + last[0], e);
    }
  }

  private HttpResponse<String> send(int port, String path, Optional<String> token)
      throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).GET();
    token.ifPresent(value -> request.header("Authorization", "Bearer " + value));
    return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private int status(int port, String path, Optional<String> token) throws Exception {
    return send(port, path, token).statusCode();
  }

  private JsonNode get(int port, String path, Optional<String> token) throws Exception {
    HttpResponse<String> response = send(port, path, token);
    assertThat(response.statusCode()).as("%s: %s", path, response.body()).isEqualTo(200);
    return json.readTree(response.body());
  }
}

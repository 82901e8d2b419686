package dev.floe.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.floe.core.Secret;
import dev.floe.core.config.CatalogSettings;
import dev.floe.core.config.KeeperSettings;
import dev.floe.core.config.ListenAddress;
import dev.floe.core.config.MaintenanceIntervals;
import dev.floe.core.config.OptimizerSettings;
import dev.floe.core.config.StoreSettings;
import dev.floe.iceberg.CatalogFactory;
import dev.floe.iceberg.FloeCatalog;
import dev.floe.server.http.KeeperHttpServer;
import dev.floe.server.maintenance.IcebergMaintenanceJobs;
import dev.floe.server.workers.WorkerLauncher;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;

/**
 * A keeper on a private embedded catalog in a temporary directory, with its HTTP edge on a free
 * loopback port, and a client for its API. Test settings: refresh every second, two worker threads.
 */
final class KeeperFixture implements AutoCloseable {

  static final String TOKEN = "s3cret-token-for-tests";

  final Path dataDirectory;
  final FloeCatalog catalog;
  final KeeperService service;
  final KeeperHttpServer http;
  private final HttpClient client = HttpClient.newHttpClient();
  private final ObjectMapper json = new ObjectMapper();

  KeeperFixture(Path dataDirectory, KeeperSettings settings) {
    this(dataDirectory, settings, Clock.systemUTC());
  }

  KeeperFixture(Path dataDirectory, KeeperSettings settings, Clock clock) {
    this.dataDirectory = dataDirectory;
    this.catalog = new CatalogFactory().open(CatalogSettings.embedded(), dataDirectory);
    this.service =
        KeeperService.create(
            dataDirectory,
            CatalogSettings.embedded(),
            settings,
            clock,
            new IcebergMaintenanceJobs(),
            WorkerLauncher.NONE);
    service.start();
    this.http = KeeperHttpServer.start(service, settings.listen(), settings.apiToken());
  }

  static KeeperSettings settings(int quarantineAfterFailures, Optional<Secret> token) {
    return settings(
        quarantineAfterFailures, token, new OptimizerSettings(2, 0.5, Duration.ofSeconds(10)));
  }

  static KeeperSettings settings(
      int quarantineAfterFailures, Optional<Secret> token, OptimizerSettings optimizer) {
    return KeeperSettings.builder()
        .listen(new ListenAddress("127.0.0.1", 0))
        .apiToken(token)
        .refreshInterval(Duration.ofSeconds(1))
        .quarantineAfterFailures(quarantineAfterFailures)
        .taskTimeout(Duration.ofMinutes(5))
        .store(new StoreSettings(Optional.empty(), Optional.empty(), Optional.empty()))
        .optimizer(optimizer)
        .maintenance(
            new MaintenanceIntervals(Duration.ofHours(1), Duration.ofHours(1), Duration.ofDays(1)))
        .build();
  }

  HttpResponse<String> request(String method, String path, Optional<String> token)
      throws IOException, InterruptedException {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + http.port() + path))
            .method(method, HttpRequest.BodyPublishers.noBody());
    token.ifPresent(value -> request.header("Authorization", "Bearer " + value));
    return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  JsonNode get(String path) throws IOException, InterruptedException {
    HttpResponse<String> response = request("GET", path, Optional.of(TOKEN));
    if (response.statusCode() != 200) {
      throw new AssertionError(
          "GET " + path + " -> " + response.statusCode() + " " + response.body());
    }
    return json.readTree(response.body());
  }

  /** The API's entry of a table, empty when the keeper does not list it. */
  Optional<JsonNode> table(String name) throws IOException, InterruptedException {
    for (JsonNode table : get("/api/v1/tables").get("tables")) {
      if (table.get("table").asText().equals(name)) {
        return Optional.of(table);
      }
    }
    return Optional.empty();
  }

  @Override
  public void close() {
    http.close();
    service.close();
    catalog.close();
  }
}

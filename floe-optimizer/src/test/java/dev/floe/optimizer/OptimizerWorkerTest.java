package dev.floe.optimizer;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The worker loop against a hand-written keeper (the protocol is ours): registration succeeds, then
 * every poll answers 503, as a keeper that is going down does.
 */
class OptimizerWorkerTest {

  @TempDir Path directory;

  private final HttpServer keeper = start();
  private final List<Long> polls = new CopyOnWriteArrayList<>();
  private final CountDownLatch thirdPoll = new CountDownLatch(3);

  private HttpServer start() {
    try {
      return HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  @AfterEach
  void stop() {
    keeper.stop(0);
  }

  @Test
  void anUnavailableKeeperIsPolledWithBackoffNotInATightLoop() throws Exception {
    keeper.createContext(
        "/api/v1/workers",
        exchange -> {
          String path = exchange.getRequestURI().getPath();
          if (path.equals("/api/v1/workers")) {
            answer(
                exchange,
                201,
                "{\"worker_id\":\"w-1\",\"lease_timeout_ms\":30000,"
                    + "\"heartbeat_interval_ms\":10000}");
          } else if (path.endsWith("/poll")) {
            polls.add(System.nanoTime());
            thirdPoll.countDown();
            answer(exchange, 503, "{\"error\":\"the keeper is stopping\"}");
          } else {
            answer(exchange, 200, "{}");
          }
        });
    keeper.start();
    OptimizerWorker worker =
        new OptimizerWorker(
            new OptimizerWorker.Options(
                URI.create("http://127.0.0.1:" + keeper.getAddress().getPort()),
                "",
                1,
                Optional.empty(),
                directory,
                Map.of(),
                Duration.ofSeconds(1)));
    Thread running =
        new Thread(
            () -> {
              try {
                worker.run();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            });
    running.start();
    try {
      assertThat(thirdPoll.await(30, TimeUnit.SECONDS)).as("three polls").isTrue();
      // 1 s, then 2 s of backoff between the three failed polls.
      double seconds = (polls.get(2) - polls.get(0)) / 1e9;
      assertThat(seconds).isGreaterThan(2.5);
    } finally {
      worker.stop(Duration.ofSeconds(5));
      running.join(10_000);
    }
    assertThat(running.isAlive()).isFalse();
  }

  private static void answer(HttpExchange exchange, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
    exchange.close();
  }
}

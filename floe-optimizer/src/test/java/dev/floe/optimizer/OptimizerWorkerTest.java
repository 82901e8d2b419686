package dev.floe.optimizer;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.floe.testing.Poll;
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
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The worker loop against a hand-written keeper (the protocol is ours). */
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

  /** Registration succeeds, then every poll answers 503, as a keeper that is going down does. */
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
    OptimizerWorker worker = worker(1);
    Thread running = run(worker);
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

  /**
   * A keeper restarts under a worker with two threads: one thread learns first that its id is
   * unknown and registers again; the other's answer about the old id arrives after that. It must
   * not throw away the new registration (it did: the keeper then listed the worker twice until the
   * new entry's lease ran out, and the worker's tasks of that registration were lost).
   */
  @Test
  void anAnswerAboutAnEarlierIdLeavesTheNewRegistrationAlone() throws Exception {
    AtomicInteger registrations = new AtomicInteger();
    CountDownLatch registeredAgain = new CountDownLatch(1);
    AtomicBoolean heldPoll = new AtomicBoolean();
    AtomicBoolean staleAnswered = new AtomicBoolean();
    List<String> pollsAfterStaleAnswer = new CopyOnWriteArrayList<>();
    CountDownLatch done = new CountDownLatch(1);
    keeper.setExecutor(Executors.newCachedThreadPool());
    keeper.createContext(
        "/api/v1/workers",
        exchange -> {
          String path = exchange.getRequestURI().getPath();
          try {
            if (path.equals("/api/v1/workers")) {
              int n = registrations.incrementAndGet();
              answer(
                  exchange,
                  201,
                  "{\"worker_id\":\"w-"
                      + n
                      + "\",\"lease_timeout_ms\":30000,"
                      + "\"heartbeat_interval_ms\":60000}");
              if (n == 2) {
                registeredAgain.countDown();
              }
            } else if (path.equals("/api/v1/workers/w-1/poll")) {
              if (heldPoll.compareAndSet(false, true)) {
                // the first thread's poll of the old id is answered once the worker registered
                // again
                registeredAgain.await(30, TimeUnit.SECONDS);
                answer(exchange, 404, "{\"error\":\"unknown worker w-1\"}");
                staleAnswered.set(true);
              } else {
                answer(exchange, 404, "{\"error\":\"unknown worker w-1\"}");
              }
            } else if (path.endsWith("/poll")) {
              if (staleAnswered.get()) {
                pollsAfterStaleAnswer.add(path);
              }
              done.await(30, TimeUnit.SECONDS); // a long poll that brings no task
              exchange.sendResponseHeaders(204, -1);
              exchange.close();
            } else {
              answer(exchange, 200, "{}");
            }
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
    keeper.start();
    OptimizerWorker worker = worker(2);
    Thread running = run(worker);
    try {
      Poll.until(
          "the thread that got the late answer about w-1 polls again",
          Duration.ofSeconds(30),
          Duration.ofMillis(20),
          () -> pollsAfterStaleAnswer.size() >= 1);
      assertThat(pollsAfterStaleAnswer).containsOnly("/api/v1/workers/w-2/poll");
      assertThat(registrations.get()).isEqualTo(2);
    } finally {
      done.countDown();
      worker.stop(Duration.ofSeconds(5));
      running.join(10_000);
    }
  }

  /** A worker of the hand-written keeper with this many threads. */
  private OptimizerWorker worker(int threads) {
    return new OptimizerWorker(
        new OptimizerWorker.Options(
            URI.create("http://127.0.0.1:" + keeper.getAddress().getPort()),
            "",
            threads,
            Optional.empty(),
            directory,
            Map.of(),
            Duration.ofSeconds(1)));
  }

  /** Runs the worker on a thread of its own, started. */
  private static Thread run(OptimizerWorker worker) {
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
    return running;
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

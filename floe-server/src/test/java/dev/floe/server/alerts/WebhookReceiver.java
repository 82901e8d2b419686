package dev.floe.server.alerts;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** A real HTTP receiver on loopback that keeps every request and answers a fixed status. */
public final class WebhookReceiver implements AutoCloseable {

  /** One request as received. */
  public record Received(String pathAndQuery, Map<String, String> headers, String body) {}

  private final HttpServer server;
  private final BlockingQueue<Received> received = new LinkedBlockingQueue<>();

  public WebhookReceiver(int status, String answer) throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    server.createContext(
        "/",
        exchange -> {
          try (exchange) {
            Map<String, String> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
            exchange
                .getRequestHeaders()
                .forEach((name, values) -> headers.put(name, values.get(0)));
            String query = exchange.getRequestURI().getRawQuery();
            received.add(
                new Received(
                    exchange.getRequestURI().getRawPath() + (query == null ? "" : "?" + query),
                    headers,
                    new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8)));
            byte[] bytes = answer.getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(status, bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
              out.write(bytes);
            }
          }
        });
    server.start();
  }

  public URI url(String path) {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + path);
  }

  /** The next request, waiting up to {@code within}. */
  public Received next(Duration within) throws InterruptedException {
    Received next = received.poll(within.toMillis(), TimeUnit.MILLISECONDS);
    if (next == null) {
      throw new AssertionError("no request arrived within " + within);
    }
    return next;
  }

  @Override
  public void close() {
    server.stop(0);
  }
}

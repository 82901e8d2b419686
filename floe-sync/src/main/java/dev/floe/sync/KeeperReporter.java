package dev.floe.sync;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.floe.core.Secret;
import dev.floe.core.error.FloeException;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends a sync's status to the keeper ({@code PUT /api/v1/syncs/{name}}) every {@link #INTERVAL},
 * and a last one when the sync ends. A keeper that cannot be reached, or that refuses a report,
 * never stops the sync: the reporter says so once per outage and sends the next report on time.
 *
 * <p>Thread-safe; one thread of its own.
 */
public final class KeeperReporter implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(KeeperReporter.class);

  /** How often a running sync reports. */
  public static final Duration INTERVAL = Duration.ofSeconds(5);

  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);

  /** How a sync ended, or that it runs. */
  public enum State {
    RUNNING,
    STOPPED,
    FAILED;

    String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  private final URI endpoint;
  private final Optional<Secret> token;
  private final String source;
  private final SyncProgress progress;
  private final Clock clock;
  private final Instant startedAt;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(REQUEST_TIMEOUT).build();
  private final ObjectMapper json = new ObjectMapper();
  private final ScheduledExecutorService thread =
      Executors.newSingleThreadScheduledExecutor(
          runnable -> {
            Thread reporter = new Thread(runnable, "floe-sync-keeper-reporter");
            reporter.setDaemon(true);
            return reporter;
          });
  private boolean failing;
  private boolean finished;

  /**
   * @param keeper the keeper's base URL ({@link #keeperUrl})
   * @param token the keeper's API token, if it has one
   * @param name the sync's name
   * @param source the source as reports show it: {@code mysql://USER@HOST:PORT}, no password
   * @param progress reads the sync's status
   */
  public KeeperReporter(
      URI keeper,
      Optional<Secret> token,
      String name,
      String source,
      SyncProgress progress,
      Clock clock) {
    requireNonNull(keeper, "keeper is null");
    requireNonNull(name, "name is null");
    this.endpoint =
        URI.create(
            keeper.toString().replaceAll("/+$", "")
                + "/api/v1/syncs/"
                + URLEncoder.encode(name, StandardCharsets.UTF_8));
    this.token = requireNonNull(token, "token is null");
    this.source = requireNonNull(source, "source is null");
    this.progress = requireNonNull(progress, "progress is null");
    this.clock = requireNonNull(clock, "clock is null");
    this.startedAt = clock.instant();
  }

  /**
   * Reads a keeper's base URL.
   *
   * @param option how messages name where it came from ({@code --keeper}, {@code keeper.url})
   * @throws FloeException BAD_INPUT when it is not an http(s)://HOST[:PORT] URL
   */
  public static URI keeperUrl(String text, String option) {
    requireNonNull(text, "text is null");
    URI uri;
    try {
      uri = new URI(text.trim());
    } catch (java.net.URISyntaxException e) {
      uri = null;
    }
    if (uri == null
        || uri.getHost() == null
        || !("http".equalsIgnoreCase(uri.getScheme()) || "https".equalsIgnoreCase(uri.getScheme()))
        || uri.getUserInfo() != null
        || uri.getQuery() != null) {
      throw FloeException.badInput(
          option
              + " must be the keeper's http(s) URL, e.g. http://127.0.0.1:8420; got '"
              + text
              + "'.");
    }
    return uri;
  }

  /** Starts reporting, the first report at once. */
  public void start() {
    thread.scheduleWithFixedDelay(
        () -> send(State.RUNNING, Optional.empty()), 0, INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
  }

  /**
   * Stops the reports and sends the last one; waits for it at most the request timeout. Calls after
   * the first do nothing.
   */
  public void finish(State state, Optional<String> error) {
    requireNonNull(state, "state is null");
    requireNonNull(error, "error is null");
    synchronized (this) {
      if (finished) {
        return;
      }
      finished = true;
    }
    thread.shutdown();
    try {
      thread.awaitTermination(REQUEST_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    send(state, error);
  }

  /** Stops the reports without a last one. */
  @Override
  public void close() {
    thread.shutdownNow();
  }

  /** Sends one report. Never throws. */
  void send(State state, Optional<String> error) {
    try {
      byte[] body = json.writeValueAsBytes(report(state, error));
      HttpRequest.Builder request =
          HttpRequest.newBuilder(endpoint)
              .timeout(REQUEST_TIMEOUT)
              .header("Content-Type", "application/json")
              .PUT(HttpRequest.BodyPublishers.ofByteArray(body));
      token.ifPresent(secret -> request.header("Authorization", "Bearer " + secret.reveal()));
      HttpResponse<String> response =
          http.send(request.build(), HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() / 100 != 2) {
        trouble("it answered " + response.statusCode() + ": " + response.body().strip());
      } else {
        recovered();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (IOException | RuntimeException e) {
      trouble(e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
    }
  }

  private synchronized void trouble(String why) {
    if (!failing) {
      LOG.warn(
          "cannot report to the keeper at {} ({}); the sync goes on and reports again every {} s",
          endpoint,
          why,
          INTERVAL.toSeconds());
      failing = true;
    }
  }

  private synchronized void recovered() {
    if (failing) {
      LOG.info("reporting to the keeper at {} again", endpoint);
      failing = false;
    }
  }

  /** The report's body, as the keeper's API takes it. */
  Map<String, Object> report(State state, Optional<String> error) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("source", source);
    body.put("state", state.label());
    body.put("started_at", startedAt.toString());
    List<Map<String, Object>> tables = new ArrayList<>();
    Long lag = null;
    try {
      SyncStatus status = progress.status();
      lag = status.lagMillis().isPresent() ? status.lagMillis().getAsLong() : null;
      for (SyncStatus.Table table : status.tables()) {
        Map<String, Object> entry = new LinkedHashMap<>();
        entry.put("source_table", table.sourceTable());
        entry.put("table", table.table().toString());
        entry.put("phase", table.phase().label());
        entry.put("rows", Math.max(0, table.rows()));
        entry.put("lag_ms", table.lagMillis().isPresent() ? table.lagMillis().getAsLong() : null);
        entry.put("stopped", table.stopped().orElse(null));
        tables.add(entry);
      }
    } catch (RuntimeException e) {
      // the state still goes out; the tables come with the next report that can read them
      LOG.debug("cannot read the sync's status for the keeper: {}", e.toString());
    }
    body.put("lag_ms", lag);
    body.put("error", error.orElse(null));
    body.put("tables", tables);
    return body;
  }
}

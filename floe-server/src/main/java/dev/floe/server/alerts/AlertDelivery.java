package dev.floe.server.alerts;

import static java.util.Objects.requireNonNull;

import dev.floe.core.alert.AlertChannelSettings;
import dev.floe.core.alert.AlertChannelType;
import dev.floe.core.alert.SmtpSettings;
import dev.floe.server.store.AlertStore;
import dev.floe.server.store.DeliveryRecord;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends notifications to the channels: one thread and queue per channel, so a slow or failing
 * channel never holds up a loop or another channel. Every attempt is recorded in the {@link
 * AlertStore} (pending when queued, then sent or failed with the answer); a failed attempt is tried
 * again after the {@link Backoff}'s delay, up to its number of attempts.
 *
 * <p>Thread-safe: {@link #send} only queues.
 */
public final class AlertDelivery implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(AlertDelivery.class);
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

  /**
   * When failed attempts are tried again: after {@code first}, doubling up to {@code max}, until
   * {@code attempts} were made.
   */
  public record Backoff(Duration first, Duration max, int attempts) {
    /** 5 s doubling to 10 min, up to 10 attempts (docs/keeper.md). */
    public static final Backoff DEFAULT =
        new Backoff(Duration.ofSeconds(5), Duration.ofMinutes(10), 10);

    public Backoff {
      requireNonNull(first, "first is null");
      requireNonNull(max, "max is null");
      if (attempts < 1) {
        throw new IllegalArgumentException("attempts must be at least 1, got " + attempts);
      }
    }

    /** The wait after the failed attempt {@code attempt} (1 for the first). */
    public Duration delayAfter(int attempt) {
      Duration delay = first;
      for (int i = 1; i < attempt && delay.compareTo(max) < 0; i++) {
        delay = delay.multipliedBy(2);
      }
      return delay.compareTo(max) > 0 ? max : delay;
    }
  }

  /** Told of every finished attempt (metrics). */
  @FunctionalInterface
  public interface Listener {
    void attempted(String channel, String status);
  }

  /** Sends e-mail; the keeper's is {@link SmtpMail}, tests may pass their own. */
  @FunctionalInterface
  public interface Mail {
    /**
     * Sends one message to every recipient.
     *
     * @throws IOException when the server cannot be reached or refuses it; the message names why
     */
    void send(List<String> to, String subject, String text) throws IOException;
  }

  /** The outcome of one attempt. */
  private record Outcome(String status, Optional<Integer> httpStatus, Optional<String> error) {}

  private final Map<String, Channel> channels = new LinkedHashMap<>();
  private final AlertStore store;
  private final Clock clock;
  private final Backoff backoff;
  private final HttpClient http;
  private final Optional<? extends Mail> mail;
  private final Listener listener;

  /** The keeper's delivery: its channels, e-mail through its smtp section, the default backoff. */
  public static AlertDelivery of(
      List<AlertChannelSettings> channels,
      Optional<SmtpSettings> smtp,
      AlertStore store,
      Clock clock,
      Listener listener) {
    return new AlertDelivery(
        channels, smtp.map(SmtpMail::new), store, clock, Backoff.DEFAULT, listener);
  }

  public AlertDelivery(
      List<AlertChannelSettings> channels,
      Optional<? extends Mail> mail,
      AlertStore store,
      Clock clock,
      Backoff backoff,
      Listener listener) {
    this.store = requireNonNull(store, "store is null");
    this.clock = requireNonNull(clock, "clock is null");
    this.backoff = requireNonNull(backoff, "backoff is null");
    this.mail = requireNonNull(mail, "mail is null");
    this.listener = requireNonNull(listener, "listener is null");
    this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    for (AlertChannelSettings channel : requireNonNull(channels, "channels is null")) {
      this.channels.put(channel.name(), new Channel(channel));
    }
  }

  /** The channels, in the order configured. */
  public List<AlertChannelSettings> channels() {
    return channels.values().stream().map(channel -> channel.settings).toList();
  }

  public Optional<AlertChannelSettings> channel(String name) {
    return Optional.ofNullable(channels.get(name)).map(channel -> channel.settings);
  }

  /** Queues the notification on every channel; returns at once. */
  public void send(Notification notification) {
    for (Channel channel : channels.values()) {
      channel.queue(notification, 1);
    }
  }

  /**
   * Sends a test message to one channel now, on its thread, with no retry, and waits for the
   * attempt.
   *
   * @return the attempt as recorded; empty when no channel has this name
   */
  public Optional<DeliveryRecord> test(String name) throws InterruptedException {
    Channel channel = channels.get(name);
    if (channel == null) {
      return Optional.empty();
    }
    Instant now = clock.instant();
    Notification notification =
        new Notification(
            Optional.empty(),
            "test",
            name,
            "firing",
            "a test message from the Floe keeper to channel " + name,
            "",
            now,
            Optional.empty());
    DeliveryRecord pending = store.insert(DeliveryRecord.pending(Optional.empty(), name, 1, now));
    Future<DeliveryRecord> attempt =
        channel.executor.submit(() -> channel.attempt(notification, pending));
    try {
      return Optional.of(attempt.get(REQUEST_TIMEOUT.toSeconds() * 2, TimeUnit.SECONDS));
    } catch (ExecutionException e) {
      throw new IllegalStateException("the test message to " + name + " failed", e.getCause());
    } catch (TimeoutException e) {
      return Optional.of(pending);
    }
  }

  @Override
  public void close() {
    for (Channel channel : channels.values()) {
      channel.executor.shutdownNow();
    }
    // an attempt under way records its outcome before the store closes
    for (Channel channel : channels.values()) {
      try {
        channel.executor.awaitTermination(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  /** One channel: its settings and its one thread. */
  private final class Channel {
    private final AlertChannelSettings settings;
    private final ScheduledExecutorService executor;

    Channel(AlertChannelSettings settings) {
      this.settings = settings;
      this.executor =
          Executors.newSingleThreadScheduledExecutor(
              runnable -> {
                Thread thread = new Thread(runnable, "floe-alerts-" + settings.name());
                thread.setDaemon(true);
                return thread;
              });
    }

    void queue(Notification notification, int attempt) {
      DeliveryRecord pending;
      try {
        pending =
            store.insert(
                DeliveryRecord.pending(
                    notification.alertId(), settings.name(), attempt, clock.instant()));
      } catch (RuntimeException e) {
        LOG.warn("cannot record a delivery to channel {}: {}", settings.name(), e.getMessage());
        pending =
            DeliveryRecord.pending(
                notification.alertId(), settings.name(), attempt, clock.instant());
      }
      DeliveryRecord queued = pending;
      Duration delay = attempt == 1 ? Duration.ZERO : backoff.delayAfter(attempt - 1);
      try {
        executor.schedule(
            () -> {
              DeliveryRecord done = attempt(notification, queued);
              if (done.status().equals(DeliveryRecord.FAILED) && attempt < backoff.attempts()) {
                queue(notification, attempt + 1);
              } else if (done.status().equals(DeliveryRecord.FAILED)) {
                LOG.warn(
                    "channel {} gave up on {} after {} attempts: {}",
                    settings.name(),
                    notification.title(),
                    attempt,
                    done.error().orElse(""));
              }
            },
            delay.toMillis(),
            TimeUnit.MILLISECONDS);
      } catch (java.util.concurrent.RejectedExecutionException stopping) {
        LOG.debug("channel {} is stopping; {} not sent", settings.name(), notification.title());
      }
    }

    /** One attempt on this channel's thread; records and returns its outcome. */
    DeliveryRecord attempt(Notification notification, DeliveryRecord pending) {
      Outcome outcome;
      try {
        outcome = deliver(notification);
      } catch (RuntimeException e) {
        outcome =
            new Outcome(
                DeliveryRecord.FAILED,
                Optional.empty(),
                Optional.of(e.getClass().getSimpleName() + ": " + e.getMessage()));
      }
      DeliveryRecord done =
          pending.finished(
              clock.instant(), outcome.status(), outcome.httpStatus(), outcome.error());
      try {
        if (done.id() != 0) {
          store.update(done);
        }
      } catch (RuntimeException e) {
        LOG.warn("cannot record a delivery to channel {}: {}", settings.name(), e.getMessage());
      }
      listener.attempted(settings.name(), done.status());
      return done;
    }

    private Outcome deliver(Notification notification) {
      if (settings.type() == AlertChannelType.EMAIL) {
        if (mail.isEmpty()) {
          return failed(Optional.empty(), "keeper.alerts.smtp is not set");
        }
        try {
          mail.get().send(settings.to(), notification.title(), AlertMessages.text(notification));
          return new Outcome(DeliveryRecord.SENT, Optional.empty(), Optional.empty());
        } catch (IOException e) {
          return failed(
              Optional.empty(),
              "the mail server refused or could not be reached: " + e.getMessage());
        }
      }
      AlertMessages.Request request =
          AlertMessages.request(settings, notification, clock.instant());
      HttpRequest.Builder builder =
          HttpRequest.newBuilder(request.uri())
              .timeout(REQUEST_TIMEOUT)
              .header("Content-Type", "application/json; charset=utf-8")
              .POST(HttpRequest.BodyPublishers.ofString(request.body()));
      request.headers().forEach(builder::header);
      try {
        HttpResponse<String> response =
            http.send(builder.build(), HttpResponse.BodyHandlers.ofString());
        int status = response.statusCode();
        if (status / 100 != 2) {
          return failed(
              Optional.of(status),
              "HTTP " + status + " from " + settings.target() + ": " + shorten(response.body()));
        }
        Optional<String> refusal = AlertMessages.refusal(settings, response.body());
        if (refusal.isPresent()) {
          return failed(Optional.of(status), refusal.get());
        }
        return new Outcome(DeliveryRecord.SENT, Optional.of(status), Optional.empty());
      } catch (IOException e) {
        return failed(
            Optional.empty(),
            "cannot reach "
                + settings.target()
                + ": "
                + e.getClass().getSimpleName()
                + (e.getMessage() == null ? "" : " " + e.getMessage()));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return failed(Optional.empty(), "the keeper is stopping");
      }
    }

    private Outcome failed(Optional<Integer> status, String error) {
      return new Outcome(DeliveryRecord.FAILED, status, Optional.of(withoutSecrets(error)));
    }

    /** Errors never show the URL's query (DingTalk's token is there) or the secret. */
    private String withoutSecrets(String error) {
      String clean = error;
      if (settings.url().isPresent() && settings.url().get().getRawQuery() != null) {
        clean = clean.replace(settings.url().get().getRawQuery(), "...");
      }
      if (settings.secret().isPresent()) {
        clean = clean.replace(settings.secret().get().reveal(), dev.floe.core.Secret.MASK);
      }
      return clean;
    }
  }

  private static String shorten(String body) {
    String text = body == null ? "" : body.strip();
    return text.length() <= 200 ? text : text.substring(0, 200) + "...";
  }
}

package dev.floe.server.verify;

import static java.util.Objects.requireNonNull;

import dev.floe.core.Secret;
import dev.floe.core.config.VerificationSettings;
import dev.floe.core.error.FloeException;
import dev.floe.core.verify.DifferenceKind;
import dev.floe.core.verify.VerifyReport;
import dev.floe.server.KeeperEvents;
import dev.floe.server.PeriodicLoop;
import dev.floe.server.alerts.VerificationObservation;
import dev.floe.server.store.KeeperEvent;
import dev.floe.server.store.KeeperStore;
import dev.floe.server.store.VerificationRun;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The loop that runs the scheduled verifications ({@code keeper.verifications}): each at its daily
 * time ({@link VerificationSchedule}), or at once when asked ({@link #requestRun}), one at a time,
 * through the {@link VerificationRunner}. Each run is stored with its counts and JSON report,
 * raises an event ({@code verification_equal}, {@code verification_different} or {@code
 * verification_failed}) and becomes the verification's {@link VerificationObservation} for the
 * {@code verification-different} alert rule. A verification that fails (its source is down) is
 * recorded as {@code failed} with the reason and the others still run.
 *
 * <p>Thread-safety: {@link #run} runs on one thread; the other methods may be called from any.
 */
public final class VerificationScheduler implements Runnable {

  /** How often the loop looks for a due verification when nothing wakes it. */
  public static final Duration CHECK_INTERVAL = Duration.ofSeconds(30);

  /** What {@link #requestRun} did. */
  public enum Request {
    /** The run starts at once (or after the one running now). */
    ACCEPTED,
    /** It runs now or is already asked for. */
    ALREADY_RUNNING,
    /** No verification has that name. */
    UNKNOWN
  }

  private final Map<String, VerificationSettings> verifications = new LinkedHashMap<>();
  private final KeeperStore store;
  private final VerificationRunner runner;
  private final KeeperEvents events;
  private final Clock clock;
  private final PeriodicLoop loop;
  private final Map<String, Instant> known = new ConcurrentHashMap<>();
  private final Map<String, VerificationRun> last = new ConcurrentHashMap<>();
  private final Set<String> requested = ConcurrentHashMap.newKeySet();
  private volatile Optional<String> running = Optional.empty();

  public VerificationScheduler(
      List<VerificationSettings> verifications,
      KeeperStore store,
      VerificationRunner runner,
      KeeperEvents events,
      Clock clock) {
    requireNonNull(verifications, "verifications is null")
        .forEach(verification -> this.verifications.put(verification.name(), verification));
    this.store = requireNonNull(store, "store is null");
    this.runner = requireNonNull(runner, "runner is null");
    this.events = requireNonNull(events, "events is null");
    this.clock = requireNonNull(clock, "clock is null");
    this.loop = new PeriodicLoop("a verification check", CHECK_INTERVAL, this::tick);
  }

  /**
   * Reads when the keeper first saw each verification (remembering the new ones as seen now) and
   * each one's last run. Call it once before {@link #run}.
   */
  public void load() {
    Instant now = clock.instant();
    for (String name : verifications.keySet()) {
      known.put(name, store.verificationKnownSince(name, now));
      store.verificationRuns(name, 1).stream().findFirst().ifPresent(run -> last.put(name, run));
    }
  }

  @Override
  public void run() {
    loop.run();
  }

  /** Checks for due verifications now instead of at the end of the interval. */
  public void wakeUp() {
    loop.wakeUp();
  }

  public void stop() {
    loop.stop();
  }

  /** Runs every verification that is due or asked for, one after the other. */
  void tick() {
    for (VerificationSettings verification : verifications.values()) {
      if (loop.stopping()) {
        return;
      }
      String name = verification.name();
      if (requested.contains(name) || !nextRun(name).isAfter(clock.instant())) {
        runOne(verification);
      }
    }
  }

  /** Asks for a run of {@code name} now; the loop runs it (after the one running, if any). */
  public Request requestRun(String name) {
    if (!verifications.containsKey(name)) {
      return Request.UNKNOWN;
    }
    if (running.filter(name::equals).isPresent() || !requested.add(name)) {
      return Request.ALREADY_RUNNING;
    }
    loop.wakeUp();
    return Request.ACCEPTED;
  }

  /** The verifications in their configured order. */
  public List<VerificationSettings> verifications() {
    return List.copyOf(verifications.values());
  }

  public Optional<VerificationSettings> verification(String name) {
    return Optional.ofNullable(verifications.get(name));
  }

  /** Whether {@code name} runs now or is asked for. */
  public boolean running(String name) {
    return running.filter(name::equals).isPresent() || requested.contains(name);
  }

  public Optional<VerificationRun> lastRun(String name) {
    return Optional.ofNullable(last.get(name));
  }

  /** The verification's newest runs, newest first. */
  public List<VerificationRun> runs(String name, int limit) {
    return store.verificationRuns(name, limit);
  }

  /** When {@code name} runs next by its schedule; at or before now means due. */
  public Instant nextRun(String name) {
    VerificationSettings verification = verifications.get(name);
    return VerificationSchedule.nextRun(
        verification.at(),
        verification.timeZone(),
        lastRun(name).map(VerificationRun::startedAt),
        known.getOrDefault(name, clock.instant()));
  }

  /** Each verification's last finished run, for the alert rules. */
  public List<VerificationObservation> observations() {
    List<VerificationObservation> observations = new ArrayList<>();
    for (VerificationRun run : last.values()) {
      observations.add(new VerificationObservation(run.name(), run.result(), run.finishedAt()));
    }
    return observations;
  }

  private void runOne(VerificationSettings verification) {
    String name = verification.name();
    running = Optional.of(name);
    requested.remove(name);
    Instant startedAt = clock.instant();
    VerificationRun run;
    try {
      VerifyReport report = runner.run(verification);
      run =
          new VerificationRun(
              0,
              name,
              startedAt,
              clock.instant(),
              report.equal() ? VerificationRun.EQUAL : VerificationRun.DIFFERENT,
              report.found(DifferenceKind.MISSING_IN_LAKE).count(),
              report.found(DifferenceKind.EXTRA_IN_LAKE).count(),
              report.found(DifferenceKind.DIFFERENT).count(),
              Optional.empty(),
              Optional.of(report.toJson()));
    } catch (RuntimeException e) {
      run =
          new VerificationRun(
              0,
              name,
              startedAt,
              clock.instant(),
              VerificationRun.FAILED,
              0,
              0,
              0,
              Optional.of(reason(verification, e)),
              Optional.empty());
    } finally {
      running = Optional.empty();
    }
    last.put(name, run);
    try {
      last.put(name, store.recordVerificationRun(run));
    } finally {
      events.service(eventKind(run), message(run));
    }
  }

  private static String reason(VerificationSettings verification, RuntimeException e) {
    String reason =
        e instanceof FloeException
            ? String.valueOf(e.getMessage())
            : e.getClass().getSimpleName() + ": " + e.getMessage();
    Optional<Secret> password = verification.source().password();
    if (password.isPresent() && !password.get().reveal().isEmpty()) {
      reason = reason.replace(password.get().reveal(), Secret.MASK);
    }
    return reason;
  }

  private static String eventKind(VerificationRun run) {
    return switch (run.result()) {
      case VerificationRun.EQUAL -> KeeperEvent.VERIFICATION_EQUAL;
      case VerificationRun.DIFFERENT -> KeeperEvent.VERIFICATION_DIFFERENT;
      default -> KeeperEvent.VERIFICATION_FAILED;
    };
  }

  private static String message(VerificationRun run) {
    return switch (run.result()) {
      case VerificationRun.EQUAL -> "verification " + run.name() + " found no difference";
      case VerificationRun.DIFFERENT ->
          "verification "
              + run.name()
              + " found differences: "
              + run.missing()
              + " missing in the lake, "
              + run.extra()
              + " extra in the lake, "
              + run.different()
              + " different";
      default -> "verification " + run.name() + " failed: " + run.error().orElse("");
    };
  }
}

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
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The loop that runs the scheduled verifications ({@code keeper.verifications}): each at its daily
 * time ({@link VerificationSchedule}), or at once when asked ({@link #requestRun}), one at a time,
 * through the {@link VerificationRunner}. Each run is stored with its counts and JSON report,
 * raises an event ({@code verification_equal}, {@code verification_different} or {@code
 * verification_failed}) and becomes the verification's {@link VerificationObservation} for the
 * {@code verification-different} alert rule. A verification that fails (its source is down) is
 * recorded as {@code failed} with the reason and the others still run.
 *
 * <p>A verification without {@code time-zone} is scheduled in the zone its source server reports,
 * asked once ({@link VerificationRunner#sourceTimeZone}); until that answers (the source is down)
 * it has no next run, the reason is its {@link #scheduleError}, the question is asked again every
 * {@link #ZONE_RETRY}, and a run asked for ({@link #requestRun}) still runs.
 *
 * <p>Thread-safety: {@link #run} runs on one thread; the other methods may be called from any.
 */
public final class VerificationScheduler implements Runnable {

  private static final Logger LOG = LoggerFactory.getLogger(VerificationScheduler.class);

  /** How often the loop looks for a due verification when nothing wakes it. */
  public static final Duration CHECK_INTERVAL = Duration.ofSeconds(30);

  /** How long after a failed question for its source's time zone the keeper asks again. */
  public static final Duration ZONE_RETRY = Duration.ofMinutes(5);

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
  private final Map<String, ZoneId> zones = new ConcurrentHashMap<>();
  private final Map<String, String> zoneErrors = new ConcurrentHashMap<>();
  private final Map<String, Instant> zoneRetries = new ConcurrentHashMap<>();
  private volatile Optional<String> running = Optional.empty();

  public VerificationScheduler(
      List<VerificationSettings> verifications,
      KeeperStore store,
      VerificationRunner runner,
      KeeperEvents events,
      Clock clock) {
    requireNonNull(verifications, "verifications is null")
        .forEach(
            verification -> {
              this.verifications.put(verification.name(), verification);
              verification.timeZone().ifPresent(zone -> zones.put(verification.name(), zone));
            });
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
      if (!zones.containsKey(name)) {
        askZone(verification);
      }
      Instant now = clock.instant();
      if (requested.contains(name) || nextRun(name).filter(at -> !at.isAfter(now)).isPresent()) {
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

  /**
   * When {@code name} runs next by its schedule; at or before now means due. Empty while its
   * source's time zone is not known ({@link #scheduleError}).
   */
  public Optional<Instant> nextRun(String name) {
    VerificationSettings verification = verifications.get(name);
    return zone(name)
        .map(
            zone ->
                VerificationSchedule.nextRun(
                    verification.at(),
                    zone,
                    lastRun(name).map(VerificationRun::startedAt),
                    known.getOrDefault(name, clock.instant())));
  }

  /** The zone {@code name}'s daily time is read in: its {@code time-zone}, else its source's. */
  public Optional<ZoneId> zone(String name) {
    return Optional.ofNullable(zones.get(name));
  }

  /** Why {@code name} has no next run: its source's time zone could not be asked. */
  public Optional<String> scheduleError(String name) {
    return zone(name).isPresent() ? Optional.empty() : Optional.ofNullable(zoneErrors.get(name));
  }

  private void askZone(VerificationSettings verification) {
    String name = verification.name();
    Instant now = clock.instant();
    if (zoneRetries.getOrDefault(name, Instant.MIN).isAfter(now)) {
      return;
    }
    try {
      ZoneId zone = runner.sourceTimeZone(verification);
      zones.put(name, zone);
      zoneErrors.remove(name);
      zoneRetries.remove(name);
      LOG.info(
          "verification {} runs daily at {} {}, its source's time zone",
          name,
          verification.at(),
          zone.getId());
    } catch (RuntimeException e) {
      String error =
          "cannot read the time zone of its source, so it has no schedule yet (set time-zone to"
              + " schedule it without asking; asked again in "
              + ZONE_RETRY.toMinutes()
              + " minutes): "
              + reason(verification, e);
      zoneRetries.put(name, now.plus(ZONE_RETRY));
      if (!error.equals(zoneErrors.put(name, error))) {
        events.service(KeeperEvent.VERIFICATION_FAILED, "verification " + name + " " + error);
      }
    }
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

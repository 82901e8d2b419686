package dev.floe.server.alerts;

import static java.util.Objects.requireNonNull;

import dev.floe.core.alert.AlertRule;
import dev.floe.core.alert.AlertSettings;
import dev.floe.server.KeeperEvents;
import dev.floe.server.PeriodicLoop;
import dev.floe.server.store.AlertRecord;
import dev.floe.server.store.AlertStore;
import dev.floe.server.store.KeeperEvent;
import dev.floe.server.store.SilenceRecord;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The alert loop: every period (the refresh interval) and whenever woken by an event that must
 * notify at once, it gathers the observations, evaluates the rules ({@link AlertRules}), and turns
 * the conditions into transitions in the {@link AlertStore}: a condition without a firing alert
 * fires one, a firing alert whose condition cleared resolves. Notifications are queued on {@link
 * AlertDelivery} (never sent on this thread): once when an alert fires, again every {@code
 * re-notify} while it fires (when set), once when it resolves; a silence holds them, and an alert
 * whose silence ends while it still fires is notified then.
 */
public final class AlertLoop implements Runnable {

  private static final Logger LOG = LoggerFactory.getLogger(AlertLoop.class);

  private final Supplier<AlertObservations> observations;
  private final AlertSettings settings;
  private final AlertStore store;
  private final AlertDelivery delivery;
  private final KeeperEvents events;
  private final Clock clock;
  private final String linkBase;
  private final PeriodicLoop loop;
  private Map<AlertKey, Instant> pendingSince = Map.of();
  private final Set<String> reportedProblems = new HashSet<>();
  private volatile Map<AlertRule, Integer> firingByRule = Map.of();
  private volatile Instant lastTick = Instant.EPOCH;

  /**
   * @param linkBase the dashboard's URL base (no trailing slash) the links in messages start with
   */
  public AlertLoop(
      Supplier<AlertObservations> observations,
      AlertSettings settings,
      AlertStore store,
      AlertDelivery delivery,
      KeeperEvents events,
      Clock clock,
      Duration period,
      String linkBase) {
    this.observations = requireNonNull(observations, "observations is null");
    this.settings = requireNonNull(settings, "settings is null");
    this.store = requireNonNull(store, "store is null");
    this.delivery = requireNonNull(delivery, "delivery is null");
    this.events = requireNonNull(events, "events is null");
    this.clock = requireNonNull(clock, "clock is null");
    this.linkBase = requireNonNull(linkBase, "linkBase is null");
    this.loop = new PeriodicLoop("an alert check", period, this::tick);
  }

  @Override
  public void run() {
    loop.run();
  }

  public void stop() {
    loop.stop();
  }

  /** Runs the next check now (an event that must notify at once). */
  public void wakeUp() {
    loop.wakeUp();
  }

  public Instant lastTick() {
    return lastTick;
  }

  /** Alerts firing after the last check, per rule (every rule present). */
  public Map<AlertRule, Integer> firingByRule() {
    return firingByRule;
  }

  /** The absolute URL of a dashboard path. */
  public String link(String path) {
    return path.isEmpty() ? "" : linkBase + path;
  }

  /**
   * Acknowledges an alert: recorded on it; a {@code table-rewound} alert then resolves on the next
   * check (now).
   *
   * @return the alert as acknowledged; empty when there is none of that id
   */
  public Optional<AlertRecord> acknowledge(long id) {
    Optional<AlertRecord> alert;
    synchronized (this) {
      alert = store.alert(id).map(found -> found.acknowledged(clock.instant()));
      alert.ifPresent(store::update);
    }
    alert.ifPresent(found -> wakeUp());
    return alert;
  }

  /** One check, on the calling thread. */
  public synchronized void tick() {
    Instant now = clock.instant();
    lastTick = now;
    AlertObservations seen = observations.get();
    Map<AlertKey, AlertRecord> firing = new LinkedHashMap<>();
    for (AlertRecord alert : store.firing()) {
      Optional<AlertRule> rule = AlertRule.named(alert.rule());
      if (rule.isPresent()) {
        firing.put(new AlertKey(rule.get(), alert.subject()), alert);
      }
    }
    Map<AlertKey, Instant> acknowledged = new HashMap<>();
    store
        .acknowledged(AlertRule.TABLE_REWOUND.ruleName())
        .forEach(
            (subject, at) -> acknowledged.put(new AlertKey(AlertRule.TABLE_REWOUND, subject), at));
    AlertRules.Evaluation evaluation =
        AlertRules.evaluate(
            seen,
            settings,
            new AlertRules.Memory(firing.keySet(), pendingSince, acknowledged),
            now);
    pendingSince = evaluation.pendingSince();
    reportProblems(evaluation.problems());
    List<SilenceRecord> silences = store.silences(now);

    Set<AlertKey> holding = new HashSet<>();
    for (AlertCondition condition : evaluation.holding()) {
      if (!holding.add(condition.key())) {
        continue;
      }
      AlertRecord alert = firing.get(condition.key());
      if (alert == null) {
        alert =
            store.insert(
                AlertRecord.fired(
                    condition.key().rule().ruleName(),
                    condition.key().subject(),
                    condition.message(),
                    condition.link(),
                    now));
        events.service(
            KeeperEvent.ALERT_FIRED,
            condition.key().rule().ruleName()
                + " "
                + condition.key().subject()
                + ": "
                + condition.message());
      } else if (!alert.message().equals(condition.message())) {
        alert = alert.withMessage(condition.message());
        store.update(alert);
      }
      if (silenced(silences, alert, now)) {
        continue;
      }
      boolean due =
          alert.lastNotifiedAt().isEmpty()
              || (!settings.reNotify().isZero()
                  && !alert.lastNotifiedAt().get().plus(settings.reNotify()).isAfter(now));
      if (due) {
        alert = alert.notified(now);
        store.update(alert);
        delivery.send(notification(alert));
      }
    }
    for (Map.Entry<AlertKey, AlertRecord> entry : firing.entrySet()) {
      if (holding.contains(entry.getKey())) {
        continue;
      }
      AlertRecord alert = entry.getValue().resolved(now);
      boolean notify = alert.lastNotifiedAt().isPresent() && !silenced(silences, alert, now);
      if (notify) {
        alert = alert.notified(now);
      }
      store.update(alert);
      events.service(
          KeeperEvent.ALERT_RESOLVED, alert.rule() + " " + alert.subject() + " resolved");
      if (notify) {
        delivery.send(notification(alert));
      }
    }
    Map<AlertRule, Integer> counts = new EnumMap<>(AlertRule.class);
    for (AlertRule rule : AlertRule.values()) {
      counts.put(rule, 0);
    }
    holding.forEach(key -> counts.merge(key.rule(), 1, Integer::sum));
    firingByRule = Map.copyOf(counts);
  }

  private static boolean silenced(List<SilenceRecord> silences, AlertRecord alert, Instant now) {
    return silences.stream().anyMatch(silence -> silence.holds(alert.rule(), alert.subject(), now));
  }

  private Notification notification(AlertRecord alert) {
    return new Notification(
        Optional.of(alert.id()),
        alert.rule(),
        alert.subject(),
        alert.state(),
        alert.message(),
        link(alert.link()),
        alert.firedAt(),
        alert.resolvedAt());
  }

  /**
   * Raises each problem once, while it lasts; a problem that went and came back is raised again.
   */
  private void reportProblems(List<String> problems) {
    reportedProblems.retainAll(problems);
    for (String problem : problems) {
      if (reportedProblems.add(problem)) {
        LOG.warn("{}", problem);
        events.service(KeeperEvent.ALERT_PROPERTY_INVALID, problem);
      }
    }
  }
}

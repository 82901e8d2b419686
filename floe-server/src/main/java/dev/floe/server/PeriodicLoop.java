package dev.floe.server;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one shape of the keeper's long-running loops: run a round, then wait a period or until woken
 * up, until stopped. A round that throws is logged and the loop goes on.
 */
public final class PeriodicLoop implements Runnable {

  private static final Logger LOG = LoggerFactory.getLogger(PeriodicLoop.class);

  private final String what;
  private final Duration period;
  private final Runnable round;
  private final Object wakeUp = new Object();
  private volatile boolean stopping;

  /**
   * @param what the loop's name for the log, e.g. {@code "a refresh"}
   */
  public PeriodicLoop(String what, Duration period, Runnable round) {
    this.what = requireNonNull(what, "what is null");
    this.period = requireNonNull(period, "period is null");
    this.round = requireNonNull(round, "round is null");
  }

  @Override
  public void run() {
    while (!stopping) {
      try {
        round.run();
      } catch (RuntimeException e) {
        LOG.error("{} failed; the next one is in {}", what, period, e);
      }
      synchronized (wakeUp) {
        if (stopping) {
          return;
        }
        try {
          wakeUp.wait(period.toMillis());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  /** Starts the next round now instead of at the end of the period. */
  public void wakeUp() {
    synchronized (wakeUp) {
      wakeUp.notifyAll();
    }
  }

  public void stop() {
    stopping = true;
    wakeUp();
  }

  public boolean stopping() {
    return stopping;
  }
}

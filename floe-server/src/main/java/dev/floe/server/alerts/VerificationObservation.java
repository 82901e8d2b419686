package dev.floe.server.alerts;

import static java.util.Objects.requireNonNull;

import java.time.Instant;

/**
 * A scheduled verification's last finished run, for {@code verification-different}.
 *
 * @param result equal, different or failed
 */
public record VerificationObservation(String name, String result, Instant finishedAt) {
  public VerificationObservation {
    requireNonNull(name, "name is null");
    requireNonNull(result, "result is null");
    requireNonNull(finishedAt, "finishedAt is null");
  }
}

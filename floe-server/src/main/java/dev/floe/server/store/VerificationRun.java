package dev.floe.server.store;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.util.Optional;

/**
 * One run of a scheduled verification, as the store keeps it.
 *
 * @param id the store's id of the run; 0 before it is recorded
 * @param result {@code equal}, {@code different} or {@code failed}
 * @param missing rows of the source missing in the lake (0 when it failed)
 * @param extra rows in the lake the source does not have
 * @param different rows whose content differs
 * @param error why it could not compare, when it failed (never holds a secret)
 * @param report the JSON report, when it compared
 */
public record VerificationRun(
    long id,
    String name,
    Instant startedAt,
    Instant finishedAt,
    String result,
    long missing,
    long extra,
    long different,
    Optional<String> error,
    Optional<String> report) {

  public static final String EQUAL = "equal";
  public static final String DIFFERENT = "different";
  public static final String FAILED = "failed";

  public VerificationRun {
    requireNonNull(name, "name is null");
    requireNonNull(startedAt, "startedAt is null");
    requireNonNull(finishedAt, "finishedAt is null");
    requireNonNull(result, "result is null");
    requireNonNull(error, "error is null");
    requireNonNull(report, "report is null");
  }
}

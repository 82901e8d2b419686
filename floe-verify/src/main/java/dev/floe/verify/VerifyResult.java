package dev.floe.verify;

import static java.util.Objects.requireNonNull;

import dev.floe.core.verify.VerifyReport;
import java.time.Duration;
import java.util.Map;

/**
 * A finished verification: the report, and what it cost the source.
 *
 * @param sourceBytes bytes of result values read from MySQL (texts and numbers, not protocol)
 * @param pauses how often verify paused because the source was busy
 * @param slicesNarrowed slices whose digests differed and were narrowed down to rows
 * @param phases when each phase ended, measured from the start: {@code walk} (the key walk), {@code
 *     lake} (the lake digests), {@code source} (the MySQL digests), {@code bisect} (the narrowing
 *     of mismatching slices)
 * @param work where the time went, summed over threads (nanoseconds, or counts where the name says
 *     so): MySQL queries by kind, waiting for a connection, lake reads, lake reads waiting for the
 *     key walk
 */
public record VerifyResult(
    VerifyReport report,
    long sourceBytes,
    long pauses,
    long slicesNarrowed,
    Map<String, Duration> phases,
    Map<String, Long> work) {
  public VerifyResult {
    requireNonNull(report, "report is null");
    phases = Map.copyOf(requireNonNull(phases, "phases is null"));
    work = Map.copyOf(requireNonNull(work, "work is null"));
  }
}

package dev.floe.verify;

import static java.util.Objects.requireNonNull;

import dev.floe.core.verify.VerifyReport;

/**
 * A finished verification: the report, and what it cost the source.
 *
 * @param sourceBytes bytes of result values read from MySQL (texts and numbers, not protocol)
 * @param pauses how often verify paused because the source was busy
 */
public record VerifyResult(VerifyReport report, long sourceBytes, long pauses) {
  public VerifyResult {
    requireNonNull(report, "report is null");
  }
}

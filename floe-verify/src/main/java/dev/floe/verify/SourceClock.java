package dev.floe.verify;

import static java.util.Objects.requireNonNull;

import java.time.LocalDate;
import java.time.ZoneOffset;

/**
 * The source's calendar at the start of a run: its current date and UTC offset (read once, from
 * {@code CURDATE()} and {@code NOW() - UTC_TIMESTAMP()} in the server's default session zone).
 */
public record SourceClock(LocalDate today, ZoneOffset offset) {
  public SourceClock {
    requireNonNull(today, "today is null");
    requireNonNull(offset, "offset is null");
  }
}

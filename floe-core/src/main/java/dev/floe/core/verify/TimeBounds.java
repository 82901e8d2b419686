package dev.floe.core.verify;

import static java.util.Objects.requireNonNull;

import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * The window start and the cutoff as texts in the time column's domain ({@code YYYY-MM-DD
 * HH:MM:SS.ffffff}: wall clock for DATE/DATETIME, UTC for TIMESTAMP), so rows are placed by
 * comparing texts, identically for MySQL parameters and Iceberg values.
 */
public record TimeBounds(String windowStart, String cutoff) {

  private static final DateTimeFormatter FORMAT =
      DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss.SSSSSS", Locale.ROOT);
  private static final String MIDNIGHT = " 00:00:00.000000";

  public TimeBounds {
    requireNonNull(windowStart, "windowStart is null");
    requireNonNull(cutoff, "cutoff is null");
  }

  /**
   * The bounds of a window in the source's wall clock, for a time column of the given kind.
   *
   * @param sourceOffset the source's UTC offset (used for TIMESTAMP columns)
   */
  public static TimeBounds of(VerifyWindow window, ColumnKind timeKind, ZoneOffset sourceOffset) {
    LocalDateTime start = window.start();
    LocalDateTime cutoff = window.cutoff();
    if (timeKind == ColumnKind.TIMESTAMP) {
      start = start.atOffset(sourceOffset).withOffsetSameInstant(ZoneOffset.UTC).toLocalDateTime();
      cutoff =
          cutoff.atOffset(sourceOffset).withOffsetSameInstant(ZoneOffset.UTC).toLocalDateTime();
    }
    return new TimeBounds(FORMAT.format(start), FORMAT.format(cutoff));
  }

  /** Whether a row with this time text is compared at all (before the cutoff, or no time). */
  public boolean compared(String timeText) {
    return timeText == null || comparable(timeText).compareTo(cutoff) < 0;
  }

  /** Whether a compared row with this time text is compared in full (in the window). */
  public boolean inWindow(String timeText) {
    return timeText != null && comparable(timeText).compareTo(windowStart) >= 0;
  }

  private static String comparable(String timeText) {
    return timeText.length() == 10 ? timeText + MIDNIGHT : timeText;
  }
}

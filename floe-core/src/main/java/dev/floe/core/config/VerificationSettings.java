package dev.floe.core.config;

import static java.util.Objects.requireNonNull;

import dev.floe.core.source.MySqlSourceAddress;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.Optional;

/**
 * One {@code keeper.verifications} item: a verification the keeper runs once a day, as {@code floe
 * verify} would with the same values.
 *
 * @param name how the API and the alerts name it
 * @param source the MySQL source, its password from the URL, the item's {@code password} or {@code
 *     source.password} ({@link MySqlSourceAddress#toString()} hides it)
 * @param table the source table, {@code DATABASE.TABLE}
 * @param target the lake table, {@code NAMESPACE.TABLE}; empty: the source's database and table
 * @param timeColumn the column set on every insert and update
 * @param window how far before the cutoff rows are compared in full ({@code 7d})
 * @param cutoff {@code today}, a date or an ISO date-time in the source's time zone
 * @param at the daily time the job runs, in the source's time zone
 * @param timeZone the source's time zone; empty: the one the source server reports
 *     ({@code @@time_zone}), read by the keeper when it schedules the job
 */
public record VerificationSettings(
    String name,
    MySqlSourceAddress source,
    String table,
    Optional<String> target,
    String timeColumn,
    String window,
    String cutoff,
    LocalTime at,
    Optional<ZoneId> timeZone) {

  public static final String DEFAULT_WINDOW = "7d";
  public static final String DEFAULT_CUTOFF = "today";
  public static final LocalTime DEFAULT_AT = LocalTime.of(0, 30);

  public VerificationSettings {
    requireNonNull(name, "name is null");
    requireNonNull(source, "source is null");
    requireNonNull(table, "table is null");
    requireNonNull(target, "target is null");
    requireNonNull(timeColumn, "timeColumn is null");
    requireNonNull(window, "window is null");
    requireNonNull(cutoff, "cutoff is null");
    requireNonNull(at, "at is null");
    requireNonNull(timeZone, "timeZone is null");
  }
}

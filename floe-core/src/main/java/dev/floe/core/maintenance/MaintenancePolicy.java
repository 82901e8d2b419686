package dev.floe.core.maintenance;

import static java.util.Objects.requireNonNull;

import dev.floe.core.error.FloeException;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * A table's maintenance policy, read from its properties (see docs/maintenance.md). Floe's {@code
 * floe.*} key wins; when absent, Iceberg's equivalent key is honoured; else Floe's default.
 *
 * @param maxSnapshotAge snapshots older than this may expire
 * @param minSnapshots the newest N snapshots of the current history never expire (>= 1)
 * @param keepFlinkCheckpoints keep each Flink job's latest checkpointed snapshot and the ancestry
 *     down to it
 * @param orphanMinAge files younger than this are never deleted as orphans
 * @param retainedMetadataVersions previous metadata files to keep; empty = the whole metadata log
 * @param gcEnabled Iceberg's {@code gc.enabled}: false forbids every deleting action
 * @param unsafeOrphanAgeAccepted an operator accepted an {@code orphanMinAge} below {@link
 *     #SAFE_ORPHAN_MIN_AGE}, knowing that no writer can be running; never set from table properties
 */
public record MaintenancePolicy(
    Duration maxSnapshotAge,
    int minSnapshots,
    boolean keepFlinkCheckpoints,
    Duration orphanMinAge,
    OptionalInt retainedMetadataVersions,
    boolean gcEnabled,
    boolean unsafeOrphanAgeAccepted) {

  public static final String MAX_SNAPSHOT_AGE = "floe.expire.max-snapshot-age";
  public static final String MIN_SNAPSHOTS = "floe.expire.min-snapshots";
  public static final String KEEP_FLINK_CHECKPOINTS = "floe.expire.keep-flink-checkpoints";
  public static final String ORPHAN_MIN_AGE = "floe.orphan.min-age";
  public static final String RETAINED_METADATA_VERSIONS = "floe.metadata.retained-versions";

  public static final String ICEBERG_MAX_SNAPSHOT_AGE_MS = "history.expire.max-snapshot-age-ms";
  public static final String ICEBERG_MIN_SNAPSHOTS = "history.expire.min-snapshots-to-keep";
  public static final String ICEBERG_PREVIOUS_VERSIONS_MAX = "write.metadata.previous-versions-max";
  public static final String GC_ENABLED = "gc.enabled";

  public static final Duration DEFAULT_MAX_SNAPSHOT_AGE = Duration.ofDays(1);
  public static final int DEFAULT_MIN_SNAPSHOTS = 10;
  public static final Duration DEFAULT_ORPHAN_MIN_AGE = Duration.ofDays(3);

  /** Orphan ages below this endanger files that writers have not committed yet. */
  public static final Duration SAFE_ORPHAN_MIN_AGE = Duration.ofHours(1);

  public MaintenancePolicy {
    requireNonNull(maxSnapshotAge, "maxSnapshotAge is null");
    requireNonNull(orphanMinAge, "orphanMinAge is null");
    requireNonNull(retainedMetadataVersions, "retainedMetadataVersions is null");
    if (minSnapshots < 1) {
      throw new IllegalArgumentException("minSnapshots must be at least 1: " + minSnapshots);
    }
  }

  /** The defaults, as for a table without any maintenance property. */
  public static MaintenancePolicy defaults() {
    return fromProperties("(defaults)", Map.of());
  }

  /**
   * Reads the policy from a table's properties.
   *
   * @throws FloeException BAD_INPUT naming the table, the property and the value when a value is
   *     invalid
   */
  public static MaintenancePolicy fromProperties(String table, Map<String, String> properties) {
    requireNonNull(table, "table is null");
    requireNonNull(properties, "properties is null");
    Duration maxAge =
        duration(table, properties, MAX_SNAPSHOT_AGE)
            .or(() -> millis(table, properties, ICEBERG_MAX_SNAPSHOT_AGE_MS))
            .orElse(DEFAULT_MAX_SNAPSHOT_AGE);
    int minSnapshots =
        positiveInt(table, properties, MIN_SNAPSHOTS, 1)
            .or(() -> positiveInt(table, properties, ICEBERG_MIN_SNAPSHOTS, 1))
            .orElse(DEFAULT_MIN_SNAPSHOTS);
    boolean keepFlink = bool(table, properties, KEEP_FLINK_CHECKPOINTS, true);
    Duration orphanAge = duration(table, properties, ORPHAN_MIN_AGE).orElse(DEFAULT_ORPHAN_MIN_AGE);
    Optional<Integer> retained =
        positiveInt(table, properties, RETAINED_METADATA_VERSIONS, 0)
            .or(() -> positiveInt(table, properties, ICEBERG_PREVIOUS_VERSIONS_MAX, 0));
    boolean gcEnabled = bool(table, properties, GC_ENABLED, true);
    return new MaintenancePolicy(
        maxAge,
        minSnapshots,
        keepFlink,
        orphanAge,
        retained.map(OptionalInt::of).orElse(OptionalInt.empty()),
        gcEnabled,
        false);
  }

  public MaintenancePolicy withMaxSnapshotAge(Duration age) {
    return new MaintenancePolicy(
        age,
        minSnapshots,
        keepFlinkCheckpoints,
        orphanMinAge,
        retainedMetadataVersions,
        gcEnabled,
        unsafeOrphanAgeAccepted);
  }

  public MaintenancePolicy withMinSnapshots(int count) {
    return new MaintenancePolicy(
        maxSnapshotAge,
        count,
        keepFlinkCheckpoints,
        orphanMinAge,
        retainedMetadataVersions,
        gcEnabled,
        unsafeOrphanAgeAccepted);
  }

  public MaintenancePolicy withOrphanMinAge(Duration age) {
    return new MaintenancePolicy(
        maxSnapshotAge,
        minSnapshots,
        keepFlinkCheckpoints,
        age,
        retainedMetadataVersions,
        gcEnabled,
        unsafeOrphanAgeAccepted);
  }

  public MaintenancePolicy withRetainedMetadataVersions(int count) {
    return new MaintenancePolicy(
        maxSnapshotAge,
        minSnapshots,
        keepFlinkCheckpoints,
        orphanMinAge,
        OptionalInt.of(count),
        gcEnabled,
        unsafeOrphanAgeAccepted);
  }

  /**
   * This policy with its orphan age accepted even below {@link #SAFE_ORPHAN_MIN_AGE}: for an
   * operator who knows no writer can be running (the CLI's {@code --force}).
   */
  public MaintenancePolicy acceptingUnsafeOrphanAge() {
    return new MaintenancePolicy(
        maxSnapshotAge,
        minSnapshots,
        keepFlinkCheckpoints,
        orphanMinAge,
        retainedMetadataVersions,
        gcEnabled,
        true);
  }

  /**
   * Refuses a deleting action on a table whose files may be shared with another table.
   *
   * @throws FloeException BAD_INPUT when {@code gc.enabled=false}
   */
  public void requireGcEnabled(String table, MaintenanceAction action) {
    if (!gcEnabled) {
      throw gcDisabled(table, action);
    }
  }

  /**
   * Refuses a deleting action on a table whose current properties say {@code gc.enabled=false}: a
   * commit checks the table as it is then, not as its preview saw it.
   *
   * @throws FloeException BAD_INPUT when {@code gc.enabled=false} or is not a boolean
   */
  public static void requireGcEnabled(
      String table, Map<String, String> properties, MaintenanceAction action) {
    if (!bool(table, properties, GC_ENABLED, true)) {
      throw gcDisabled(table, action);
    }
  }

  private static FloeException gcDisabled(String table, MaintenanceAction action) {
    return FloeException.badInput(
        "Table "
            + table
            + " has gc.enabled=false: its files may be shared with another table, so Floe"
            + " will not "
            + action.description()
            + ". Nothing was changed. If the table owns all its files, set the table property"
            + " gc.enabled=true.");
  }

  /** Whether {@code orphanMinAge} is below {@link #SAFE_ORPHAN_MIN_AGE}. */
  public boolean orphanAgeBelowSafeMinimum() {
    return orphanMinAge.compareTo(SAFE_ORPHAN_MIN_AGE) < 0;
  }

  /**
   * Refuses an orphan age that would endanger files writers have not committed yet, unless it was
   * {@linkplain #acceptingUnsafeOrphanAge() accepted}.
   *
   * @throws FloeException BAD_INPUT when the age is below {@link #SAFE_ORPHAN_MIN_AGE} and not
   *     accepted
   */
  public void requireSafeOrphanAge(String table) {
    if (orphanAgeBelowSafeMinimum() && !unsafeOrphanAgeAccepted) {
      throw FloeException.badInput(
          "Table "
              + table
              + ": "
              + ORPHAN_MIN_AGE
              + " is "
              + DurationText.format(orphanMinAge)
              + ", below the safe minimum of 1h: files a writer has written but not yet"
              + " committed would be deleted. Nothing was changed. Use 1h or more.");
    }
  }

  private static Optional<Duration> duration(
      String table, Map<String, String> properties, String key) {
    String value = properties.get(key);
    if (value == null) {
      return Optional.empty();
    }
    Optional<Duration> parsed = DurationText.parse(value);
    if (parsed.isEmpty()) {
      throw invalid(table, key, value, "a duration such as 30m, 12h or 3d");
    }
    return parsed;
  }

  private static Optional<Duration> millis(
      String table, Map<String, String> properties, String key) {
    String value = properties.get(key);
    if (value == null) {
      return Optional.empty();
    }
    try {
      long millis = Long.parseLong(value.trim());
      if (millis >= 0) {
        return Optional.of(Duration.ofMillis(millis));
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw invalid(table, key, value, "a whole number of milliseconds, 0 or more");
  }

  private static Optional<Integer> positiveInt(
      String table, Map<String, String> properties, String key, int minimum) {
    String value = properties.get(key);
    if (value == null) {
      return Optional.empty();
    }
    try {
      int parsed = Integer.parseInt(value.trim());
      if (parsed >= minimum) {
        return Optional.of(parsed);
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw invalid(table, key, value, "a whole number of at least " + minimum);
  }

  private static boolean bool(
      String table, Map<String, String> properties, String key, boolean defaultValue) {
    String value = properties.get(key);
    if (value == null) {
      return defaultValue;
    }
    return switch (value.trim().toLowerCase(Locale.ROOT)) {
      case "true" -> true;
      case "false" -> false;
      default -> throw invalid(table, key, value, "true or false");
    };
  }

  private static FloeException invalid(String table, String key, String value, String expected) {
    return FloeException.badInput(
        "Table "
            + table
            + ": property "
            + key
            + " is '"
            + value
            + "'; it must be "
            + expected
            + ". Nothing was changed. Fix the property or remove it to use the default.");
  }
}

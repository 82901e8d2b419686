package dev.floe.core.optimize;

import dev.floe.core.error.FloeException;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;

/**
 * How Floe optimizes one table, read from the table's {@code floe.optimize.*} properties (defaults
 * and meaning in docs/optimize.md). Immutable; validated on construction.
 */
public record OptimizePolicy(
    boolean enabled,
    long targetFileSizeBytes,
    double smallFileRatio,
    int minorMinSmallFiles,
    Duration minorMaxInterval,
    int deletesMinDeleteFiles,
    double deletesMinRatio,
    double deletesRewriteFileRatio,
    long deletesConvertMinPartitionBytes,
    Duration fullInterval,
    long budgetBytes,
    long maxGroupBytes,
    long spillMemoryBytes,
    Duration retryBackoff,
    Duration retryMaxBackoff,
    boolean clusterByKey) {

  public static final String PREFIX = "floe.optimize.";
  public static final String ENABLED = PREFIX + "enabled";
  public static final String TARGET_FILE_SIZE_BYTES = PREFIX + "target-file-size-bytes";
  public static final String SMALL_FILE_RATIO = PREFIX + "small-file-ratio";
  public static final String MINOR_MIN_SMALL_FILES = PREFIX + "minor.min-small-files";
  public static final String MINOR_MAX_INTERVAL_MS = PREFIX + "minor.max-interval-ms";
  public static final String DELETES_MIN_DELETE_FILES = PREFIX + "deletes.min-delete-files";
  public static final String DELETES_MIN_RATIO = PREFIX + "deletes.min-ratio";
  public static final String DELETES_REWRITE_FILE_RATIO = PREFIX + "deletes.rewrite-file-ratio";
  public static final String DELETES_CONVERT_MIN_PARTITION_BYTES =
      PREFIX + "deletes.convert-min-partition-bytes";
  public static final String FULL_INTERVAL_MS = PREFIX + "full.interval-ms";
  public static final String BUDGET_BYTES = PREFIX + "budget-bytes";
  public static final String MAX_GROUP_BYTES = PREFIX + "max-group-bytes";
  public static final String SPILL_MEMORY_BYTES = PREFIX + "spill-memory-bytes";
  public static final String RETRY_BACKOFF_MS = PREFIX + "retry.backoff-ms";
  public static final String RETRY_MAX_BACKOFF_MS = PREFIX + "retry.max-backoff-ms";
  public static final String CLUSTER_BY_KEY = PREFIX + "cluster-by-key";

  /** Iceberg's own table property for the target data file size. */
  public static final String ICEBERG_TARGET_FILE_SIZE = "write.target-file-size-bytes";

  public static final long DEFAULT_TARGET_FILE_SIZE_BYTES = 512L * 1024 * 1024;
  private static final long MIB = 1024L * 1024;

  public OptimizePolicy {
    check(targetFileSizeBytes >= MIB, TARGET_FILE_SIZE_BYTES, targetFileSizeBytes, ">= 1048576");
    check(smallFileRatio > 0 && smallFileRatio <= 1, SMALL_FILE_RATIO, smallFileRatio, "in (0, 1]");
    check(minorMinSmallFiles >= 2, MINOR_MIN_SMALL_FILES, minorMinSmallFiles, ">= 2");
    check(!minorMaxInterval.isNegative(), MINOR_MAX_INTERVAL_MS, minorMaxInterval, ">= 0");
    check(deletesMinDeleteFiles >= 1, DELETES_MIN_DELETE_FILES, deletesMinDeleteFiles, ">= 1");
    check(
        deletesMinRatio > 0 && deletesMinRatio <= 1,
        DELETES_MIN_RATIO,
        deletesMinRatio,
        "in (0, 1]");
    check(
        deletesRewriteFileRatio >= 0 && deletesRewriteFileRatio <= 1,
        DELETES_REWRITE_FILE_RATIO,
        deletesRewriteFileRatio,
        "in [0, 1]");
    check(
        deletesConvertMinPartitionBytes >= 0,
        DELETES_CONVERT_MIN_PARTITION_BYTES,
        deletesConvertMinPartitionBytes,
        ">= 0");
    check(!fullInterval.isNegative(), FULL_INTERVAL_MS, fullInterval, ">= 0");
    check(budgetBytes >= 1, BUDGET_BYTES, budgetBytes, ">= 1");
    check(
        maxGroupBytes >= targetFileSizeBytes,
        MAX_GROUP_BYTES,
        maxGroupBytes,
        ">= the target file size " + targetFileSizeBytes);
    check(spillMemoryBytes >= MIB, SPILL_MEMORY_BYTES, spillMemoryBytes, ">= 1048576");
    check(!retryBackoff.isNegative(), RETRY_BACKOFF_MS, retryBackoff, ">= 0");
    check(
        retryMaxBackoff.compareTo(retryBackoff) >= 0,
        RETRY_MAX_BACKOFF_MS,
        retryMaxBackoff,
        ">= " + RETRY_BACKOFF_MS);
  }

  /** The defaults, for a table whose target file size is {@code targetFileSizeBytes}. */
  public static OptimizePolicy defaults(long targetFileSizeBytes) {
    return new OptimizePolicy(
        true,
        targetFileSizeBytes,
        0.75,
        12,
        Duration.ofHours(1),
        8,
        0.1,
        0.2,
        defaultConvertMinPartitionBytes(targetFileSizeBytes),
        Duration.ZERO,
        10L * 1024 * MIB,
        Math.max(2048 * MIB, targetFileSizeBytes),
        64 * MIB,
        Duration.ofMinutes(3),
        Duration.ofHours(1),
        true);
  }

  /**
   * Reads the policy from a table's properties; unset keys take their defaults.
   *
   * @throws FloeException BAD_INPUT naming the table, the property and the value when a value is
   *     not a number, out of range, or an unknown {@code floe.optimize.*} key
   */
  public static OptimizePolicy fromProperties(String table, Map<String, String> properties) {
    for (String key : properties.keySet()) {
      if (key.startsWith(PREFIX) && !KNOWN_KEYS.contains(key)) {
        throw FloeException.badInput(
            "Table "
                + table
                + " has an unknown property '"
                + key
                + "'. Known optimize properties: "
                + String.join(", ", KNOWN_KEYS)
                + " (see docs/optimize.md).");
      }
    }
    Reader reader = new Reader(table, properties);
    long icebergTarget = reader.longValue(ICEBERG_TARGET_FILE_SIZE, DEFAULT_TARGET_FILE_SIZE_BYTES);
    long target = reader.longValue(TARGET_FILE_SIZE_BYTES, icebergTarget);
    OptimizePolicy defaults = defaults(DEFAULT_TARGET_FILE_SIZE_BYTES);
    try {
      return new OptimizePolicy(
          reader.booleanValue(ENABLED, defaults.enabled),
          target,
          reader.doubleValue(SMALL_FILE_RATIO, defaults.smallFileRatio),
          (int) reader.longValue(MINOR_MIN_SMALL_FILES, defaults.minorMinSmallFiles),
          reader.millis(MINOR_MAX_INTERVAL_MS, defaults.minorMaxInterval),
          (int) reader.longValue(DELETES_MIN_DELETE_FILES, defaults.deletesMinDeleteFiles),
          reader.doubleValue(DELETES_MIN_RATIO, defaults.deletesMinRatio),
          reader.doubleValue(DELETES_REWRITE_FILE_RATIO, defaults.deletesRewriteFileRatio),
          reader.longValue(
              DELETES_CONVERT_MIN_PARTITION_BYTES, defaultConvertMinPartitionBytes(target)),
          reader.millis(FULL_INTERVAL_MS, defaults.fullInterval),
          reader.longValue(BUDGET_BYTES, defaults.budgetBytes),
          reader.longValue(MAX_GROUP_BYTES, Math.max(defaults.maxGroupBytes, target)),
          reader.longValue(SPILL_MEMORY_BYTES, defaults.spillMemoryBytes),
          reader.millis(RETRY_BACKOFF_MS, defaults.retryBackoff),
          reader.millis(RETRY_MAX_BACKOFF_MS, defaults.retryMaxBackoff),
          reader.booleanValue(CLUSTER_BY_KEY, defaults.clusterByKey));
    } catch (InvalidValue e) {
      throw FloeException.badInput(
          "Table "
              + table
              + " has "
              + e.property
              + "="
              + properties.getOrDefault(e.property, String.valueOf(e.value))
              + ", which must be "
              + e.expected
              + ". Fix it with ALTER TABLE ... SET TBLPROPERTIES or remove it to use the default"
              + " (see docs/optimize.md).");
    }
  }

  /** This policy with another byte budget (the {@code --budget} option). */
  public OptimizePolicy withBudgetBytes(long budget) {
    return new OptimizePolicy(
        enabled,
        targetFileSizeBytes,
        smallFileRatio,
        minorMinSmallFiles,
        minorMaxInterval,
        deletesMinDeleteFiles,
        deletesMinRatio,
        deletesRewriteFileRatio,
        deletesConvertMinPartitionBytes,
        fullInterval,
        budget,
        maxGroupBytes,
        spillMemoryBytes,
        retryBackoff,
        retryMaxBackoff,
        clusterByKey);
  }

  /**
   * The default of {@code deletes.convert-min-partition-bytes}: four target-size files (2 GiB at
   * the default 512 MiB), saturating instead of overflowing.
   */
  static long defaultConvertMinPartitionBytes(long targetFileSizeBytes) {
    return targetFileSizeBytes > Long.MAX_VALUE / 4 ? Long.MAX_VALUE : 4 * targetFileSizeBytes;
  }

  /**
   * Whether a delete rewrite of a partition of {@code partitionBytes} data bytes converts the
   * equality deletes of its large files to position deletes (reading only their key columns) rather
   * than rewriting those files: only partitions of at least {@code
   * deletes.convert-min-partition-bytes}.
   */
  public boolean convertsLargeFiles(long partitionBytes) {
    return partitionBytes >= deletesConvertMinPartitionBytes;
  }

  /** Data files below this many bytes are small. */
  public long smallFileThreshold() {
    return (long) (targetFileSizeBytes * smallFileRatio);
  }

  private static final java.util.List<String> KNOWN_KEYS =
      java.util.List.of(
          ENABLED,
          TARGET_FILE_SIZE_BYTES,
          SMALL_FILE_RATIO,
          MINOR_MIN_SMALL_FILES,
          MINOR_MAX_INTERVAL_MS,
          DELETES_MIN_DELETE_FILES,
          DELETES_MIN_RATIO,
          DELETES_REWRITE_FILE_RATIO,
          DELETES_CONVERT_MIN_PARTITION_BYTES,
          FULL_INTERVAL_MS,
          BUDGET_BYTES,
          MAX_GROUP_BYTES,
          SPILL_MEMORY_BYTES,
          RETRY_BACKOFF_MS,
          RETRY_MAX_BACKOFF_MS,
          CLUSTER_BY_KEY);

  private static void check(boolean valid, String property, Object value, String expected) {
    if (!valid) {
      throw new InvalidValue(property, value, expected);
    }
  }

  /** Thrown by the compact constructor; turned into a message naming the table by the reader. */
  static final class InvalidValue extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;
    final String property;
    final transient Object value;
    final String expected;

    InvalidValue(String property, Object value, String expected) {
      super(property + "=" + value + " must be " + expected);
      this.property = property;
      this.value = value;
      this.expected = expected;
    }
  }

  private record Reader(String table, Map<String, String> properties) {

    long longValue(String key, long defaultValue) {
      String value = properties.get(key);
      if (value == null) {
        return defaultValue;
      }
      try {
        return Long.parseLong(value.trim());
      } catch (NumberFormatException e) {
        throw notA(key, value, "a whole number");
      }
    }

    double doubleValue(String key, double defaultValue) {
      String value = properties.get(key);
      if (value == null) {
        return defaultValue;
      }
      try {
        double parsed = Double.parseDouble(value.trim());
        if (Double.isNaN(parsed) || Double.isInfinite(parsed)) {
          throw notA(key, value, "a number");
        }
        return parsed;
      } catch (NumberFormatException e) {
        throw notA(key, value, "a number");
      }
    }

    boolean booleanValue(String key, boolean defaultValue) {
      String value = properties.get(key);
      if (value == null) {
        return defaultValue;
      }
      return switch (value.trim().toLowerCase(Locale.ROOT)) {
        case "true" -> true;
        case "false" -> false;
        default -> throw notA(key, value, "true or false");
      };
    }

    Duration millis(String key, Duration defaultValue) {
      String value = properties.get(key);
      return value == null ? defaultValue : Duration.ofMillis(longValue(key, 0));
    }

    private FloeException notA(String key, String value, String expected) {
      return FloeException.badInput(
          "Table "
              + table
              + " has "
              + key
              + "="
              + value
              + ", which must be "
              + expected
              + ". Fix it with ALTER TABLE ... SET TBLPROPERTIES or remove it to use the default"
              + " (see docs/optimize.md).");
    }
  }
}

package dev.floe.core.optimize;

import static java.util.Objects.requireNonNull;

import dev.floe.core.error.ErrorCategory;
import dev.floe.core.error.FloeException;
import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * The text form of a table's {@link OptimizeFailures} kept in Floe's state directory (one file per
 * table; format in docs/optimize.md). Pure: strings in, strings out.
 *
 * <p>Version 1 is written:
 *
 * <pre>
 * floe-optimize-failures 1
 * table shop.orders
 * partition 0 2 1764406800000 day=2026-11-29
 * </pre>
 *
 * <p>{@link #parse} also reads the unversioned properties file Floe 0.1 wrote ({@code
 * <spec-id>|<path>=<failures>,<last-failure-ms>}), so backoffs survive an upgrade.
 */
public final class OptimizeFailuresFormat {

  static final String MAGIC = "floe-optimize-failures";
  static final int VERSION = 1;
  static final String HEADER = MAGIC + " " + VERSION;

  private OptimizeFailuresFormat() {}

  public static String write(String table, OptimizeFailures failures) {
    requireNonNull(table, "table is null");
    requireNonNull(failures, "failures is null");
    StringBuilder text = new StringBuilder();
    text.append(HEADER).append('\n');
    text.append("table ").append(table).append('\n');
    new TreeMap<>(failures.failures())
        .forEach(
            (partition, failure) ->
                text.append("partition ")
                    .append(partition.specId())
                    .append(' ')
                    .append(failure.count())
                    .append(' ')
                    .append(failure.last().toEpochMilli())
                    .append(' ')
                    .append(partition.path())
                    .append('\n'));
    return text.toString();
  }

  /**
   * @param source the file the text came from, for messages
   * @throws FloeException INTERNAL naming the file and line when the text is damaged or was written
   *     by a newer Floe
   */
  public static OptimizeFailures parse(String text, String source) {
    requireNonNull(text, "text is null");
    requireNonNull(source, "source is null");
    String[] lines = text.split("\n", -1);
    if (lines[0].equals(HEADER)) {
      return parseVersion1(lines, source);
    }
    if (lines[0].startsWith(MAGIC + " ")) {
      throw broken(
          source,
          "at line 1",
          "it is format '"
              + lines[0]
              + "', written by a newer Floe; this one reads '"
              + HEADER
              + "'");
    }
    return parseProperties(text, source);
  }

  private static OptimizeFailures parseVersion1(String[] lines, String source) {
    Map<PartitionKey, OptimizeFailures.Failure> failures = new HashMap<>();
    for (int i = 1; i < lines.length; i++) {
      String line = lines[i];
      if (line.isEmpty()) {
        continue;
      }
      int space = line.indexOf(' ');
      String key = space < 0 ? line : line.substring(0, space);
      String value = space < 0 ? "" : line.substring(space + 1);
      switch (key) {
        case "table" -> {
          // for people reading the file; the file's location says which table it is
        }
        case "partition" -> {
          // the path comes last: it may contain spaces, and is empty for an unpartitioned spec
          String[] fields = value.split(" ", 4);
          if (fields.length != 4) {
            throw broken(
                source,
                "at line " + (i + 1),
                "a partition line needs spec id, failures, last failure time and path");
          }
          try {
            failures.put(
                new PartitionKey(Integer.parseInt(fields[0]), fields[3]),
                new OptimizeFailures.Failure(
                    Integer.parseInt(fields[1]), Instant.ofEpochMilli(Long.parseLong(fields[2]))));
          } catch (IllegalArgumentException e) {
            throw broken(
                source, "at line " + (i + 1), "'" + value + "' is not a valid partition line");
          }
        }
        default -> throw broken(source, "at line " + (i + 1), "unknown key '" + key + "'");
      }
    }
    return new OptimizeFailures(failures);
  }

  /** The unversioned file of Floe 0.1: {@code <spec-id>|<path>=<failures>,<last-failure-ms>}. */
  private static OptimizeFailures parseProperties(String text, String source) {
    Properties properties = new Properties();
    try {
      properties.load(new StringReader(text));
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a StringReader does not fail
    } catch (IllegalArgumentException e) {
      throw broken(source, "at line 1", "it is neither '" + HEADER + "' nor a properties file");
    }
    Map<PartitionKey, OptimizeFailures.Failure> failures = new HashMap<>();
    for (String key : properties.stringPropertyNames()) {
      int bar = key.indexOf('|');
      String[] value = properties.getProperty(key).split(",");
      if (bar < 0 || value.length != 2) {
        throw broken(
            source, "in entry '" + key + "'", "it is not <spec-id>|<path>=<failures>,<time>");
      }
      try {
        failures.put(
            new PartitionKey(Integer.parseInt(key.substring(0, bar)), key.substring(bar + 1)),
            new OptimizeFailures.Failure(
                Integer.parseInt(value[0]), Instant.ofEpochMilli(Long.parseLong(value[1]))));
      } catch (IllegalArgumentException e) {
        throw broken(source, "in entry '" + key + "'", "the value is not two numbers");
      }
    }
    return new OptimizeFailures(failures);
  }

  private static FloeException broken(String source, String where, String problem) {
    return new FloeException(
        ErrorCategory.INTERNAL,
        "The optimize state file "
            + source
            + " is damaged "
            + where
            + ": "
            + problem
            + ". Delete it to forget the table's optimize failures (partitions that failed are"
            + " then planned again on the next run).");
  }
}

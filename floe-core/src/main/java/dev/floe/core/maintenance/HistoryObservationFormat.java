package dev.floe.core.maintenance;

import static java.util.Objects.requireNonNull;

import dev.floe.core.error.FloeException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * The text form of a {@link HistoryObservation} kept in Floe's state directory (one file per table;
 * format in docs/maintenance.md). Pure: strings in, strings out.
 */
public final class HistoryObservationFormat {

  static final String HEADER = "floe-history 1";

  private HistoryObservationFormat() {}

  public static String write(HistoryObservation observation) {
    StringBuilder text = new StringBuilder();
    text.append(HEADER).append('\n');
    text.append("table ").append(observation.table()).append('\n');
    text.append("observed-at ").append(observation.observedAt()).append('\n');
    text.append("metadata-location ").append(observation.metadataLocation()).append('\n');
    text.append("current-snapshot-id ")
        .append(
            observation.currentSnapshotId().isPresent()
                ? Long.toString(observation.currentSnapshotId().getAsLong())
                : "none")
        .append('\n');
    text.append("ancestry-truncated ").append(observation.ancestryTruncated()).append('\n');
    for (ObservedSnapshot snapshot : observation.ancestry()) {
      text.append("snapshot ")
          .append(snapshot.id())
          .append(' ')
          .append(snapshot.sequenceNumber())
          .append(' ')
          .append(snapshot.committedAt().toEpochMilli())
          .append(' ')
          .append(snapshot.addedRecords())
          .append(' ')
          .append(snapshot.totalRecords())
          .append('\n');
    }
    return text.toString();
  }

  /**
   * @param source the file the text came from, for messages
   * @throws FloeException INTERNAL naming the file and line when the text is not an observation
   */
  public static HistoryObservation parse(String text, String source) {
    requireNonNull(text, "text is null");
    requireNonNull(source, "source is null");
    String[] lines = text.split("\n", -1);
    if (lines.length == 0 || !lines[0].equals(HEADER)) {
      throw broken(source, 1, "it does not start with '" + HEADER + "'");
    }
    String table = null;
    Instant observedAt = null;
    String metadataLocation = null;
    OptionalLong current = null;
    boolean truncated = false;
    List<ObservedSnapshot> ancestry = new ArrayList<>();
    for (int i = 1; i < lines.length; i++) {
      String line = lines[i];
      if (line.isBlank()) {
        continue;
      }
      int space = line.indexOf(' ');
      String key = space < 0 ? line : line.substring(0, space);
      String value = space < 0 ? "" : line.substring(space + 1);
      try {
        switch (key) {
          case "table" -> table = value;
          case "observed-at" -> observedAt = Instant.parse(value);
          case "metadata-location" -> metadataLocation = value;
          case "current-snapshot-id" ->
              current =
                  value.equals("none")
                      ? OptionalLong.empty()
                      : OptionalLong.of(Long.parseLong(value));
          case "ancestry-truncated" -> truncated = Boolean.parseBoolean(value);
          case "snapshot" -> {
            String[] fields = value.split(" ");
            if (fields.length != 5) {
              throw broken(source, i + 1, "a snapshot line needs 5 fields");
            }
            ancestry.add(
                new ObservedSnapshot(
                    Long.parseLong(fields[0]),
                    Long.parseLong(fields[1]),
                    Instant.ofEpochMilli(Long.parseLong(fields[2])),
                    Long.parseLong(fields[3]),
                    Long.parseLong(fields[4])));
          }
          default -> throw broken(source, i + 1, "unknown key '" + key + "'");
        }
      } catch (NumberFormatException | DateTimeParseException e) {
        throw broken(source, i + 1, "'" + value + "' is not a valid " + key);
      }
    }
    if (table == null || observedAt == null || metadataLocation == null || current == null) {
      throw broken(
          source,
          lines.length,
          "table, observed-at, metadata-location or current-snapshot-id is missing");
    }
    return new HistoryObservation(
        table, observedAt, metadataLocation, current, ancestry, truncated);
  }

  private static FloeException broken(String source, int line, String problem) {
    return new FloeException(
        dev.floe.core.error.ErrorCategory.INTERNAL,
        "The history state file "
            + source
            + " is damaged at line "
            + line
            + ": "
            + problem
            + ". Delete it to start observing the table afresh (the next run records a new first"
            + " observation).");
  }
}

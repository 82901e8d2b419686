package dev.floe.core.verify;

import static java.util.Objects.requireNonNull;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * The outcome of a verification: what was compared, and the differences by kind with exact counts
 * and capped keys. {@link #toJson()} is the {@code --report} file, {@link #summary()} the human
 * text.
 */
public record VerifyReport(
    String sourceTable,
    String targetTable,
    List<VerifyColumn> keyColumns,
    VerifyWindow window,
    SnapshotChoice snapshot,
    long rowsCompared,
    long slices,
    Map<DifferenceKind, Found> found,
    long changedAfterCutoff,
    int keyLimit,
    Duration elapsed) {

  /** How many keys of one kind, and the first of them with their differing columns. */
  public record Found(long count, List<Map.Entry<RowKey, List<String>>> keys) {
    public Found {
      keys = List.copyOf(requireNonNull(keys, "keys is null"));
    }
  }

  public VerifyReport {
    requireNonNull(sourceTable, "sourceTable is null");
    requireNonNull(targetTable, "targetTable is null");
    keyColumns = List.copyOf(requireNonNull(keyColumns, "keyColumns is null"));
    requireNonNull(window, "window is null");
    requireNonNull(snapshot, "snapshot is null");
    found = Map.copyOf(requireNonNull(found, "found is null"));
    requireNonNull(elapsed, "elapsed is null");
  }

  /** Builds the report from what the collector holds; keys are sorted by key order. */
  public static VerifyReport of(
      TableShape shape,
      String targetTable,
      VerifyWindow window,
      SnapshotChoice snapshot,
      long rowsCompared,
      long slices,
      DifferenceCollector differences,
      Duration elapsed) {
    Map<DifferenceKind, Found> found = new EnumMap<>(DifferenceKind.class);
    Comparator<RowKey> order = keyOrder(shape.keyColumns());
    for (DifferenceKind kind : DifferenceKind.values()) {
      List<Map.Entry<RowKey, List<String>>> keys =
          new ArrayList<>(differences.keys(kind).entrySet());
      keys.sort(Map.Entry.comparingByKey(order));
      found.put(
          kind,
          new Found(
              differences.count(kind),
              keys.stream().map(entry -> Map.entry(entry.getKey(), entry.getValue())).toList()));
    }
    return new VerifyReport(
        shape.qualifiedName(),
        targetTable,
        shape.keyColumns(),
        window,
        snapshot,
        rowsCompared,
        slices,
        found,
        differences.changedAfterCutoff(),
        differences.keyLimit(),
        elapsed);
  }

  /** The order of keys in MySQL and the lake: numeric for integer and decimal columns. */
  public static Comparator<RowKey> keyOrder(List<VerifyColumn> keyColumns) {
    return (left, right) -> {
      for (int i = 0; i < keyColumns.size(); i++) {
        String a = left.values().get(i);
        String b = right.values().get(i);
        int compared =
            keyColumns.get(i).kind().numeric()
                ? new BigDecimal(a).compareTo(new BigDecimal(b))
                : a.compareTo(b);
        if (compared != 0) {
          return compared;
        }
      }
      return 0;
    };
  }

  public boolean equal() {
    return found.values().stream().allMatch(kind -> kind.count() == 0);
  }

  /** {@code equal} or {@code different}. */
  public String status() {
    return equal() ? "equal" : "different";
  }

  public Found found(DifferenceKind kind) {
    return found.get(kind);
  }

  /** The JSON report (see docs/verify.md). */
  public String toJson() {
    StringBuilder json = new StringBuilder("{\n");
    field(json, "status", Json.string(status()));
    field(json, "source_table", Json.string(sourceTable));
    field(json, "target_table", Json.string(targetTable));
    field(json, "cutoff", Json.string(window.cutoff().toString()));
    field(json, "window_start", Json.string(window.start().toString()));
    field(
        json,
        "lake_snapshot",
        "{\"id\": "
            + snapshot.snapshotId().map(String::valueOf).orElse("null")
            + ", \"chosen\": "
            + Json.string(snapshot.reason())
            + ", \"caught_up\": "
            + snapshot.caughtUp()
            + "}");
    field(json, "rows_compared", String.valueOf(rowsCompared));
    field(json, "slices", String.valueOf(slices));
    for (DifferenceKind kind : DifferenceKind.values()) {
      Found kindFound = found.get(kind);
      StringBuilder value = new StringBuilder("{\"count\": ").append(kindFound.count());
      value.append(", \"keys\": [");
      value.append(
          String.join(
              ", ", kindFound.keys().stream().map(entry -> keyJson(entry.getKey())).toList()));
      value.append(']');
      if (kind == DifferenceKind.DIFFERENT) {
        value.append(", \"rows\": [");
        value.append(
            String.join(
                ", ",
                kindFound.keys().stream()
                    .map(
                        entry ->
                            "{\"key\": "
                                + keyJson(entry.getKey())
                                + ", \"columns\": ["
                                + String.join(
                                    ", ", entry.getValue().stream().map(Json::string).toList())
                                + "]}")
                    .toList()));
        value.append(']');
      }
      value.append('}');
      field(json, kind.jsonName(), value.toString());
    }
    field(json, "changed_after_cutoff", String.valueOf(changedAfterCutoff));
    field(json, "keys_limit", String.valueOf(keyLimit));
    json.append("  \"elapsed_ms\": ").append(elapsed.toMillis()).append("\n}\n");
    return json.toString();
  }

  private static void field(StringBuilder json, String name, String value) {
    json.append("  ").append(Json.string(name)).append(": ").append(value).append(",\n");
  }

  /** A key as JSON: its value for one column, an object column -> value for several. */
  public String keyJson(RowKey key) {
    if (keyColumns.size() == 1) {
      return valueJson(keyColumns.get(0), key.values().get(0));
    }
    List<String> members = new ArrayList<>();
    for (int i = 0; i < keyColumns.size(); i++) {
      members.add(
          Json.string(keyColumns.get(i).name())
              + ": "
              + valueJson(keyColumns.get(i), key.values().get(i)));
    }
    return "{" + String.join(", ", members) + "}";
  }

  private static String valueJson(VerifyColumn column, String text) {
    return column.kind().numeric() ? text : Json.string(text);
  }

  /** The human summary, at most {@code shownKeys} keys per kind. */
  public String summary(int shownKeys) {
    StringBuilder text = new StringBuilder();
    text.append(
        String.format(
            "Verified %s against lake table %s: rows of [%s, %s) in full, all keys before %s.%n",
            sourceTable, targetTable, window.start(), window.cutoff(), window.cutoff()));
    text.append(
        String.format(
            "Lake snapshot %s (%s).%n",
            snapshot.snapshotId().map(String::valueOf).orElse("none"), snapshot.reason()));
    text.append(
        String.format(
            "Compared %d MySQL rows in %d slices in %.1f s.%n",
            rowsCompared, slices, elapsed.toMillis() / 1000.0));
    if (changedAfterCutoff > 0) {
      text.append(
          String.format(
              "%d lake rows changed in MySQL after the cutoff and were not compared.%n",
              changedAfterCutoff));
    }
    if (equal()) {
      text.append("EQUAL: MySQL and the lake hold the same data.\n");
      return text.toString();
    }
    text.append("DIFFERENT:\n");
    List<String> repair = new ArrayList<>();
    for (DifferenceKind kind : DifferenceKind.values()) {
      Found kindFound = found.get(kind);
      text.append(String.format("  %-18s %d%n", kind.label() + ":", kindFound.count()));
      int shown = 0;
      for (Map.Entry<RowKey, List<String>> entry : kindFound.keys()) {
        if (shown++ >= shownKeys) {
          text.append(
              String.format("    ... %d more (see --report)%n", kindFound.count() - shownKeys));
          break;
        }
        text.append("    ").append(keyJson(entry.getKey()));
        if (!entry.getValue().isEmpty()) {
          text.append("  columns: ").append(String.join(", ", entry.getValue()));
        }
        text.append('\n');
        if (repair.size() < shownKeys) {
          repair.add(keyJson(entry.getKey()));
        }
      }
    }
    text.append("Repair: re-sync these keys from MySQL (all of them are in the --report file): ")
        .append(String.join(", ", repair))
        .append('\n');
    return text.toString();
  }
}

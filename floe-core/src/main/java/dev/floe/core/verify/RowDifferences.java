package dev.floe.core.verify;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The differences between the compared rows of one key range on both sides.
 *
 * @param missingInLake keys MySQL has and the lake lacks
 * @param extraInLake keys the lake has and MySQL lacks (before the re-check in MySQL)
 * @param different keys on both sides whose rows differ, with the differing columns
 */
public record RowDifferences(
    List<RowKey> missingInLake, List<RowKey> extraInLake, List<ChangedRow> different) {

  /** A key whose rows differ, and the columns that differ. */
  public record ChangedRow(RowKey key, List<String> columns) {
    public ChangedRow {
      requireNonNull(key, "key is null");
      columns = List.copyOf(requireNonNull(columns, "columns is null"));
    }
  }

  public RowDifferences {
    missingInLake = List.copyOf(missingInLake);
    extraInLake = List.copyOf(extraInLake);
    different = List.copyOf(different);
  }

  /**
   * Compares the rows of one key range. Rows in the window on either side are compared in full;
   * rows outside it on both sides by key only.
   */
  public static RowDifferences compare(
      TableShape shape, Map<RowKey, ComparedRow> source, Map<RowKey, ComparedRow> lake) {
    List<RowKey> missing = new ArrayList<>();
    List<RowKey> extra = new ArrayList<>();
    List<ChangedRow> different = new ArrayList<>();
    for (Map.Entry<RowKey, ComparedRow> entry : source.entrySet()) {
      ComparedRow lakeRow = lake.get(entry.getKey());
      if (lakeRow == null) {
        missing.add(entry.getKey());
        continue;
      }
      ComparedRow sourceRow = entry.getValue();
      if (!sourceRow.full() && !lakeRow.full()) {
        continue;
      }
      List<String> columns = new ArrayList<>();
      for (int i = 0; i < shape.columns().size(); i++) {
        if (!Objects.equals(sourceRow.texts().get(i), lakeRow.texts().get(i))) {
          columns.add(shape.columns().get(i).name());
        }
      }
      if (!columns.isEmpty()) {
        different.add(new ChangedRow(entry.getKey(), columns));
      }
    }
    for (RowKey key : lake.keySet()) {
      if (!source.containsKey(key)) {
        extra.add(key);
      }
    }
    return new RowDifferences(missing, extra, different);
  }

  public boolean isEmpty() {
    return missingInLake.isEmpty() && extraInLake.isEmpty() && different.isEmpty();
  }
}

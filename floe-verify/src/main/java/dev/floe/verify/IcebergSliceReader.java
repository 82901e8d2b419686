package dev.floe.verify;

import static java.util.Objects.requireNonNull;

import dev.floe.core.error.FloeException;
import dev.floe.core.verify.ComparedRow;
import dev.floe.core.verify.KeyRange;
import dev.floe.core.verify.RowKey;
import dev.floe.core.verify.RowText;
import dev.floe.core.verify.SliceDigest;
import dev.floe.core.verify.TableShape;
import dev.floe.core.verify.TimeBounds;
import dev.floe.core.verify.VerifyColumn;
import dev.floe.core.verify.VerifyReport;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Evaluator;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Reads the lake side of a key range at one snapshot with Iceberg's generic reader (deletes
 * applied), filtered by the key range, and normalizes the rows exactly as MySQL does. Thread-safe.
 */
final class IcebergSliceReader {

  private final Table table;
  private final Optional<Long> snapshotId;
  private final TableShape shape;
  private final RowText rowText;
  private final TimeBounds bounds;
  private final List<String> lakeNames;
  private final List<Types.NestedField> keyFields;
  private final int[] keyPositions;
  private final int timePosition;

  IcebergSliceReader(Table table, Optional<Long> snapshotId, TableShape shape, TimeBounds bounds) {
    this.table = requireNonNull(table, "table is null");
    this.snapshotId = requireNonNull(snapshotId, "snapshotId is null");
    this.shape = requireNonNull(shape, "shape is null");
    this.rowText = new RowText(shape);
    this.bounds = requireNonNull(bounds, "bounds is null");
    Schema schema = table.schema();
    List<String> missing = new ArrayList<>();
    List<String> names = new ArrayList<>();
    for (VerifyColumn column : shape.columns()) {
      Types.NestedField field = schema.caseInsensitiveFindField(column.name());
      if (field == null) {
        missing.add(column.name());
      } else {
        names.add(field.name());
      }
    }
    if (!missing.isEmpty()) {
      throw FloeException.badInput(
          "Lake table "
              + table.name()
              + " lacks columns of "
              + shape.qualifiedName()
              + ": "
              + String.join(", ", missing)
              + ". verify compares tables with the same columns; check --target.");
    }
    this.lakeNames = List.copyOf(names);
    this.keyFields =
        shape.keyColumns().stream()
            .map(column -> schema.caseInsensitiveFindField(column.name()))
            .toList();
    this.keyPositions = shape.keyColumns().stream().mapToInt(shape::indexOf).toArray();
    this.timePosition = shape.indexOf(shape.timeColumn());
  }

  /** The digest of the compared lake rows of a range. */
  SliceDigest digest(KeyRange range) {
    SliceDigest.Accumulator digest = new SliceDigest.Accumulator();
    scan(
        range,
        record -> {
          String time = text(record, timePosition);
          if (!bounds.compared(time)) {
            return;
          }
          boolean full = bounds.inWindow(time);
          List<String> texts = full ? allTexts(record) : keyTexts(record, time);
          digest.add(RowText.hash(rowText.rowText(texts, full)));
        });
    return digest.digest();
  }

  /** The (key, row hash) of the compared lake rows of a range, for bisection in memory. */
  LakeKeyIndex index(KeyRange range) {
    List<Map.Entry<RowKey, Long>> entries = new ArrayList<>();
    scan(
        range,
        record -> {
          String time = text(record, timePosition);
          if (!bounds.compared(time)) {
            return;
          }
          boolean full = bounds.inWindow(time);
          List<String> texts = full ? allTexts(record) : keyTexts(record, time);
          entries.add(Map.entry(rowText.key(texts), RowText.hash(rowText.rowText(texts, full))));
        });
    Comparator<RowKey> order = VerifyReport.keyOrder(shape.keyColumns());
    entries.sort(Map.Entry.comparingByKey(order));
    long[] hashes = new long[entries.size()];
    for (int i = 0; i < hashes.length; i++) {
      hashes[i] = entries.get(i).getValue();
    }
    return new LakeKeyIndex(entries.stream().map(Map.Entry::getKey).toList(), hashes, order);
  }

  /**
   * The compared lake rows of several disjoint ranges inside {@code within}, sorted by key, in one
   * read: one map per range, in the order given.
   */
  List<Map<RowKey, ComparedRow>> rows(KeyRange within, List<KeyRange> ranges) {
    Comparator<RowKey> order = VerifyReport.keyOrder(shape.keyColumns());
    List<Map<RowKey, ComparedRow>> rows = new ArrayList<>();
    ranges.forEach(range -> rows.add(new HashMap<>()));
    scan(
        within,
        record -> {
          String time = text(record, timePosition);
          if (!bounds.compared(time)) {
            return;
          }
          List<String> texts = allTexts(record);
          RowKey key = rowText.key(texts);
          for (int i = 0; i < ranges.size(); i++) {
            if (contains(ranges.get(i), key, order)) {
              rows.get(i).put(key, new ComparedRow(texts, bounds.inWindow(time)));
              return;
            }
          }
        });
    return rows;
  }

  private static boolean contains(KeyRange range, RowKey key, Comparator<RowKey> order) {
    return range.lower().map(lower -> order.compare(key, lower) >= 0).orElse(true)
        && range.upper().map(upper -> order.compare(key, upper) < 0).orElse(true);
  }

  /** The compared lake rows of a range, normalized, by key. */
  Map<RowKey, ComparedRow> rows(KeyRange range) {
    Map<RowKey, ComparedRow> rows = new HashMap<>();
    scan(
        range,
        record -> {
          String time = text(record, timePosition);
          if (!bounds.compared(time)) {
            return;
          }
          List<String> texts = allTexts(record);
          rows.put(rowText.key(texts), new ComparedRow(texts, bounds.inWindow(time)));
        });
    return rows;
  }

  private List<String> allTexts(Record record) {
    List<String> texts = new ArrayList<>(lakeNames.size());
    for (int i = 0; i < lakeNames.size(); i++) {
      texts.add(text(record, i));
    }
    return texts;
  }

  /** Only the key and time texts are filled; the rest stay null (key-only rows). */
  private List<String> keyTexts(Record record, String time) {
    List<String> texts = new ArrayList<>(java.util.Collections.nCopies(lakeNames.size(), null));
    for (int position : keyPositions) {
      texts.set(position, text(record, position));
    }
    texts.set(timePosition, time);
    return texts;
  }

  private String text(Record record, int position) {
    Object value = record.getField(lakeNames.get(position));
    try {
      return RowText.valueText(shape.columns().get(position), value);
    } catch (IllegalArgumentException e) {
      VerifyColumn column = shape.columns().get(position);
      throw FloeException.badInput(
          "Column "
              + column.name()
              + " of lake table "
              + table.name()
              + " cannot be compared with MySQL's "
              + column.mySqlType()
              + ": "
              + e.getMessage()
              + ". See docs/verify.md for the type mapping.");
    }
  }

  private interface RecordConsumer {
    void accept(Record record);
  }

  private void scan(KeyRange range, RecordConsumer consumer) {
    if (snapshotId.isEmpty()) {
      return;
    }
    Expression filter = filter(range);
    Evaluator evaluator = new Evaluator(table.schema().select(lakeNames).asStruct(), filter, false);
    try (CloseableIterable<Record> records =
        IcebergGenerics.read(table)
            .useSnapshot(snapshotId.get())
            .caseInsensitive()
            .where(filter)
            .select(lakeNames)
            .build()) {
      for (Record record : records) {
        // the reader may leave rows of a file the filter only pruned by statistics
        if (evaluator.eval(record)) {
          consumer.accept(record);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read lake table " + table.name(), e);
    }
  }

  Expression filter(KeyRange range) {
    Expression filter = Expressions.alwaysTrue();
    if (range.lower().isPresent()) {
      filter = Expressions.and(filter, compare(range.lower().get(), 0, true));
    }
    if (range.upper().isPresent()) {
      filter = Expressions.and(filter, compare(range.upper().get(), 0, false));
    }
    return filter;
  }

  private Expression compare(RowKey key, int index, boolean lower) {
    Types.NestedField field = keyFields.get(index);
    Object literal = literal(field.type(), key.values().get(index));
    String name = field.name();
    boolean last = index == keyFields.size() - 1;
    if (last) {
      return lower
          ? Expressions.greaterThanOrEqual(name, literal)
          : Expressions.lessThan(name, literal);
    }
    Expression strict =
        lower ? Expressions.greaterThan(name, literal) : Expressions.lessThan(name, literal);
    return Expressions.or(
        strict, Expressions.and(Expressions.equal(name, literal), compare(key, index + 1, lower)));
  }

  private static Object literal(Type type, String text) {
    switch (type.typeId()) {
      case INTEGER:
      case LONG:
        return Long.valueOf(text);
      case DECIMAL:
        return new BigDecimal(text)
            .setScale(((Types.DecimalType) type).scale(), RoundingMode.UNNECESSARY);
      case DATE:
        return text;
      case TIMESTAMP:
        String iso = text.replace(' ', 'T');
        return ((Types.TimestampType) type).shouldAdjustToUTC() ? iso + "+00:00" : iso;
      default:
        return text;
    }
  }
}

package dev.floe.verify;

import static java.util.Objects.requireNonNull;

import dev.floe.core.verify.ColumnKind;
import dev.floe.core.verify.RowKey;
import dev.floe.core.verify.TableShape;
import dev.floe.core.verify.VerifyColumn;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * The order of keys as MySQL's key index orders them, applied to keys from both sides: MySQL key
 * texts and lake values are turned into typed values (numbers, dates, strings) and compared column
 * by column; string columns compare with the column's collation ({@link StringOrder}). Immutable.
 */
final class KeyOrder {

  private final List<Types.NestedField> lakeFields;
  private final List<Comparator<Object>> columnOrders;

  /** per key column: a string in the lake that holds a number (DECIMAL wider than 38 digits) */
  private final boolean[] numberAsText;

  /**
   * @param lakeFields the lake fields of the key columns, in key order
   * @param stringOrders the order of each key column that is a string (null for other columns)
   */
  KeyOrder(
      List<Types.NestedField> lakeFields, List<StringOrder> stringOrders, boolean[] numberAsText) {
    this.lakeFields = List.copyOf(requireNonNull(lakeFields, "lakeFields is null"));
    this.numberAsText = numberAsText.clone();
    List<Comparator<Object>> orders = new ArrayList<>();
    for (int i = 0; i < lakeFields.size(); i++) {
      StringOrder strings = stringOrders.get(i);
      if (strings != null) {
        orders.add((left, right) -> strings.compare((String) left, (String) right));
      } else {
        orders.add(KeyOrder::compareValues);
      }
    }
    this.columnOrders = List.copyOf(orders);
  }

  /** The typed values of a key given as MySQL texts. */
  Object[] typed(RowKey key) {
    Object[] values = new Object[lakeFields.size()];
    for (int i = 0; i < values.length; i++) {
      values[i] =
          numberAsText[i]
              ? new BigDecimal(key.values().get(i))
              : fromText(lakeFields.get(i).type(), key.values().get(i));
    }
    return values;
  }

  /** The typed value of one key column from a lake value (as Iceberg's generic reader has it). */
  Object typedLakeValue(int keyIndex, Object value) {
    if (value instanceof Integer integer) {
      return integer.longValue();
    }
    if (value instanceof OffsetDateTime offsetDateTime) {
      return offsetDateTime.withOffsetSameInstant(ZoneOffset.UTC).toLocalDateTime();
    }
    if (value instanceof CharSequence text) {
      return numberAsText[keyIndex] ? new BigDecimal(text.toString()) : text.toString();
    }
    return value;
  }

  int compare(Object[] left, Object[] right) {
    for (int i = 0; i < left.length; i++) {
      int compared = columnOrders.get(i).compare(left[i], right[i]);
      if (compared != 0) {
        return compared;
      }
    }
    return 0;
  }

  Comparator<RowKey> rowKeyOrder() {
    return (left, right) -> compare(typed(left), typed(right));
  }

  /** Whether a key column is a string in the lake (string keys cannot be pruned by Iceberg). */
  boolean hasStringColumn() {
    return lakeFields.stream().anyMatch(field -> field.type().typeId() == Type.TypeID.STRING);
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static int compareValues(Object left, Object right) {
    return ((Comparable) left).compareTo(right);
  }

  private static Object fromText(Type type, String text) {
    switch (type.typeId()) {
      case INTEGER:
      case LONG:
        return Long.valueOf(text);
      case DECIMAL:
        return new BigDecimal(text);
      case DATE:
        return LocalDate.parse(text.length() > 10 ? text.substring(0, 10) : text);
      case TIMESTAMP:
        return LocalDateTime.parse(text.replace(' ', 'T'));
      case STRING:
        return text;
      default:
        throw new IllegalArgumentException("a key of type " + type + " cannot be ordered");
    }
  }

  /** The order of the key columns of a table whose key columns are these lake fields. */
  static KeyOrder of(
      TableShape shape, List<Types.NestedField> keyFields, List<StringOrder> strings) {
    List<StringOrder> orders = new ArrayList<>();
    boolean[] numberAsText = new boolean[keyFields.size()];
    for (int i = 0; i < keyFields.size(); i++) {
      VerifyColumn column = shape.keyColumns().get(i);
      boolean text = keyFields.get(i).type().typeId() == Type.TypeID.STRING;
      orders.add(text && column.kind() == ColumnKind.STRING ? strings.get(i) : null);
      numberAsText[i] = text && column.kind() != ColumnKind.STRING;
    }
    return new KeyOrder(keyFields, orders, numberAsText);
  }
}

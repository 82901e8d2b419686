package dev.floe.core.verify;

import static java.util.Objects.requireNonNull;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32;

/**
 * The normalized text of a row and its 64-bit hash, built the same way in Java (from Iceberg
 * values) and in SQL (inside MySQL). A row in the content window contributes {@code R,} and all its
 * column values; any other compared row {@code K,} and its key values. {@code NULL} is {@code N};
 * strings are {@code <characters>:<text>}.
 */
public final class RowText {

  static final String NULL = "N";

  private final TableShape shape;
  private final int[] keyPositions;
  private final int timePosition;

  public RowText(TableShape shape) {
    this.shape = requireNonNull(shape, "shape is null");
    this.keyPositions = shape.keyColumns().stream().mapToInt(shape::indexOf).toArray();
    this.timePosition = shape.indexOf(shape.timeColumn());
  }

  public TableShape shape() {
    return shape;
  }

  /** The normalized text of one value; {@code value} is null for SQL NULL. */
  public static String valueText(VerifyColumn column, Object value) {
    if (value == null) {
      return null;
    }
    return column.text(value);
  }

  /**
   * The texts of a row's columns (in table order) from the values Iceberg returned; a null entry is
   * SQL NULL.
   */
  public List<String> texts(List<?> values) {
    List<String> texts = new ArrayList<>(values.size());
    for (int i = 0; i < values.size(); i++) {
      texts.add(valueText(shape.columns().get(i), values.get(i)));
    }
    return texts;
  }

  /** The key of a row, from its column texts. */
  public RowKey key(List<String> texts) {
    List<String> values = new ArrayList<>(keyPositions.length);
    for (int position : keyPositions) {
      values.add(texts.get(position));
    }
    return new RowKey(values);
  }

  /** The normalized text of the row's time column, or null. */
  public String time(List<String> texts) {
    return texts.get(timePosition);
  }

  /** The row's text: all columns when it is in the window, else its key only. */
  public String rowText(List<String> texts, boolean full) {
    StringBuilder text = new StringBuilder();
    if (full) {
      text.append('R');
      for (int i = 0; i < texts.size(); i++) {
        text.append(',').append(encoded(shape.columns().get(i), texts.get(i)));
      }
    } else {
      for (int position : keyPositions) {
        if (text.length() > 0) {
          text.append(',');
        }
        text.append(encoded(shape.columns().get(position), texts.get(position)));
      }
    }
    return text.toString();
  }

  /** The text of a key-only row from its key texts (in key order). */
  public String keyRowText(List<String> keyTexts) {
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < keyTexts.size(); i++) {
      if (i > 0) {
        text.append(',');
      }
      text.append(encoded(shape.keyColumns().get(i), keyTexts.get(i)));
    }
    return text.toString();
  }

  private static String encoded(VerifyColumn column, String text) {
    if (text == null) {
      return NULL;
    }
    if (column.kind() == ColumnKind.STRING) {
      return text.codePointCount(0, text.length()) + ":" + text;
    }
    return text;
  }

  /** CRC32 of the UTF-8 text, as MySQL's {@code CRC32()} computes it. */
  public static long hash(String rowText) {
    CRC32 crc = new CRC32();
    crc.update(rowText.getBytes(StandardCharsets.UTF_8));
    return crc.getValue();
  }

  // ---- the same in SQL ----

  /** The SQL expression of one column's encoded text ({@code N} for NULL). */
  public static String sqlValue(VerifyColumn column) {
    String text = column.kind().sqlText(column.quoted());
    if (column.kind() == ColumnKind.STRING) {
      return "IFNULL(CONCAT(CHAR_LENGTH(" + text + "), ':', " + text + "), '" + NULL + "')";
    }
    return "IFNULL(" + text + ", '" + NULL + "')";
  }

  /**
   * One column's encoded text as arguments of the row's single, flat {@code CONCAT} (same text as
   * {@link #sqlValue}): a {@code NOT NULL} column needs no {@code IFNULL}, and its string length
   * prefix is spliced in rather than nested in another {@code CONCAT}; values in their cheapest
   * form ({@link VerifyColumn#sqlNativeText}).
   */
  static String sqlConcatPieces(VerifyColumn column) {
    String text = column.sqlNativeText();
    if (column.kind() == ColumnKind.STRING) {
      String prefixed = "CHAR_LENGTH(" + text + "), ':', " + text;
      return column.nullable() ? "IFNULL(CONCAT(" + prefixed + "), '" + NULL + "')" : prefixed;
    }
    if (column.nullable()) {
      // MySQL's IFNULL of a column and a string converts the column to text as in a CONCAT
      return "IFNULL(" + column.kind().sqlText(column.quoted()) + ", '" + NULL + "')";
    }
    return text;
  }

  /**
   * The SQL expression of the row hash: CRC32 of the row text ({@link #rowText} for a row in the
   * window, {@link #keyRowText} for any other); it has one parameter, the window start (in the time
   * column's text, see {@link TimeBounds}). The {@code IF} chooses between two CRC32s rather than
   * two texts, so MySQL never converts the key-only text to the full row's character set; an
   * integer key column is hashed as the column itself (MySQL turns it into the same decimal text as
   * {@code CAST(... AS CHAR)}, without the cast's character-set conversion).
   */
  public String sqlRowHash() {
    StringBuilder full = new StringBuilder("CONCAT('R'");
    for (VerifyColumn column : shape.columns()) {
      full.append(", ',', ").append(sqlConcatPieces(column));
    }
    full.append(')');
    // key columns are never NULL; strings are length-prefixed as in keyRowText
    List<String> keyTexts = new ArrayList<>();
    for (VerifyColumn column : shape.keyColumns()) {
      switch (column.kind()) {
        case STRING:
          keyTexts.add(sqlValue(column));
          break;
        case INTEGER:
          keyTexts.add(column.quoted());
          break;
        default:
          keyTexts.add(column.kind().sqlText(column.quoted()));
          break;
      }
    }
    String key =
        keyTexts.size() == 1 ? keyTexts.get(0) : "CONCAT(" + String.join(", ',', ", keyTexts) + ")";
    return "IF(" + shape.timeColumn().quoted() + " >= ?, CRC32(" + full + "), CRC32(" + key + "))";
  }

  /** The SQL condition that keeps the compared rows (one parameter: the cutoff). */
  public String sqlComparedFilter() {
    String time = shape.timeColumn().quoted();
    return "(" + time + " < ? OR " + time + " IS NULL)";
  }
}

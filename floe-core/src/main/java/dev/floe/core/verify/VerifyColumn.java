package dev.floe.core.verify;

import static java.util.Objects.requireNonNull;

/**
 * One column as verify compares it.
 *
 * @param name the column name as MySQL spells it
 * @param kind how it is normalized
 * @param mySqlType the MySQL column type, e.g. {@code decimal(10,2)} (for messages)
 * @param scale the decimal scale (0 unless DECIMAL)
 */
public record VerifyColumn(String name, ColumnKind kind, String mySqlType, int scale) {
  public VerifyColumn {
    requireNonNull(name, "name is null");
    requireNonNull(kind, "kind is null");
    requireNonNull(mySqlType, "mySqlType is null");
    if (scale < 0) {
      throw new IllegalArgumentException("scale must be >= 0, got " + scale);
    }
  }

  /** The column quoted for MySQL. */
  public String quoted() {
    return "`" + name.replace("`", "``") + "`";
  }

  /** The normalized text of a non-null value, see {@link ColumnKind#text}. */
  public String text(Object value) {
    return kind.text(value, scale);
  }
}

package dev.floe.core.verify;

import static java.util.Objects.requireNonNull;

/**
 * One column as verify compares it.
 *
 * @param name the column name as MySQL spells it
 * @param kind how it is normalized
 * @param mySqlType the MySQL column type, e.g. {@code decimal(10,2)} (for messages)
 * @param scale the decimal scale (0 unless DECIMAL)
 * @param nullable whether MySQL allows NULL in it
 * @param characterSet the MySQL character set of a string column (e.g. {@code utf8mb4}), empty for
 *     other columns or when unknown
 */
public record VerifyColumn(
    String name,
    ColumnKind kind,
    String mySqlType,
    int scale,
    boolean nullable,
    String characterSet) {
  public VerifyColumn {
    requireNonNull(name, "name is null");
    requireNonNull(kind, "kind is null");
    requireNonNull(mySqlType, "mySqlType is null");
    requireNonNull(characterSet, "characterSet is null");
    if (scale < 0) {
      throw new IllegalArgumentException("scale must be >= 0, got " + scale);
    }
  }

  /** A nullable column of unknown character set. */
  public VerifyColumn(String name, ColumnKind kind, String mySqlType, int scale) {
    this(name, kind, mySqlType, scale, true, "");
  }

  /**
   * The cheapest SQL expression whose text MySQL gives as this column's normalized text (a non-null
   * value; see {@link ColumnKind#sqlText}): the bare column where MySQL's own conversion to text in
   * a string context already is that text (integers but {@code YEAR}, decimals, {@code
   * DATETIME(6)}/{@code TIMESTAMP(6)}, {@code utf8mb4} strings), else {@link ColumnKind#sqlText}.
   * Measured on MariaDB 10.11: the casts, {@code DATE_FORMAT}, {@code CONVERT} and nested {@code
   * CONCAT}s of the row text cost about as much as reading the row.
   */
  public String sqlNativeText() {
    String type = mySqlType.toLowerCase(java.util.Locale.ROOT);
    boolean bare =
        switch (kind) {
          case INTEGER -> !type.startsWith("year");
          case DECIMAL -> true;
          case DATETIME, TIMESTAMP -> type.endsWith("(6)");
          case STRING -> characterSet.equalsIgnoreCase("utf8mb4");
          default -> false;
        };
    return bare ? quoted() : kind.sqlText(quoted());
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
